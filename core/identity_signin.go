package core

import (
	"context"
	"strings"
)

// Signing up and in: accounts with a password, under the failure limits.

// SignUpInput is what the sign-up form sends.
type SignUpInput struct {
	Email    string
	Password string
	Name     string
	Timezone string // IANA name from the browser; empty means UTC, an unknown name is refused
}

// SignUp creates an account with a password, signs it in and sends the
// verification email.
func (a *Auth) SignUp(ctx context.Context, in SignUpInput, c Client) (*Tokens, error) {
	a.init()
	email := NormalizeEmail(in.Email)
	f := map[string]string{}
	validateEmail(f, "email", email)
	if in.Password == "" {
		f["password"] = "Please enter a password"
	}
	validateProfileName(f, in.Name, false)
	if in.Timezone != "" && !validTimezone(in.Timezone) {
		f["timezone"] = errTimezone
	}
	if err := ValidationError(f); err != nil {
		return nil, err
	}
	if err := a.checkPasswordFor("password", in.Password, in.Email, in.Name); err != nil {
		return nil, err
	}
	if err := a.checkClient(ctx, c.Address); err != nil {
		return nil, err
	}
	// A sign-up costs a hash and an email: it counts against the address.
	if err := a.countClient(ctx, c.Address); err != nil {
		return nil, err
	}
	hash, err := a.hashPassword(ctx, in.Password)
	if err != nil {
		return nil, err
	}
	now := a.Clock.Now()
	u := &User{
		ID:           NewID(),
		Email:        email,
		Name:         strings.TrimSpace(in.Name),
		PasswordHash: hash,
		Providers:    []string{ProviderPassword},
		CreatedAt:    now,
		UpdatedAt:    now,
		Timezone:     in.Timezone,
	}
	if err := a.Users.CreateUser(ctx, u); err != nil {
		if ErrorCode(err) == EEmailInUse {
			return nil, errEmailInUse()
		}
		return nil, err
	}
	a.sendVerification(ctx, u)
	return a.startSession(ctx, u, c)
}

// SignIn checks an email and password and starts a session. An unknown email
// and a wrong password get the same answer in the same time; failures are
// limited per account and per client address.
func (a *Auth) SignIn(ctx context.Context, email, password string, c Client) (t *Tokens, err error) {
	defer func() { metricsOr(a.Metrics).SignIn(SignInPassword, SignInOutcome(err)) }()
	a.init()
	email = NormalizeEmail(email)
	f := map[string]string{}
	if email == "" {
		f["email"] = "Please enter your email"
	}
	if password == "" {
		f["password"] = "Please enter a password"
	}
	if err := ValidationError(f); err != nil {
		return nil, err
	}
	u, err := a.checkPassword(ctx, email, password, c, true)
	if err != nil {
		return nil, err
	}
	return a.startSession(ctx, u, c)
}

// checkPassword finds the account of email and verifies its password, under
// the failure limits. Unknown accounts, accounts without a password and
// wrong passwords all cost one hash and answer auth/wrong-credentials.
//
// The limits never refuse the right password because strangers failed:
// a client that failed too often on any account waits, and a client that
// failed too often on this account, or an account that failed too often
// from anywhere, must send a proof of work (when proof is set: not for a
// re-auth, which needs a live session already, and waits instead), which
// the owner's browser solves. A client is its address, or its network for
// IPv6 (Limiter.Client): an owner behind the NAT or in the /64 of a
// guesser is such a client, and gets in with a proof.
func (a *Auth) checkPassword(ctx context.Context, email, password string, c Client, proof bool) (*User, error) {
	account := EmailKey(email)
	pair := account + "\x00" + a.Limits.Client(c.Address)
	if err := a.signInLimits(ctx, email, pair, c, proof); err != nil {
		return nil, err
	}
	u, err := a.Users.FindUserByEmail(ctx, email)
	if err != nil && ErrorCode(err) != EUserNotFound {
		return nil, err
	}
	hash := a.dummyPasswordHash()
	if u != nil && u.PasswordHash != "" {
		hash = u.PasswordHash
	}
	var ok bool
	if err := a.hashes.do(ctx, a.passParams.Memory, func() { ok = VerifyPassword(password, hash) }); err != nil {
		return nil, err
	}
	if !ok || u == nil || u.PasswordHash == "" {
		if err := a.recordSignInFailure(ctx, account, pair, c); err != nil {
			return nil, err
		}
		return nil, Errorf(EWrongCredentials, "The email or password is incorrect.")
	}
	// With a second factor the sign-in has not succeeded yet: the count
	// is cleared once the code is right (CompleteSecondFactor).
	if c.Address != "" && (!u.HasSecondFactor() || !proof) {
		if err := a.Limits.Clear(ctx, LimitSignInAccountClient, pair); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// signInLimits refuses a sign-in attempt (a password, or a second factor's
// code) of client c on the account of email (pair: the account and the
// client's key) that the failure limits stop: see checkPassword.
func (a *Auth) signInLimits(ctx context.Context, email, pair string, c Client, proof bool) error {
	if err := a.checkClient(ctx, c.Address); err != nil {
		return err
	}
	needProof := false
	if c.Address != "" {
		w, err := a.Limits.Wait(ctx, LimitSignInAccountClient, pair)
		if err != nil {
			return err
		}
		if w > 0 && !proof {
			return errTooManyRequests(w)
		}
		needProof = w > 0
	}
	if proof && !needProof {
		n, err := a.Limits.Count(ctx, LimitSignInAccount, EmailKey(email))
		if err != nil {
			return err
		}
		needProof = n >= LimitSignInAccount.Max
	}
	if needProof {
		return a.checkProof(ctx, c.Proof, email)
	}
	return nil
}

// recordSignInFailure counts a failed attempt on account from c.
func (a *Auth) recordSignInFailure(ctx context.Context, account, pair string, c Client) error {
	if _, err := a.Limits.Record(ctx, LimitSignInAccount, account); err != nil {
		return err
	}
	if c.Address != "" {
		if _, err := a.Limits.Record(ctx, LimitSignInAccountClient, pair); err != nil {
			return err
		}
	}
	return a.countClient(ctx, c.Address)
}

// wait refuses key while it has reached l.
func (a *Auth) wait(ctx context.Context, l Limit, key string) error {
	w, err := a.Limits.Wait(ctx, l, key)
	if err != nil {
		return err
	}
	if w > 0 {
		return errTooManyRequests(w)
	}
	return nil
}

// checkClient refuses a client address that reached its failure limit. An
// unknown address (empty) is not limited by address.
func (a *Auth) checkClient(ctx context.Context, address string) error {
	if address == "" {
		return nil
	}
	return a.wait(ctx, LimitSignInClient, a.Limits.Client(address))
}

// countClient counts a failure, sign-up or reset request of the client.
func (a *Auth) countClient(ctx context.Context, address string) error {
	if address == "" {
		return nil
	}
	_, err := a.Limits.Record(ctx, LimitSignInClient, a.Limits.Client(address))
	return err
}

// dummyPasswordHash is verified for accounts that have no password, so that
// they take as long as a wrong password.
func (a *Auth) dummyPasswordHash() string {
	a.dummyOnce.Do(func() { a.dummyHash = HashPassword(NewSecret(), a.passParams) })
	return a.dummyHash
}

func (a *Auth) hashPassword(ctx context.Context, password string) (string, error) {
	var h string
	err := a.hashes.do(ctx, a.passParams.Memory, func() { h = HashPassword(password, a.passParams) })
	return h, err
}

package core

import (
	"context"
	"strings"
	"time"
)

// The gate of the second factor. Every session starts in startSession;
// when the account has a second factor, startSession makes no session but a
// challenge: a random token, stored only as its hash (an action code of
// mode ModeSecondFactor), valid SecondFactorTTL, used once. The client
// sends it back with a code from the app or a recovery code
// (CompleteSecondFactor), and only then does a session exist. Wrong codes
// count as failed sign-ins (docs/security.md): the client's network waits
// after LimitSignInClient, the client proves work on the account after
// LimitSignInAccountClient and every client after LimitSignInAccount; the
// owner is never locked out. A challenge also takes at most
// SecondFactorAttempts wrong codes, so each batch of guesses costs a
// password sign-in again.
const (
	SecondFactorTTL      = 5 * time.Minute
	SecondFactorAttempts = 5
	// ModeSecondFactor is the action code mode of a challenge; no email
	// carries one, and the action endpoints refuse it.
	ModeSecondFactor = "secondFactor"

	MethodTOTP     = "totp"
	MethodRecovery = "recovery"
	// MethodPasskey: one of the account's passkeys ends the step too
	// (CompleteSecondFactorWithPasskey).
	MethodPasskey = "passkey"
)

// limitSecondFactorTries counts the wrong codes sent with one challenge.
var limitSecondFactorTries = Limit{"second-factor-tries", SecondFactorAttempts, SecondFactorTTL}

// SecondFactorChallenge is what a sign-in to an account with a second
// factor returns instead of a session.
type SecondFactorChallenge struct {
	Token     string
	ExpiresAt time.Time
	Methods   []string // MethodTOTP, MethodRecovery, MethodPasskey
}

func errInvalidChallenge() error {
	return Errorf(EInvalidToken, "This sign-in has expired. Please sign in again.")
}

func errWrongCode() error {
	return &Error{Code: EWrongCredentials, Message: "The code is incorrect.",
		Fields: map[string]string{"code": "The code is incorrect."}}
}

// secondFactorChallenge stores a challenge for u and returns it as a
// sign-in's result.
func (a *Auth) secondFactorChallenge(ctx context.Context, u *User) (*Tokens, error) {
	now := a.Clock.Now()
	token := NewSecret()
	ac := &ActionCode{Hash: HashSecret(token), Mode: ModeSecondFactor, UserID: u.ID, Email: u.Email,
		CreatedAt: now, ExpiresAt: now.Add(SecondFactorTTL)}
	if err := a.ActionCodes.CreateActionCode(ctx, ac); err != nil {
		return nil, err
	}
	methods := []string{MethodTOTP}
	if len(u.RecoveryCodes) > 0 {
		methods = append(methods, MethodRecovery)
	}
	if a.passkeysOn() == nil {
		ps, err := a.Passkeys.ListUserPasskeys(ctx, u.ID)
		if err != nil {
			return nil, err
		}
		if len(ps) > 0 {
			methods = append(methods, MethodPasskey)
		}
	}
	return &Tokens{SecondFactor: &SecondFactorChallenge{Token: token, ExpiresAt: ac.ExpiresAt, Methods: methods}}, nil
}

// CompleteSecondFactor takes the challenge token of a sign-in and a code
// from the authenticator app or a recovery code, and starts the session.
// A code from the app is used once (a step already used, or before it, is
// refused); a recovery code is used once, and its owner is emailed how
// many remain. c.Proof is needed when the account is under attack, as for
// a sign-in.
func (a *Auth) CompleteSecondFactor(ctx context.Context, token, code string, c Client) (*Tokens, error) {
	a.init()
	f := map[string]string{}
	if token == "" {
		f["token"] = "Please sign in first"
	}
	if strings.TrimSpace(code) == "" {
		f["code"] = "Please enter the code from your app or a recovery code"
	}
	if err := ValidationError(f); err != nil {
		return nil, err
	}
	hash, ac, err := a.pendingSecondFactor(ctx, token)
	if err != nil {
		return nil, err
	}
	account := EmailKey(ac.Email)
	pair := account + "\x00" + a.Limits.Client(c.Address)
	if err := a.signInLimits(ctx, ac.Email, pair, c, true); err != nil {
		return nil, err
	}
	u, used, left, err := a.useSecondFactor(ctx, ac.UserID, code)
	if err != nil {
		if ErrorCode(err) != EWrongCredentials {
			return nil, tokenError(err)
		}
		if _, lerr := a.Limits.Record(ctx, limitSecondFactorTries, hash); lerr != nil {
			return nil, lerr
		}
		if lerr := a.recordSignInFailure(ctx, account, pair, c); lerr != nil {
			return nil, lerr
		}
		return nil, err
	}
	if _, err := a.ActionCodes.UseActionCode(ctx, hash, a.Clock.Now()); err != nil {
		return nil, errInvalidChallenge()
	}
	if c.Address != "" {
		if err := a.Limits.Clear(ctx, LimitSignInAccountClient, pair); err != nil {
			return nil, err
		}
	}
	if used {
		a.securityNotice(ctx, u.ID, SecurityRecoveryCodeUsed, left)
	}
	t, err := a.openSession(ctx, u, c)
	if err != nil {
		return nil, err
	}
	t.UsedRecoveryCode, t.RecoveryCodesLeft = used, left
	return t, nil
}

// pendingSecondFactor finds the live challenge of token (its hash and
// code), refusing one used, expired or out of tries.
func (a *Auth) pendingSecondFactor(ctx context.Context, token string) (string, *ActionCode, error) {
	hash := HashSecret(token)
	ac, err := a.ActionCodes.FindActionCode(ctx, hash)
	if err != nil || ac.Mode != ModeSecondFactor || !ac.UsedAt.IsZero() || !a.Clock.Now().Before(ac.ExpiresAt) {
		if err != nil && ErrorCode(err) != EInvalidActionCode && ErrorCode(err) != ENotFound {
			return "", nil, err
		}
		return "", nil, errInvalidChallenge()
	}
	if err := a.wait(ctx, limitSecondFactorTries, hash); err != nil {
		return "", nil, errInvalidChallenge()
	}
	return hash, ac, nil
}

// useSecondFactor checks code against the user's app or recovery codes and
// uses it, in one store step, so two requests cannot both use it. A user
// whose second factor went meanwhile (an operator's reset) passes: the
// password sufficed then. used tells a recovery code was used, left how
// many remain.
func (a *Auth) useSecondFactor(ctx context.Context, userID, code string) (u *User, used bool, left int, err error) {
	now := a.Clock.Now()
	totpCode := normalizeTOTP(code)
	u, err = a.Users.UpdateUser(ctx, userID, func(u *User) error {
		used = false
		if !u.HasSecondFactor() {
			return nil
		}
		if totpCode != "" {
			step, ok := a.matchTOTP(u.TOTPSecret, totpCode, now, u.TOTPLastStep)
			if !ok {
				return errWrongCode()
			}
			u.TOTPLastStep = step
			return nil
		}
		h := recoveryHash(u.ID, code)
		for i, c := range u.RecoveryCodes {
			if c == h {
				u.RecoveryCodes = append(u.RecoveryCodes[:i:i], u.RecoveryCodes[i+1:]...)
				used, left = true, len(u.RecoveryCodes)
				return nil
			}
		}
		return errWrongCode()
	})
	return u, used, left, err
}

// securityNotice emails the owner of userID a change of their sign-in; a
// failure is logged (the change is made either way).
func (a *Auth) securityNotice(ctx context.Context, userID, kind string, remaining int) {
	u, err := a.Users.FindUserByID(ctx, userID)
	if err == nil {
		var e *Email
		e, err = a.Emails.SecurityNotice(SecurityNoticeEmail{
			To: Address{Name: u.Name, Address: u.Email}, Kind: kind, At: a.Clock.Now(), Location: u.Location(),
			Remaining: remaining, Link: strings.TrimRight(a.BaseURL, "/") + "/settings/security",
		})
		if err == nil {
			err = a.Outbox.Email(ctx, e)
		}
	}
	if err != nil {
		a.log().Error("queueing a security notice", "uid", userID, "kind", kind, "err", err)
	}
}

package core

import (
	"context"
	"slices"
)

// SocialAuth signs people in with social providers, on top of Auth's
// accounts and sessions. The provider's side (the OAuth flow, reading the
// profile) is the oauth package's; this is what the profile means here.
type SocialAuth struct {
	Auth *Auth // its Links store the provider links
}

var _ SocialSignIn = (*SocialAuth)(nil)

func errAccountExists() error {
	return Errorf(EAccountExists, "An account with that email already exists; sign in and link it from settings.")
}

// SignIn signs in the user linked to the provider account, or makes one:
//   - a linked account signs in (once its email code is used, when the
//     provider gave no email);
//   - an account with the profile's email is linked only when the provider
//     asserts the email verified; otherwise EAccountExists. An account
//     whose own address was never verified is claimed instead (identity_claim.go);
//   - without an email (X) the person is asked for one: EEmailRequired,
//     then SignUpWithEmail;
//   - otherwise a new account is made, its email verified when the provider
//     says so, else sent the usual verification email.
func (s *SocialAuth) SignIn(ctx context.Context, p ProviderProfile, c Client) (t *Tokens, err error) {
	defer func() { metricsOr(s.Auth.Metrics).SignIn(SignInSocial, SignInOutcome(err)) }()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	link, err := s.Auth.Links.FindProviderLink(ctx, p.Provider, p.Subject)
	switch {
	case err == nil:
		return s.signInLinked(ctx, link, c)
	case ErrorCode(err) != ENotFound:
		return nil, err
	case p.Email == "":
		return nil, Errorf(EEmailRequired, "%s does not share your email address: please enter it to finish signing up.", ProviderName(p.Provider))
	}
	a := s.Auth
	u, err := a.Users.FindUserByEmail(ctx, p.Email)
	switch {
	case err == nil && !p.EmailVerified:
		return nil, errAccountExists()
	case err == nil && !u.EmailVerified:
		// Whoever made the account never proved the address; the
		// provider just did: the account is given to its owner clean.
		return s.claim(ctx, u, p, c)
	case err == nil:
		u, err = s.link(ctx, u.ID, p, "")
		if err != nil {
			return nil, err
		}
		return a.startSession(ctx, u, c)
	case ErrorCode(err) != EUserNotFound:
		return nil, err
	}
	now := a.Clock.Now()
	u = &User{
		ID: NewID(), Email: p.Email, EmailVerified: p.EmailVerified, Name: p.Name, Picture: p.Picture,
		Providers: []string{p.Provider}, CreatedAt: now, UpdatedAt: now,
	}
	l := &ProviderLink{Provider: p.Provider, Subject: p.Subject, UserID: u.ID, Email: p.Email, CreatedAt: now}
	if err := s.Auth.Links.CreateUserWithLink(ctx, u, l); err != nil {
		if ErrorCode(err) == EEmailInUse {
			return nil, errAccountExists()
		}
		return nil, err
	}
	if !u.EmailVerified {
		a.sendVerification(ctx, u)
	}
	return a.startSession(ctx, u, c)
}

// signInLinked starts a session for a linked account whose link is
// confirmed. An unconfirmed link whose code expired gets a new one.
func (s *SocialAuth) signInLinked(ctx context.Context, l *ProviderLink, c Client) (*Tokens, error) {
	a := s.Auth
	u, err := a.Users.FindUserByID(ctx, l.UserID)
	if err != nil {
		return nil, err
	}
	if l.PendingCodeHash != "" {
		ac, err := a.ActionCodes.FindActionCode(ctx, l.PendingCodeHash)
		switch {
		case err == nil && !ac.UsedAt.IsZero():
			if _, err := s.Auth.Links.UpdateProviderLink(ctx, l.Provider, l.Subject, func(l *ProviderLink) error {
				l.PendingCodeHash = ""
				return nil
			}); err != nil {
				return nil, err
			}
		case err == nil && a.Clock.Now().Before(ac.ExpiresAt):
			return nil, Errorf(EEmailNotVerified, "Please confirm your email address with the link we sent to %s, then sign in again.", u.Email)
		case err != nil && ErrorCode(err) != EInvalidActionCode && ErrorCode(err) != ENotFound:
			return nil, err
		default:
			hash, err := s.sendLinkCode(ctx, u)
			if err != nil {
				return nil, err
			}
			if _, err := s.Auth.Links.UpdateProviderLink(ctx, l.Provider, l.Subject, func(l *ProviderLink) error {
				l.PendingCodeHash = hash
				return nil
			}); err != nil {
				return nil, err
			}
			return nil, Errorf(EEmailNotVerified, "We sent a new link to %s: follow it to confirm your email address, then sign in again.", u.Email)
		}
	}
	return a.startSession(ctx, u, c)
}

// SignUpWithEmail makes the account of a provider that gave no email, with
// the address the person typed. The account signs in once the verification
// code sent to that address is used, so an address that is not theirs never
// gets them in.
func (s *SocialAuth) SignUpWithEmail(ctx context.Context, p ProviderProfile, email string) error {
	if err := p.Validate(); err != nil {
		return err
	}
	email = NormalizeEmail(email)
	f := map[string]string{}
	validateEmail(f, "email", email)
	if err := ValidationError(f); err != nil {
		return err
	}
	if _, err := s.Auth.Links.FindProviderLink(ctx, p.Provider, p.Subject); ErrorCode(err) != ENotFound {
		if err == nil {
			return Errorf(ECredentialInUse, "This %s account already has an account here: sign in with it.", ProviderName(p.Provider))
		}
		return err
	}
	a := s.Auth
	now := a.Clock.Now()
	u := &User{ID: NewID(), Email: email, Name: p.Name, Picture: p.Picture, Providers: []string{p.Provider}, CreatedAt: now, UpdatedAt: now}
	if wait, err := a.Limits.Take(ctx, verificationLimits(u, email)...); err != nil || wait > 0 {
		if err == nil {
			err = errTooManyEmails(wait)
		}
		return err
	}
	// The code is stored first: a crash before the account exists leaves a
	// code that expires unused, never a link that signs in unconfirmed.
	code, err := a.newActionCode(ctx, ModeVerifyEmail, u, email, "")
	if err != nil {
		return err
	}
	l := &ProviderLink{Provider: p.Provider, Subject: p.Subject, UserID: u.ID, PendingCodeHash: HashSecret(code), CreatedAt: now}
	if err := s.Auth.Links.CreateUserWithLink(ctx, u, l); err != nil {
		if ErrorCode(err) == EEmailInUse {
			return errAccountExists()
		}
		return err
	}
	return s.mailVerification(ctx, u, code)
}

// sendLinkCode sends u a new verification code, within the mail-bomb
// limits, and returns its hash.
func (s *SocialAuth) sendLinkCode(ctx context.Context, u *User) (string, error) {
	wait, err := s.Auth.Limits.Take(ctx, verificationLimits(u, u.Email)...)
	if err != nil {
		return "", err
	}
	if wait > 0 {
		return "", errTooManyEmails(wait)
	}
	code, err := s.Auth.newActionCode(ctx, ModeVerifyEmail, u, u.Email, "")
	if err != nil {
		return "", err
	}
	return HashSecret(code), s.mailVerification(ctx, u, code)
}

// mailVerification queues u's verification email of code.
func (s *SocialAuth) mailVerification(ctx context.Context, u *User, code string) error {
	reason := "an account was started through a sign-in provider, with this address typed in"
	if len(u.Providers) > 0 {
		reason = "an account was started through " + ProviderName(u.Providers[0]) + ", with this address typed in"
	}
	e, err := s.Auth.actionEmail(ModeVerifyEmail, u, u.Email, code, reason)
	if err != nil {
		return err
	}
	return s.Auth.Outbox.Email(ctx, e)
}

// Link links a provider account to the user of the session in ctx. The
// provider's flow starts only for a recent login (RequireRecentLogin); when
// it comes back, the session must still hold.
func (s *SocialAuth) Link(ctx context.Context, p ProviderProfile) (*User, error) {
	id, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	l, err := s.Auth.Links.FindProviderLink(ctx, p.Provider, p.Subject)
	switch {
	case err == nil && l.UserID == id.UserID:
		return s.Auth.User(ctx)
	case err == nil:
		return nil, ErrProviderAccountLinked(p.Provider)
	case ErrorCode(err) != ENotFound:
		return nil, err
	}
	return s.link(ctx, id.UserID, p, p.Email)
}

// Reauth makes the session in ctx a recent login again, as a password's
// Reauth does, when the provider account that just signed in is linked to
// the session's user. As with Link, the flow starts only for a signed-in
// session, and the session must still hold when it comes back.
func (s *SocialAuth) Reauth(ctx context.Context, p ProviderProfile) error {
	id, err := s.session(ctx)
	if err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return err
	}
	l, err := s.Auth.Links.FindProviderLink(ctx, p.Provider, p.Subject)
	switch {
	case err == nil && l.UserID == id.UserID && l.PendingCodeHash == "":
	case err == nil || ErrorCode(err) == ENotFound:
		return Errorf(EWrongCredentials, "This %s account is not the one linked to your account: sign in with that one.", ProviderName(p.Provider))
	default:
		return err
	}
	now := s.Auth.Clock.Now()
	_, err = s.Auth.Sessions.UpdateSession(ctx, id.SessionID, func(se *Session) error {
		se.AuthTime, se.LastUsedAt = now, now
		return nil
	})
	return tokenError(err)
}

// Intent returns the intent of a provider sign-in that the identity in ctx
// starts: linking needs a recent login, signing in again a session.
func (s *SocialAuth) Intent(ctx context.Context, kind string) (SocialIntent, error) {
	var id *Identity
	var err error
	switch kind {
	case IntentLink:
		if err = s.Auth.RequireRecentLogin(ctx); err == nil {
			id = IdentityFrom(ctx)
		}
	case IntentReauth:
		id, err = s.session(ctx)
	default:
		err = Errorf(EInvalid, "A provider sign-in started while signed in links or signs in again.")
	}
	if err != nil {
		return SocialIntent{}, err
	}
	return SocialIntent{Kind: kind, UserID: id.UserID, SessionID: id.SessionID}, nil
}

// session returns the identity in ctx when it is a user's session that
// still holds: what linking and signing in again through a provider need.
func (s *SocialAuth) session(ctx context.Context) (*Identity, error) {
	id, err := authorized(ctx, ScopeAccount)
	switch {
	case err != nil:
		return nil, err
	case id.Operator != "":
		return nil, errOperator()
	case id.SessionID == "":
		return nil, Errorf(ERequiresRecentLogin, "Please sign in again to complete this action.")
	}
	if _, err := s.Auth.checkSession(ctx, id); err != nil {
		return nil, err
	}
	return id, nil
}

// link stores the link of p to user userID: the provider joins the user's
// providers, and a verified email that is the user's marks it verified.
func (s *SocialAuth) link(ctx context.Context, userID string, p ProviderProfile, email string) (*User, error) {
	now := s.Auth.Clock.Now()
	if email == "" {
		email = p.Email
	}
	l := &ProviderLink{Provider: p.Provider, Subject: p.Subject, UserID: userID, Email: email, CreatedAt: now}
	return s.Auth.Links.LinkProvider(ctx, l, func(u *User, links []*ProviderLink) error {
		for _, other := range links {
			if other.Provider == p.Provider {
				return Errorf(EConflict, "A %s account is linked already: unlink it first.", ProviderName(p.Provider))
			}
		}
		if !slices.Contains(u.Providers, p.Provider) {
			u.Providers = append(u.Providers, p.Provider)
		}
		if p.EmailVerified && EmailKey(p.Email) == EmailKey(u.Email) {
			u.EmailVerified = true
		}
		if u.Name == "" {
			u.Name = p.Name
		}
		if u.Picture == "" {
			u.Picture = p.Picture
		}
		u.UpdatedAt = now
		return nil
	})
}

// Unlink removes the signed-in user's link of provider (recent login), when
// another way to sign in remains: a password or another confirmed link.
func (s *SocialAuth) Unlink(ctx context.Context, provider string) (*SessionUser, error) {
	if err := s.Auth.RequireRecentLogin(ctx); err != nil {
		return nil, err
	}
	id := IdentityFrom(ctx)
	u, err := s.Auth.Links.UnlinkProvider(ctx, id.UserID, provider, func(u *User, links []*ProviderLink) error {
		found, others := false, u.PasswordHash != ""
		for _, l := range links {
			if l.Provider == provider {
				found = true
			} else if l.PendingCodeHash == "" {
				others = true
			}
		}
		switch {
		case !found:
			return Errorf(ENotFound, "No %s account is linked.", ProviderName(provider))
		case !others:
			return Errorf(ELastSignInMethod, "%s is your only way to sign in: set a password or link another account first.", ProviderName(provider))
		}
		u.Providers = slices.DeleteFunc(u.Providers, func(p string) bool { return p == provider })
		u.UpdatedAt = s.Auth.Clock.Now()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.Auth.sessionUser(ctx, u)
}

// LinkedAccounts lists the signed-in user's linked provider accounts, oldest
// first.
func (s *SocialAuth) LinkedAccounts(ctx context.Context) ([]*ProviderLink, error) {
	id, err := authorized(ctx, ScopeAccount)
	if err != nil {
		return nil, err
	}
	return s.Auth.Links.ListProviderLinks(ctx, id.UserID)
}

package core

import (
	"context"
	"strings"
	"time"
)

// Social sign-in error codes (docs/identity.md).
const (
	// The provider's email belongs to an account the provider cannot vouch
	// for: the owner signs in and links the provider from settings.
	EAccountExists = "auth/account-exists-with-different-credential"
	// The provider account is linked to another user.
	ECredentialInUse = "auth/credential-already-in-use"
	// The provider gave no email: the user is asked for one.
	EEmailRequired = "auth/email-required"
	// The email given for such a provider is not confirmed yet.
	EEmailNotVerified = "auth/email-not-verified"
	// Unlinking would leave no way to sign in.
	ELastSignInMethod = "auth/last-sign-in-method"
	// The provider's callback does not match a sign-in started here, or
	// came back twice.
	EInvalidState = "auth/invalid-oauth-state"
	// The person declined at the provider.
	EUserCancelled = "auth/user-cancelled"
	// The provider answered with an error or could not confirm the sign-in.
	EProviderFailed = "auth/provider-error"
)

// SocialProviders are the social sign-in providers, in the order the sign-in
// page shows them.
var SocialProviders = []string{ProviderGoogle, ProviderFacebook, ProviderTwitter, ProviderGitHub}

// ProviderName is how a provider is called on screen.
func ProviderName(id string) string {
	switch id {
	case ProviderGoogle:
		return "Google"
	case ProviderFacebook:
		return "Facebook"
	case ProviderTwitter:
		return "X"
	case ProviderGitHub:
		return "GitHub"
	case ProviderPassword:
		return "password"
	}
	return id
}

func isSocialProvider(id string) bool {
	for _, p := range SocialProviders {
		if p == id {
			return true
		}
	}
	return false
}

// ProviderProfile is what a social provider says about the person who signed
// in through it.
type ProviderProfile struct {
	Provider string
	Subject  string // the provider's stable id of the account
	Email    string // "" when the provider gives none (X)
	// EmailVerified: the provider asserts that the person controls Email.
	EmailVerified bool
	Name          string
	Picture       string
}

// Validate checks what the sign-in depends on and tidies the rest: an
// invalid email is dropped (the person is then asked for one), as are a
// picture that is no http(s) URL and a name that is no one-line name.
func (p *ProviderProfile) Validate() error {
	if !isSocialProvider(p.Provider) {
		return Errorf(EProviderNotConfigured, "There is no sign-in provider %q.", p.Provider)
	}
	if p.Subject == "" || len(p.Subject) > 255 {
		return Errorf(EInvalid, "The %s account has no usable id.", ProviderName(p.Provider))
	}
	if p.Email = NormalizeEmail(p.Email); !ValidEmail(p.Email) {
		p.Email, p.EmailVerified = "", false
	}
	p.Name = strings.TrimSpace(p.Name)
	f := map[string]string{}
	if validateProfileName(f, p.Name, false); len(f) > 0 {
		p.Name = ""
	}
	if p.Picture != "" && !validPictureURL(p.Picture) {
		p.Picture = ""
	}
	return nil
}

// ProviderLink ties a provider account to a user.
type ProviderLink struct {
	Provider string
	Subject  string
	UserID   string
	Email    string // the email the provider gave, "" when none
	// PendingCodeHash is the hash of the email code sent when the link was
	// made with an address the provider did not give; until that code is
	// used, the link does not sign in. Empty once confirmed.
	PendingCodeHash string
	CreatedAt       time.Time
}

// ProviderLinkStore persists provider links. Each method is one transaction.
// A provider account is linked to at most one user (else ECredentialInUse),
// a user has at most one link per provider (else EConflict). Not found is
// ENotFound.
type ProviderLinkStore interface {
	FindProviderLink(ctx context.Context, provider, subject string) (*ProviderLink, error)
	// ListProviderLinks lists the user's links, oldest first.
	ListProviderLinks(ctx context.Context, userID string) ([]*ProviderLink, error)
	// CreateUserWithLink creates u (as UserStore.CreateUser) and l for it.
	CreateUserWithLink(ctx context.Context, u *User, l *ProviderLink) error
	// LinkProvider applies fn to the user l.UserID, given their links so
	// far, and stores both the user and l; fn's error aborts.
	LinkProvider(ctx context.Context, l *ProviderLink, fn func(u *User, links []*ProviderLink) error) (*User, error)
	// UnlinkProvider applies fn to the user, given their links, and deletes
	// their link of provider; fn's error aborts.
	UnlinkProvider(ctx context.Context, userID, provider string, fn func(u *User, links []*ProviderLink) error) (*User, error)
	UpdateProviderLink(ctx context.Context, provider, subject string, fn func(l *ProviderLink) error) (*ProviderLink, error)
	// ClaimAccount gives the user userID to the proven owner of their
	// address (core/identity_claim.go) in one transaction: it applies fn to the
	// user, given their links (fn's error aborts), stores the user, deletes
	// every session, access token, provider link and the webhook secret of
	// the user, marks every unused action code of theirs used at now, and
	// then links l when it is not nil. It returns the user and the counts
	// of what it deleted (Claimed's Sessions, AccessTokens, Links and
	// Codes). The messages are left to core (pauseClaimed).
	ClaimAccount(ctx context.Context, userID string, l *ProviderLink, now time.Time,
		fn func(u *User, links []*ProviderLink) error) (*User, Claimed, error)
}

// What a provider's sign-in is for (SocialIntent.Kind).
const (
	IntentSignIn = ""       // sign in or sign up
	IntentLink   = "link"   // link the account to the session's user
	IntentReauth = "reauth" // make the session's login recent
)

// SocialIntent is what a provider's sign-in is for, carried through the
// provider in the signed state: linking and signing in again name the
// session that started them.
type SocialIntent struct {
	Kind      string
	UserID    string
	SessionID string
}

// ProviderAnswer is what the provider sent the browser back with (the
// callback's query).
type ProviderAnswer struct {
	State string
	Code  string
	Error string // the provider's error code, e.g. access_denied
}

// SocialResult is a checked callback: who the provider says signed in, and
// what for.
type SocialResult struct {
	Profile ProviderProfile
	Intent  SocialIntent
}

// SocialFlow is the provider side of social sign-in (the oauth package):
// the configured providers and the browser's trip through them. The state a
// sign-in keeps travels in the browser (a cookie), signed, so any server of
// the deployment can finish it.
type SocialFlow interface {
	// Providers lists the configured providers, in SocialProviders order.
	Providers() []string
	// Start begins a sign-in with provider: the address to send the
	// browser to, and the state to keep in it until the provider sends it
	// back (at most StateTTL).
	Start(provider string, intent SocialIntent) (redirect, state string, err error)
	// Finish checks the provider's answer against the state kept, once,
	// and reads the profile.
	Finish(ctx context.Context, provider, state string, a ProviderAnswer) (*SocialResult, error)
	// Hold seals a profile for a follow-up request from the same browser
	// (the email address a provider did not give); Held opens it while it
	// is fresh.
	Hold(p ProviderProfile) (string, error)
	Held(provider, sealed string) (ProviderProfile, error)
}

// OAuthStateTTL is how long a started social sign-in may take, and how long
// a held profile keeps.
const OAuthStateTTL = 10 * time.Minute

// SocialOff is SocialFlow while no provider is configured.
type SocialOff struct{}

var _ SocialFlow = SocialOff{}

// ProviderNotConfigured is the error of a provider this server does not
// offer.
func ProviderNotConfigured(provider string) error {
	return Errorf(EProviderNotConfigured, "Sign-in with %s is not set up on this server.", ProviderName(provider))
}

func (SocialOff) Providers() []string { return nil }

func (SocialOff) Start(provider string, _ SocialIntent) (string, string, error) {
	return "", "", ProviderNotConfigured(provider)
}

func (SocialOff) Finish(_ context.Context, provider, _ string, _ ProviderAnswer) (*SocialResult, error) {
	return nil, ProviderNotConfigured(provider)
}

func (SocialOff) Hold(p ProviderProfile) (string, error) {
	return "", ProviderNotConfigured(p.Provider)
}

func (SocialOff) Held(provider, _ string) (ProviderProfile, error) {
	return ProviderProfile{}, ProviderNotConfigured(provider)
}

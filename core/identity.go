package core

import (
	"context"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Identity lifetimes and limits.
const (
	IDTokenTTL     = time.Hour
	SessionIdleTTL = 30 * 24 * time.Hour // a session unused this long ends
	SessionMaxAge  = 90 * 24 * time.Hour // a session ends this long after its sign-in, however used
	// RefreshGrace is how long after a refresh the same refresh token gets
	// the same new pair again instead of ending the session.
	RefreshGrace      = 10 * time.Second
	RecentLoginWindow = 5 * time.Minute
	ResetCodeTTL      = time.Hour
	EmailCodeTTL      = 3 * 24 * time.Hour // verifyEmail and recoverEmail

	maxRotatedHashes = 32 // rotated refresh tokens a session remembers
	maxUserAgentLen  = 256
	maxTimezoneLen   = 64
)

// Auth is the identity service: accounts with email and password, sessions
// with ID and refresh tokens, email actions, the profile and personal access
// tokens. It implements Account and Identities. Dependencies are fields,
// wired in cmd; the zero values of the optional ones are safe defaults.
type Auth struct {
	Users UserStore
	// Files removes the bytes of a deleted account's files; nil: none.
	Files        FileBytes
	Sessions     SessionStore
	AccessTokens AccessTokenStore
	ActionCodes  ActionCodeStore
	Messages     MessageStore
	Links        ProviderLinkStore // social sign-in's links of a user
	Outbox       *Outbox           // the identity emails leave through it
	Emails       Emails
	Clock        Clock
	Prices       PriceMap
	AppName      string // names the account in authenticator apps; empty: DefaultIssuer
	BaseURL      string // e.g. https://sendlater.example, without a trailing slash
	SigningKey   []byte // HMAC key of ID tokens, at least MinSigningKeyLen bytes
	// Limits counts failed sign-ins and the identity emails sent.
	Limits *Limiter
	Logger *slog.Logger
	// Refusals makes the one-click refusal link of the request to confirm
	// a second reminder address (nil: none offered); Refused tells which
	// addresses refused every email (nil: none did).
	Refusals *RefusalTokens
	Refused  AddressRefusals
	// Metrics counts sign-ins by outcome; nil: not counted.
	Metrics Metrics
	// Tracer tells whether a request is traced: the store's lookups of
	// Authenticate then make no span of their own (WithoutStoreSpans).
	Tracer Tracer
	// OTP makes and checks authenticator app codes (otpauth.Codes); nil:
	// no app can be set up.
	OTP OneTimeCodes
	// Devices remembers where each account signed in, for the email
	// about a sign-in from a new device (nil: no such email).
	Devices DeviceBookStore
	// Passkeys are the users' passkeys and Ceremonies WebAuthn's
	// (passkey/); either nil: passkeys are off.
	Passkeys   PasskeyStore
	Ceremonies PasskeyCeremonies
	// DeviceCodes are the device flow's requests (nil: the flow is off).
	DeviceCodes DeviceCodeStore

	// Optional.
	PasswordParams PasswordParams // zero: DefaultPasswordParams
	MaxHashes      int            // argon2id computations at once; zero: GOMAXPROCS

	once       sync.Once
	hashes     hashLimiter
	dummyOnce  sync.Once
	dummyHash  string
	passParams PasswordParams
	verified   verifiedTokens // ID tokens whose signature checked out
	// checked are sessions checkSession found, under their user's
	// generation, when Sessions keeps generations (UserGenerations).
	checked GenerationCache[Session]
	// mine are what Me read, under the user's generation, likewise.
	mine GenerationCache[meRead]
}

var (
	_ Account        = (*Auth)(nil)
	_ Identities     = (*Auth)(nil)
	_ PasswordResets = (*Auth)(nil)
)

func (a *Auth) init() {
	a.once.Do(func() {
		// One hash per core: argon2id with p=1 keeps one core busy, so more
		// at once would not sign in faster, only hold 19 MiB more each.
		n := a.MaxHashes
		if n <= 0 {
			n = runtime.GOMAXPROCS(0)
		}
		a.hashes = make(hashLimiter, n)
		a.passParams = a.PasswordParams
		if a.passParams == (PasswordParams{}) {
			a.passParams = DefaultPasswordParams
		}
	})
}

func (a *Auth) log() *slog.Logger {
	if a.Logger != nil {
		return a.Logger
	}
	return slog.Default()
}

// Client describes where a sign-in comes from.
type Client struct {
	Address   string // the client's IP address, for rate limiting
	UserAgent string // kept on the session
	Proof     Proof  // a solved puzzle, when the account is under attack
}

// Tokens is the result of a sign-in, sign-up or refresh: a short-lived ID
// token for the Authorization header and a refresh token for the cookie,
// with the user it signed in.
type Tokens struct {
	IDToken          string
	ExpiresAt        time.Time
	RefreshToken     string // empty after re-auth: the cookie stays as it is
	RefreshExpiresAt time.Time
	User             *User        // nil after re-auth
	Session          *SessionUser // the user as clients see it; nil after re-auth
	// SecondFactor, when set, is all a sign-in returned: the account has a
	// second factor, and no session exists until CompleteSecondFactor
	// gets its challenge with a code (the other fields are empty).
	SecondFactor *SecondFactorChallenge
	// UsedRecoveryCode: the sign-in used a recovery code, and
	// RecoveryCodesLeft remain.
	UsedRecoveryCode  bool
	RecoveryCodesLeft int
}

func errTooManyRequests(wait time.Duration) error {
	return &Error{
		Code:       ETooManyRequests,
		Message:    "Too many failed attempts. Please wait a while and try again.",
		RetryAfter: wait,
	}
}

func errEmailInUse() error {
	return &Error{
		Code:    EEmailInUse,
		Message: "This email address is already in use by another account.",
		Fields:  map[string]string{"email": "This email address is already in use by another account."},
	}
}

// validateEmail checks a required email field with the messages of SPEC.md
// section 5.
func validateEmail(f map[string]string, field, email string) {
	switch {
	case email == "":
		f[field] = "Please enter your email"
	case !ValidEmail(email):
		f[field] = "Please enter a valid email address"
	}
}

// validateProfileName checks a name; required is the profile form's rule.
func validateProfileName(f map[string]string, name string, required bool) {
	if required && strings.TrimSpace(name) == "" {
		f["name"] = "Please enter your name"
	} else if p := lineProblem(name, "The name", MaxNameLen); p != "" {
		f["name"] = p
	}
}

// errTimezone is the field message of a time zone that is not an IANA name
// (the binary embeds the zone database: time/tzdata in cmd/sendlater).
const errTimezone = "Please choose a valid time zone"

// validTimezone reports whether tz names an IANA time zone.
func validTimezone(tz string) bool {
	if tz == "" || tz == "Local" || len(tz) > maxTimezoneLen {
		return false
	}
	_, err := time.LoadLocation(tz)
	return err == nil
}

// sessionUser is u as clients see it, with what its plan allows now.
func (a *Auth) sessionUser(ctx context.Context, u *User) (*SessionUser, error) {
	hasMessages, err := a.hasMessages(ctx, u)
	if err != nil {
		return nil, err
	}
	su := a.sessionUserOf(u, hasMessages)
	return su, refusalState(ctx, a.Refused, su)
}

// hasMessages reports whether u has messages, when its plan limits them
// (otherwise it does not matter: false).
func (a *Auth) hasMessages(ctx context.Context, u *User) (bool, error) {
	if plan, active := a.Prices.PlanOf(u); MessageLimit(plan, active) > 0 {
		n, err := a.Messages.CountMessages(ctx, u.ID)
		return n > 0, err
	}
	return false, nil
}

// sessionUserOf is sessionUser once hasMessages is known.
func (a *Auth) sessionUserOf(u *User, hasMessages bool) *SessionUser {
	su := u.Session(a.Prices, hasMessages)
	su.HoldUntil = activeHold(u, a.Clock.Now())
	return &su
}

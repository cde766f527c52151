package core

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Identity lifetimes and limits.
const (
	IDTokenTTL        = time.Hour
	SessionIdleTTL    = 30 * 24 * time.Hour // a session unused this long ends
	RecentLoginWindow = 5 * time.Minute
	ResetCodeTTL      = time.Hour
	EmailCodeTTL      = 3 * 24 * time.Hour // verifyEmail and recoverEmail

	MaxAccountFailures = 10 // failed sign-ins per account per FailureWindow
	MaxAddressFailures = 50 // failed sign-ins and sign-ups per client address per FailureWindow
	FailureWindow      = 15 * time.Minute

	maxRotatedHashes = 32 // rotated refresh tokens a session remembers
	maxUserAgentLen  = 256
	maxTimezoneLen   = 64
)

// Auth is the identity service: accounts with email and password, sessions
// with ID and refresh tokens, email actions, the profile and personal access
// tokens. Dependencies are fields, wired in cmd; the zero values of the
// optional ones are safe defaults.
type Auth struct {
	Users        UserStore
	Sessions     SessionStore
	AccessTokens AccessTokenStore
	ActionCodes  ActionCodeStore
	Messages     MessageStore
	Mailer       Mailer
	Emails       Emails
	Clock        Clock
	Prices       PriceMap
	BaseURL      string // e.g. https://sendlater.example, without a trailing slash
	SigningKey   []byte // HMAC key of ID tokens, at least MinSigningKeyLen bytes
	Logger       *slog.Logger

	// Optional.
	PasswordParams PasswordParams // zero: DefaultPasswordParams
	MaxHashes      int            // argon2id computations at once; zero: GOMAXPROCS

	once       sync.Once
	hashes     hashLimiter
	accounts   *FailureLimiter
	addresses  *FailureLimiter
	resets     *FailureLimiter
	dummyOnce  sync.Once
	dummyHash  string
	passParams PasswordParams
}

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
		a.accounts = NewFailureLimiter(MaxAccountFailures, FailureWindow, 100_000)
		a.addresses = NewFailureLimiter(MaxAddressFailures, FailureWindow, 20_000)
		// Reset emails per address asked for: enough for a lost email, too
		// few to flood a mailbox.
		a.resets = NewFailureLimiter(5, time.Hour, 100_000)
	})
}

func (a *Auth) log() *slog.Logger {
	if a.Logger != nil {
		return a.Logger
	}
	return slog.Default()
}

// Identity is who a request acts for: a session (signed in through an ID
// token) or a personal access token.
type Identity struct {
	UserID    string
	SessionID string    // empty for a personal access token
	TokenID   string    // the personal access token, if that is how
	AuthTime  time.Time // last sign-in or re-auth of the session; zero for tokens
}

type identityKey struct{}

// WithIdentity returns ctx carrying id.
func WithIdentity(ctx context.Context, id *Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity in ctx, or nil.
func IdentityFrom(ctx context.Context) *Identity {
	id, _ := ctx.Value(identityKey{}).(*Identity)
	return id
}

// Client describes where a sign-in comes from.
type Client struct {
	Address   string // the client's IP address, for rate limiting
	UserAgent string // kept on the session
}

// Tokens is the result of a sign-in, sign-up or refresh: a short-lived ID
// token for the Authorization header and a refresh token for the cookie.
type Tokens struct {
	IDToken          string
	ExpiresAt        time.Time
	RefreshToken     string // empty after re-auth: the cookie stays as it is
	RefreshExpiresAt time.Time
	User             *User
}

// SignUpInput is what the sign-up form sends.
type SignUpInput struct {
	Email    string
	Password string
	Name     string
	Timezone string // IANA name from the browser; ignored when unknown
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
	if err := ValidationError(f); err != nil {
		return nil, err
	}
	if err := CheckPassword("password", in.Password); err != nil {
		return nil, err
	}
	now := a.Clock.Now()
	if err := a.checkAddress(c.Address, now); err != nil {
		return nil, err
	}
	// A sign-up costs a hash and an email: it counts against the address.
	a.addAddressEvent(c.Address, now)
	hash, err := a.hashPassword(ctx, in.Password)
	if err != nil {
		return nil, err
	}
	u := &User{
		ID:           NewID(),
		Email:        email,
		Name:         strings.TrimSpace(in.Name),
		PasswordHash: hash,
		Providers:    []string{ProviderPassword},
		CreatedAt:    now,
		UpdatedAt:    now,
	}
	if validTimezone(in.Timezone) {
		u.Timezone = in.Timezone
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
func (a *Auth) SignIn(ctx context.Context, email, password string, c Client) (*Tokens, error) {
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
	u, err := a.checkPassword(ctx, email, password, c.Address)
	if err != nil {
		return nil, err
	}
	return a.startSession(ctx, u, c)
}

// checkPassword finds the account of email and verifies its password, under
// the failure limits. Unknown accounts, accounts without a password and
// wrong passwords all cost one hash and answer auth/wrong-credentials.
func (a *Auth) checkPassword(ctx context.Context, email, password, address string) (*User, error) {
	now := a.Clock.Now()
	account := EmailKey(email)
	if wait := a.accounts.Blocked(account, now); wait > 0 {
		return nil, errTooManyRequests(wait)
	}
	if err := a.checkAddress(address, now); err != nil {
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
	if err := a.hashes.do(ctx, func() { ok = VerifyPassword(password, hash) }); err != nil {
		return nil, err
	}
	if !ok || u == nil || u.PasswordHash == "" {
		now = a.Clock.Now()
		a.accounts.Add(account, now)
		a.addAddressEvent(address, now)
		return nil, Errorf(EWrongCredentials, "The email or password is incorrect.")
	}
	a.accounts.Reset(account)
	return u, nil
}

// checkAddress refuses a client address that reached its failure limit. An
// unknown address (empty) is not limited by address.
func (a *Auth) checkAddress(address string, now time.Time) error {
	if address == "" {
		return nil
	}
	if wait := a.addresses.Blocked(address, now); wait > 0 {
		return errTooManyRequests(wait)
	}
	return nil
}

func (a *Auth) addAddressEvent(address string, now time.Time) {
	if address != "" {
		a.addresses.Add(address, now)
	}
}

// dummyPasswordHash is verified for accounts that have no password, so that
// they take as long as a wrong password.
func (a *Auth) dummyPasswordHash() string {
	a.dummyOnce.Do(func() { a.dummyHash = HashPassword(NewSecret(), a.passParams) })
	return a.dummyHash
}

func (a *Auth) hashPassword(ctx context.Context, password string) (string, error) {
	var h string
	err := a.hashes.do(ctx, func() { h = HashPassword(password, a.passParams) })
	return h, err
}

// startSession creates a session for u and its first tokens.
func (a *Auth) startSession(ctx context.Context, u *User, c Client) (*Tokens, error) {
	if err := a.checkKey(); err != nil {
		return nil, err
	}
	now := a.Clock.Now()
	refresh := NewSecret()
	ua := c.UserAgent
	if len(ua) > maxUserAgentLen {
		ua = strings.ToValidUTF8(ua[:maxUserAgentLen], "")
	}
	s := &Session{
		ID:          NewID(),
		UserID:      u.ID,
		RefreshHash: HashSecret(refresh),
		AuthTime:    now,
		CreatedAt:   now,
		LastUsedAt:  now,
		ExpiresAt:   now.Add(SessionIdleTTL),
		UserAgent:   ua,
	}
	if err := a.Sessions.CreateSession(ctx, s); err != nil {
		return nil, err
	}
	t := a.issue(u, s, now)
	t.RefreshToken = refresh
	return t, nil
}

// issue signs an ID token for the session.
func (a *Auth) issue(u *User, s *Session, now time.Time) *Tokens {
	exp := now.Add(IDTokenTTL)
	tok := SignIDToken(a.SigningKey, IDTokenClaims{
		UserID:    u.ID,
		SessionID: s.ID,
		AuthTime:  s.AuthTime.Unix(),
		IssuedAt:  now.Unix(),
		ExpiresAt: exp.Unix(),
	})
	return &Tokens{IDToken: tok, ExpiresAt: exp, RefreshExpiresAt: s.ExpiresAt, User: u}
}

func (a *Auth) checkKey() error {
	if len(a.SigningKey) < MinSigningKeyLen {
		return Errorf(EInternal, "the ID token signing key must be at least %d bytes", MinSigningKeyLen)
	}
	return nil
}

// errRefreshReused aborts the rotation of a refresh token that another
// request rotated first.
var errRefreshReused = Errorf(EInvalidToken, "refresh token reused")

// Refresh exchanges a refresh token for a new ID token and a new refresh
// token. A refresh token that was already exchanged ends its whole session:
// either its owner or a thief holds a copy, and it cannot tell which.
func (a *Auth) Refresh(ctx context.Context, refreshToken string) (*Tokens, error) {
	a.init()
	if err := a.checkKey(); err != nil {
		return nil, err
	}
	if refreshToken == "" {
		return nil, errInvalidToken()
	}
	hash := HashSecret(refreshToken)
	s, rotated, err := a.Sessions.FindSessionByRefreshHash(ctx, hash)
	if err != nil {
		return nil, tokenError(err)
	}
	now := a.Clock.Now()
	if rotated || !now.Before(s.ExpiresAt) {
		return nil, a.endSession(ctx, s.ID)
	}
	next := NewSecret()
	sid := s.ID
	s, err = a.Sessions.UpdateSession(ctx, sid, func(s *Session) error {
		if s.RefreshHash != hash {
			return errRefreshReused
		}
		s.RotatedHashes = append(s.RotatedHashes, hash)
		if n := len(s.RotatedHashes); n > maxRotatedHashes {
			s.RotatedHashes = append([]string(nil), s.RotatedHashes[n-maxRotatedHashes:]...)
		}
		s.RefreshHash = HashSecret(next)
		s.LastUsedAt = now
		s.ExpiresAt = now.Add(SessionIdleTTL)
		return nil
	})
	if errors.Is(err, errRefreshReused) {
		return nil, a.endSession(ctx, sid)
	}
	if err != nil {
		return nil, tokenError(err)
	}
	u, err := a.Users.FindUserByID(ctx, s.UserID)
	if err != nil {
		return nil, tokenError(err)
	}
	t := a.issue(u, s, now)
	t.RefreshToken = next
	return t, nil
}

// endSession deletes a session that must not go on and answers
// auth/invalid-user-token.
func (a *Auth) endSession(ctx context.Context, id string) error {
	if err := a.Sessions.DeleteSession(ctx, id); err != nil && ErrorCode(err) != ENotFound {
		return err
	}
	return errInvalidToken()
}

// tokenError turns a store's not-found into auth/invalid-user-token.
func tokenError(err error) error {
	switch ErrorCode(err) {
	case ENotFound, EUserNotFound, ETokenNotFound, EInvalidToken:
		return errInvalidToken()
	}
	return err
}

// Authenticate checks a bearer token: an ID token whose session still exists
// or a personal access token. Revoked, expired and unknown tokens are
// auth/invalid-user-token.
func (a *Auth) Authenticate(ctx context.Context, bearer string) (*Identity, error) {
	a.init()
	if err := a.checkKey(); err != nil {
		return nil, err
	}
	if strings.HasPrefix(bearer, AccessTokenPrefix) {
		return a.authenticateAccessToken(ctx, bearer)
	}
	now := a.Clock.Now()
	c, err := VerifyIDToken(a.SigningKey, bearer, now)
	if err != nil {
		return nil, err
	}
	s, err := a.Sessions.FindSessionByID(ctx, c.SessionID)
	if err != nil {
		return nil, tokenError(err)
	}
	if s.UserID != c.UserID || !now.Before(s.ExpiresAt) {
		return nil, errInvalidToken()
	}
	return &Identity{UserID: s.UserID, SessionID: s.ID, AuthTime: s.AuthTime}, nil
}

// RequireRecentLogin answers auth/requires-recent-login unless the identity
// is a session signed in or re-authenticated within RecentLoginWindow.
// Personal access tokens are never a recent login.
func (a *Auth) RequireRecentLogin(id *Identity) error {
	if id == nil || id.SessionID == "" || a.Clock.Now().Sub(id.AuthTime) > RecentLoginWindow {
		return Errorf(ERequiresRecentLogin, "Please sign in again to complete this action.")
	}
	return nil
}

// SignOut ends the session of the identity, or revokes the personal access
// token it used.
func (a *Auth) SignOut(ctx context.Context, id *Identity) error {
	if id.SessionID == "" {
		return a.deleteAccessToken(ctx, id.TokenID)
	}
	if err := a.Sessions.DeleteSession(ctx, id.SessionID); err != nil && ErrorCode(err) != ENotFound {
		return err
	}
	return nil
}

// Reauth checks the user's password again and makes the session a recent
// login. It returns a new ID token; the refresh token is unchanged.
func (a *Auth) Reauth(ctx context.Context, id *Identity, password string, c Client) (*Tokens, error) {
	a.init()
	if password == "" {
		return nil, ValidationError(map[string]string{"password": "Please enter your password"})
	}
	if id.SessionID == "" {
		return nil, Errorf(ERequiresRecentLogin, "Personal access tokens cannot sign in again; use the web app.")
	}
	u, err := a.Users.FindUserByID(ctx, id.UserID)
	if err != nil {
		return nil, tokenError(err)
	}
	if u.PasswordHash == "" {
		return nil, Errorf(EWrongCredentials, "This account has no password; sign in with %s.", firstProvider(u))
	}
	if _, err := a.checkPassword(ctx, u.Email, password, c.Address); err != nil {
		return nil, err
	}
	now := a.Clock.Now()
	s, err := a.Sessions.UpdateSession(ctx, id.SessionID, func(s *Session) error {
		s.AuthTime = now
		s.LastUsedAt = now
		return nil
	})
	if err != nil {
		return nil, tokenError(err)
	}
	return a.issue(u, s, now), nil
}

func firstProvider(u *User) string {
	if len(u.Providers) > 0 {
		return u.Providers[0]
	}
	return "your provider"
}

// User returns the identity's user.
func (a *Auth) User(ctx context.Context, id *Identity) (*User, error) {
	u, err := a.Users.FindUserByID(ctx, id.UserID)
	if err != nil {
		return nil, tokenError(err)
	}
	return u, nil
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
	switch {
	case required && strings.TrimSpace(name) == "":
		f["name"] = "Please enter your name"
	case utf8.RuneCountInString(name) > MaxNameLen:
		f["name"] = "The name must be at most 200 characters"
	case strings.ContainsAny(name, "\r\n"):
		f["name"] = "The name must be on one line"
	}
}

// validTimezone reports whether tz names an IANA time zone.
func validTimezone(tz string) bool {
	if tz == "" || tz == "Local" || len(tz) > maxTimezoneLen {
		return false
	}
	_, err := time.LoadLocation(tz)
	return err == nil
}

package core

// The credentials of the identity service and their stores: sessions (with
// their refresh tokens), personal access tokens and emailed action codes.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// HashSecret returns the hex SHA-256 of a secret token. Tokens carry at least
// 128 random bits, so a fast hash is enough; only the hash is stored.
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Session is one signed-in browser or client: it holds the current refresh
// token's hash and the hashes it rotated away from, so a reused refresh token
// is recognised and revokes the whole session.
type Session struct {
	ID            string
	UserID        string
	RefreshHash   string   // the current refresh token
	RotatedHashes []string // refresh tokens already exchanged (bounded)
	AuthTime      time.Time
	CreatedAt     time.Time
	LastUsedAt    time.Time
	ExpiresAt     time.Time
	UserAgent     string
	// RefreshedAt is when the current refresh token was issued by a
	// rotation; zero before the first.
	RefreshedAt time.Time
	// Network is the network of the address it signed in from
	// (SignInNetwork: a /24 or a /48, never the whole address); "" when
	// unknown. LastUsedAt is its last use, written at most every
	// SessionSeenInterval.
	Network string
}

// SessionStore persists sessions. Implementations return ENotFound.
type SessionStore interface {
	CreateSession(ctx context.Context, s *Session) error
	FindSessionByID(ctx context.Context, id string) (*Session, error)
	// FindSessionByRefreshHash finds the session whose current or rotated
	// refresh token has the hash; rotated reports which.
	FindSessionByRefreshHash(ctx context.Context, hash string) (s *Session, rotated bool, err error)
	UpdateSession(ctx context.Context, id string, fn func(s *Session) error) (*Session, error)
	DeleteSession(ctx context.Context, id string) error
	// DeleteUserSessions deletes every session of the user but except.
	DeleteUserSessions(ctx context.Context, userID, except string) error
	// DeleteExpiredSessions removes sessions that expired before now.
	DeleteExpiredSessions(ctx context.Context, now time.Time) (int, error)
	// ListUserSessions lists every session of the user, expired or not,
	// in no particular order.
	ListUserSessions(ctx context.Context, userID string) ([]*Session, error)
}

// AccessToken is a personal access token for the TUI and scripts.
type AccessToken struct {
	ID         string
	UserID     string
	Name       string
	Hash       string
	CreatedAt  time.Time
	LastUsedAt time.Time
	// Scopes are what the token may do (core/identity_scopes.go); nil for a token
	// made before tokens had scopes, which keeps every scope.
	Scopes []string
}

// AccessTokenStore persists personal access tokens. Implementations return
// ETokenNotFound.
type AccessTokenStore interface {
	CreateAccessToken(ctx context.Context, t *AccessToken) error
	FindAccessTokenByHash(ctx context.Context, hash string) (*AccessToken, error)
	ListAccessTokens(ctx context.Context, userID string) ([]*AccessToken, error)
	UpdateAccessToken(ctx context.Context, id string, fn func(t *AccessToken) error) (*AccessToken, error)
	DeleteAccessToken(ctx context.Context, id string) error
}

// Action code modes, as in the /firebase-action links.
const (
	ModeResetPassword = "resetPassword"
	ModeVerifyEmail   = "verifyEmail"
	ModeRecoverEmail  = "recoverEmail"
	// ModeConfirmReminderAddress: the second reminder address agrees to
	// get the reminders (Email: that address).
	ModeConfirmReminderAddress = "confirmReminderAddress"
)

// ActionCode is a single-use emailed code, stored by its hash.
type ActionCode struct {
	Hash      string
	Mode      string
	UserID    string
	Email     string // the address the action is about
	OldEmail  string // recoverEmail: the address to restore
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    time.Time
}

// ActionCodeStore persists action codes. Implementations return
// EInvalidActionCode for an unknown hash.
type ActionCodeStore interface {
	CreateActionCode(ctx context.Context, c *ActionCode) error
	FindActionCode(ctx context.Context, hash string) (*ActionCode, error)
	// UseActionCode marks the code used if it is unused and unexpired at now,
	// in one transaction, and returns it; else EInvalidActionCode or
	// EExpiredActionCode.
	UseActionCode(ctx context.Context, hash string, now time.Time) (*ActionCode, error)
	// DeleteExpiredActionCodes removes codes that expired before now.
	DeleteExpiredActionCodes(ctx context.Context, now time.Time) (int, error)
}

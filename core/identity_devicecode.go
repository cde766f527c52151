package core

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// The device authorization flow (the pattern of RFC 8628): a terminal that
// cannot show a passkey prompt asks for a pair of codes, shows the short
// one and a URL, and polls with the long one until its owner approves it
// in the web app, signed in there with whatever the account uses.

// The device flow's numbers (docs/identity.md, "Device sign-in").
const (
	DeviceCodeTTL = 10 * time.Minute // a pair of codes lives this long
	// DevicePollInterval is how long a poller waits between polls; one that
	// polls sooner is told to slow down, and its interval grows by
	// DeviceSlowDownStep (RFC 8628 §3.5).
	DevicePollInterval = 5 * time.Second
	DeviceSlowDownStep = 5 * time.Second
	// UserCodeLen characters of UserCodeAlphabet: 20^8, some 2.6×10^10
	// codes (34.6 bits), against at most LimitDeviceUserCodeClient wrong
	// codes per client and LimitDeviceUserCodeAccount per account.
	UserCodeLen = 8
	// UserCodeAlphabet has no vowels (no words) and nothing that looks like
	// another character (no 0/O, 1/I/L, 5/S...): RFC 8628 §6.1's example.
	UserCodeAlphabet    = "BCDFGHJKLMNPQRSTVWXZ"
	maxDeviceClientName = MaxTokenNameLen
)

// Device code states.
const (
	DeviceCodePending  = "pending"
	DeviceCodeApproved = "approved"
	DeviceCodeDenied   = "denied"
	DeviceCodeUsed     = "used" // its token was handed out: never again
)

// Error codes of the device flow: RFC 8628's names (§3.5) under device/.
const (
	EAuthorizationPending = "device/authorization_pending"
	ESlowDown             = "device/slow_down"
	EExpiredToken         = "device/expired_token"
	EAccessDenied         = "device/access_denied"
	EInvalidUserCode      = "device/invalid_user_code"
)

// DeviceCode is one request of the device flow. Neither code is stored:
// the device code (256 random bits, the poller's secret) as its SHA-256,
// the user code as a keyed hash (it is short).
type DeviceCode struct {
	ID           string
	DeviceHash   string // HashSecret(device code)
	UserCodeHash string // Auth.userCodeHash(normalised user code)
	// ClientName is what the terminal calls itself ("sendlater on
	// tower"): the access token's name. UserAgent and Network are where
	// the request came from, shown on the approval page.
	ClientName   string
	UserAgent    string
	Network      string
	CreatedAt    time.Time
	ExpiresAt    time.Time
	Interval     time.Duration // between polls; grows on slow_down
	LastPolledAt time.Time     // zero: never polled
	Status       string        // DeviceCodePending, ...
	UserID       string        // who approved or denied it; "" while pending
	// SessionID is the session that decided: the token is handed out only
	// while it lives, so a claim, a password change or ending that session
	// between the approval and the poll voids the approval.
	SessionID string
	DecidedAt time.Time
}

// DeviceCodeStore keeps the device flow's requests, so that every replica
// sees them. Implementations return EExpiredToken for an unknown code.
type DeviceCodeStore interface {
	// CreateDeviceCode stores c; a hash already taken is EConflict.
	CreateDeviceCode(ctx context.Context, c *DeviceCode) error
	FindDeviceCodeByDevice(ctx context.Context, deviceHash string) (*DeviceCode, error)
	FindDeviceCodeByUser(ctx context.Context, userCodeHash string) (*DeviceCode, error)
	// UpdateDeviceCode applies fn to the code id in one transaction and
	// stores it, unless fn fails.
	UpdateDeviceCode(ctx context.Context, id string, fn func(c *DeviceCode) error) (*DeviceCode, error)
	DeleteDeviceCode(ctx context.Context, id string) error
	// DeleteExpiredDeviceCodes removes codes that expired before now.
	DeleteExpiredDeviceCodes(ctx context.Context, now time.Time) (int, error)
}

// ErrDeviceCodeUnknown is a device code the store does not hold: never
// made, used, or swept after it expired.
func ErrDeviceCodeUnknown() error {
	return Errorf(EExpiredToken, "This sign-in code has expired or was used. Start again.")
}

// Validate checks what a store needs of c.
func (c *DeviceCode) Validate() error {
	switch {
	case c.DeviceHash == "" || c.UserCodeHash == "":
		return Errorf(EInvalid, "A device code needs both hashes.")
	case c.Status != DeviceCodePending && c.Status != DeviceCodeApproved && c.Status != DeviceCodeDenied && c.Status != DeviceCodeUsed:
		return Errorf(EInvalid, "A device code's status %q is unknown.", c.Status)
	}
	return ValidID("device code", c.ID)
}

// NewUserCode returns a fresh user code, UserCodeLen characters of
// UserCodeAlphabet, without the dash it is shown with.
func NewUserCode() string {
	var b strings.Builder
	// 256 is not a multiple of 20: bytes at or beyond 240 are drawn again.
	buf := make([]byte, 2*UserCodeLen)
	for b.Len() < UserCodeLen {
		rand.Read(buf)
		for _, x := range buf {
			if x < 240 && b.Len() < UserCodeLen {
				b.WriteByte(UserCodeAlphabet[int(x)%len(UserCodeAlphabet)])
			}
		}
	}
	return b.String()
}

// FormatUserCode shows a user code as people type it: XXXX-XXXX.
func FormatUserCode(code string) string {
	if len(code) != UserCodeLen {
		return code
	}
	return code[:UserCodeLen/2] + "-" + code[UserCodeLen/2:]
}

// NormalizeUserCode is a typed user code as stored: upper case, without
// dashes and spaces; ok is false when it cannot be one.
func NormalizeUserCode(typed string) (code string, ok bool) {
	var b strings.Builder
	for _, r := range strings.ToUpper(typed) {
		switch {
		case r == '-' || r == ' ' || r == '\t':
		case strings.ContainsRune(UserCodeAlphabet, r):
			b.WriteRune(r)
		default:
			return "", false
		}
	}
	return b.String(), b.Len() == UserCodeLen
}

// userCodeHash is the stored hash of a normalised user code, keyed so that
// a copy of the store does not give the short codes away.
func (a *Auth) userCodeHash(code string) string {
	mac := hmac.New(sha256.New, DeriveKey(a.SigningKey, PurposeDeviceCodes))
	mac.Write([]byte(code))
	return hex.EncodeToString(mac.Sum(nil))
}

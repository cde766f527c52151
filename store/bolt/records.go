package bolt

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/sendlater/sendlater/core"
)

// Records are the stored form of the core types: JSON of private structs
// (messages: the binary codec of codec.go), so a change to a core struct
// never silently changes the file format. Each carries its record version; a
// reader refuses a version it does not know.
// Times are unix nanoseconds, 0 for the zero time, read back in UTC.

const recordVersion = 1

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func encode(rec any) ([]byte, error) { return json.Marshal(rec) }

// header starts every record.
type header struct {
	V int `json:"v"`
}

func (h header) version() int { return h.V }

var current = header{V: recordVersion}

// decode reads a record and checks its version.
func decode(kind string, b []byte, rec interface{ version() int }) error {
	if err := json.Unmarshal(b, rec); err != nil {
		return fmt.Errorf("decode %s record: %w", kind, err)
	}
	if v := rec.version(); v < 1 || v > recordVersion {
		return fmt.Errorf("decode %s record: version %d unknown to this binary", kind, v)
	}
	return nil
}

// validID refuses ids an index cannot hold: empty, or longer than 255 bytes.
func validID(kind, id string) error {
	if id == "" || len(id) > 255 {
		return core.Errorf(core.EInvalid, "The %s id must be 1 to 255 bytes.", kind)
	}
	return nil
}

type userRecord struct {
	header
	ID                       string   `json:"id"`
	Email                    string   `json:"email"`
	Name                     string   `json:"name,omitempty"`
	Picture                  string   `json:"picture,omitempty"`
	Timezone                 string   `json:"timezone,omitempty"`
	PasswordHash             string   `json:"passwordHash,omitempty"`
	Providers                []string `json:"providers,omitempty"`
	EmailVerified            bool     `json:"emailVerified,omitempty"`
	StripeCustomerID         string   `json:"stripeCustomerId,omitempty"`
	StripePriceID            string   `json:"stripePriceId,omitempty"`
	StripeSubscriptionStatus string   `json:"stripeSubscriptionStatus,omitempty"`
	CreatedAt                int64    `json:"createdAt,omitempty"`
	UpdatedAt                int64    `json:"updatedAt,omitempty"`
}

func encodeUser(u *core.User) ([]byte, error) {
	return encode(userRecord{
		header: current, ID: u.ID, Email: u.Email, Name: u.Name, Picture: u.Picture,
		Timezone: u.Timezone, PasswordHash: u.PasswordHash, Providers: u.Providers,
		EmailVerified: u.EmailVerified, StripeCustomerID: u.StripeCustomerID,
		StripePriceID: u.StripePriceID, StripeSubscriptionStatus: u.StripeSubscriptionStatus,
		CreatedAt: unixNano(u.CreatedAt), UpdatedAt: unixNano(u.UpdatedAt),
	})
}

func decodeUser(b []byte) (*core.User, error) {
	var r userRecord
	if err := decode("user", b, &r); err != nil {
		return nil, err
	}
	return &core.User{
		ID: r.ID, Email: r.Email, Name: r.Name, Picture: r.Picture, Timezone: r.Timezone,
		PasswordHash: r.PasswordHash, Providers: r.Providers, EmailVerified: r.EmailVerified,
		StripeCustomerID: r.StripeCustomerID, StripePriceID: r.StripePriceID,
		StripeSubscriptionStatus: r.StripeSubscriptionStatus,
		CreatedAt:                fromUnixNano(r.CreatedAt), UpdatedAt: fromUnixNano(r.UpdatedAt),
	}, nil
}

type sessionRecord struct {
	header
	ID            string   `json:"id"`
	UserID        string   `json:"userId"`
	RefreshHash   string   `json:"refreshHash"`
	RotatedHashes []string `json:"rotatedHashes,omitempty"`
	AuthTime      int64    `json:"authTime,omitempty"`
	CreatedAt     int64    `json:"createdAt,omitempty"`
	LastUsedAt    int64    `json:"lastUsedAt,omitempty"`
	ExpiresAt     int64    `json:"expiresAt,omitempty"`
	UserAgent     string   `json:"userAgent,omitempty"`
	RefreshedAt   int64    `json:"refreshedAt,omitempty"`
}

func encodeSession(x *core.Session) ([]byte, error) {
	return encode(sessionRecord{
		header: current, ID: x.ID, UserID: x.UserID, RefreshHash: x.RefreshHash,
		RotatedHashes: x.RotatedHashes, AuthTime: unixNano(x.AuthTime),
		CreatedAt: unixNano(x.CreatedAt), LastUsedAt: unixNano(x.LastUsedAt),
		ExpiresAt: unixNano(x.ExpiresAt), UserAgent: x.UserAgent, RefreshedAt: unixNano(x.RefreshedAt),
	})
}

func decodeSession(b []byte) (*core.Session, error) {
	var r sessionRecord
	if err := decode("session", b, &r); err != nil {
		return nil, err
	}
	return &core.Session{
		ID: r.ID, UserID: r.UserID, RefreshHash: r.RefreshHash, RotatedHashes: r.RotatedHashes,
		AuthTime: fromUnixNano(r.AuthTime), CreatedAt: fromUnixNano(r.CreatedAt),
		LastUsedAt: fromUnixNano(r.LastUsedAt), ExpiresAt: fromUnixNano(r.ExpiresAt),
		UserAgent: r.UserAgent, RefreshedAt: fromUnixNano(r.RefreshedAt),
	}, nil
}

type tokenRecord struct {
	header
	ID         string `json:"id"`
	UserID     string `json:"userId"`
	Name       string `json:"name"`
	Hash       string `json:"hash"`
	CreatedAt  int64  `json:"createdAt,omitempty"`
	LastUsedAt int64  `json:"lastUsedAt,omitempty"`
}

func encodeToken(t *core.AccessToken) ([]byte, error) {
	return encode(tokenRecord{
		header: current, ID: t.ID, UserID: t.UserID, Name: t.Name, Hash: t.Hash,
		CreatedAt: unixNano(t.CreatedAt), LastUsedAt: unixNano(t.LastUsedAt),
	})
}

func decodeToken(b []byte) (*core.AccessToken, error) {
	var r tokenRecord
	if err := decode("access token", b, &r); err != nil {
		return nil, err
	}
	return &core.AccessToken{
		ID: r.ID, UserID: r.UserID, Name: r.Name, Hash: r.Hash,
		CreatedAt: fromUnixNano(r.CreatedAt), LastUsedAt: fromUnixNano(r.LastUsedAt),
	}, nil
}

type actionCodeRecord struct {
	header
	Hash      string `json:"hash"`
	Mode      string `json:"mode"`
	UserID    string `json:"userId"`
	Email     string `json:"email,omitempty"`
	OldEmail  string `json:"oldEmail,omitempty"`
	CreatedAt int64  `json:"createdAt,omitempty"`
	ExpiresAt int64  `json:"expiresAt,omitempty"`
	UsedAt    int64  `json:"usedAt,omitempty"`
}

func encodeActionCode(c *core.ActionCode) ([]byte, error) {
	return encode(actionCodeRecord{
		header: current, Hash: c.Hash, Mode: c.Mode, UserID: c.UserID, Email: c.Email,
		OldEmail: c.OldEmail, CreatedAt: unixNano(c.CreatedAt),
		ExpiresAt: unixNano(c.ExpiresAt), UsedAt: unixNano(c.UsedAt),
	})
}

func decodeActionCode(b []byte) (*core.ActionCode, error) {
	var r actionCodeRecord
	if err := decode("action code", b, &r); err != nil {
		return nil, err
	}
	return &core.ActionCode{
		Hash: r.Hash, Mode: r.Mode, UserID: r.UserID, Email: r.Email, OldEmail: r.OldEmail,
		CreatedAt: fromUnixNano(r.CreatedAt), ExpiresAt: fromUnixNano(r.ExpiresAt),
		UsedAt: fromUnixNano(r.UsedAt),
	}, nil
}

type contactRecord struct {
	header
	ID        string `json:"id"`
	Name      string `json:"name"`
	Email     string `json:"email"`
	Message   string `json:"message"`
	CreatedAt int64  `json:"createdAt,omitempty"`
}

func encodeContact(c *core.ContactSubmission) ([]byte, error) {
	return encode(contactRecord{
		header: current, ID: c.ID, Name: c.Name, Email: c.Email, Message: c.Message,
		CreatedAt: unixNano(c.CreatedAt),
	})
}

func decodeContact(b []byte) (*core.ContactSubmission, error) {
	var r contactRecord
	if err := decode("contact", b, &r); err != nil {
		return nil, err
	}
	return &core.ContactSubmission{
		ID: r.ID, Name: r.Name, Email: r.Email, Message: r.Message, CreatedAt: fromUnixNano(r.CreatedAt),
	}, nil
}

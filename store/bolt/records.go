package bolt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
	"go.etcd.io/bbolt"
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

// userRecord holds the name sealed (store/seal); records written before
// schema version 7 held it in clear, in Name, until that version's
// migration sealed them.
type userRecord struct {
	header
	ID                       string   `json:"id"`
	Email                    string   `json:"email"`
	Name                     string   `json:"name,omitempty"`
	SealedName               []byte   `json:"sealedName,omitempty"`
	Picture                  string   `json:"picture,omitempty"`
	Timezone                 string   `json:"timezone,omitempty"`
	PasswordHash             string   `json:"passwordHash,omitempty"`
	Providers                []string `json:"providers,omitempty"`
	EmailVerified            bool     `json:"emailVerified,omitempty"`
	StripeCustomerID         string   `json:"stripeCustomerId,omitempty"`
	StripePriceID            string   `json:"stripePriceId,omitempty"`
	StripeSubscriptionStatus string   `json:"stripeSubscriptionStatus,omitempty"`
	DisabledAt               int64    `json:"disabledAt,omitempty"`
	HeldMessages             []string `json:"heldMessages,omitempty"`
	CreatedAt                int64    `json:"createdAt,omitempty"`
	UpdatedAt                int64    `json:"updatedAt,omitempty"`
	HoldSince                int64    `json:"holdSince,omitempty"`
	HoldUntil                int64    `json:"holdUntil,omitempty"`
	ReminderLadder           uint8    `json:"reminderLadder,omitempty"`
	SealedReminderAddress    []byte   `json:"sealedReminderAddress,omitempty"`
	// When the second address was asked to confirm, and confirmed;
	// absent: never (a record written before confirmation existed).
	ReminderAddressAskedAt     int64 `json:"reminderAddressAskedAt,omitempty"`
	ReminderAddressConfirmedAt int64 `json:"reminderAddressConfirmedAt,omitempty"`
	// The second factor: the sealed TOTP secret, when it was turned on
	// (absent: pending or none), the last time step used, and the hashes
	// of the unused recovery codes.
	SealedTOTPSecret []byte   `json:"sealedTotpSecret,omitempty"`
	TOTPEnabledAt    int64    `json:"totpEnabledAt,omitempty"`
	TOTPLastStep     int64    `json:"totpLastStep,omitempty"`
	RecoveryCodes    []string `json:"recoveryCodes,omitempty"`
}

// userRecordOf is the stored form of a sealed user.
func userRecordOf(su *seal.User) userRecord {
	u := &su.Plain
	return userRecord{
		header: current, ID: u.ID, Email: u.Email, SealedName: su.Name, Picture: u.Picture,
		Timezone: u.Timezone, PasswordHash: u.PasswordHash, Providers: u.Providers,
		EmailVerified: u.EmailVerified, StripeCustomerID: u.StripeCustomerID,
		StripePriceID: u.StripePriceID, StripeSubscriptionStatus: u.StripeSubscriptionStatus,
		DisabledAt: unixNano(u.DisabledAt), HeldMessages: u.HeldMessages,
		CreatedAt: unixNano(u.CreatedAt), UpdatedAt: unixNano(u.UpdatedAt),
		HoldSince: unixNano(u.HoldSince), HoldUntil: unixNano(u.HoldUntil),
		ReminderLadder: uint8(u.ReminderLadder), SealedReminderAddress: su.ReminderAddress,
		ReminderAddressAskedAt:     unixNano(u.ReminderAddressAskedAt),
		ReminderAddressConfirmedAt: unixNano(u.ReminderAddressConfirmedAt),
		SealedTOTPSecret:           su.TOTPSecret, TOTPEnabledAt: unixNano(u.TOTPEnabledAt),
		TOTPLastStep: u.TOTPLastStep, RecoveryCodes: u.RecoveryCodes,
	}
}

// sealedUser is the sealed user r holds (of a record of version 7 on).
func (r *userRecord) sealedUser() seal.User {
	return seal.User{
		Plain: core.User{
			ID: r.ID, Email: r.Email, Picture: r.Picture, Timezone: r.Timezone,
			PasswordHash: r.PasswordHash, Providers: r.Providers, EmailVerified: r.EmailVerified,
			StripeCustomerID: r.StripeCustomerID, StripePriceID: r.StripePriceID,
			StripeSubscriptionStatus: r.StripeSubscriptionStatus,
			DisabledAt:               fromUnixNano(r.DisabledAt), HeldMessages: r.HeldMessages,
			CreatedAt: fromUnixNano(r.CreatedAt), UpdatedAt: fromUnixNano(r.UpdatedAt),
			HoldSince: fromUnixNano(r.HoldSince), HoldUntil: fromUnixNano(r.HoldUntil),
			ReminderLadder:             core.Ladder(r.ReminderLadder),
			ReminderAddressAskedAt:     fromUnixNano(r.ReminderAddressAskedAt),
			ReminderAddressConfirmedAt: fromUnixNano(r.ReminderAddressConfirmedAt),
			TOTPEnabledAt:              fromUnixNano(r.TOTPEnabledAt), TOTPLastStep: r.TOTPLastStep,
			RecoveryCodes: r.RecoveryCodes,
		},
		Name: r.SealedName, ReminderAddress: r.SealedReminderAddress, TOTPSecret: r.SealedTOTPSecret,
	}
}

func decodeUserRecord(b []byte) (*userRecord, error) {
	var r userRecord
	if err := decode("user", b, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func (s *DB) encodeUser(u *core.User) ([]byte, error) {
	su := s.seal.SealUser(u)
	return encode(userRecordOf(&su))
}

// decodeUser reads and opens a user; a record from before version 7
// (migration 7 reads them) has its name in clear.
func (s *DB) decodeUser(b []byte) (*core.User, error) {
	r, err := decodeUserRecord(b)
	if err != nil {
		return nil, err
	}
	su := r.sealedUser()
	if r.SealedName == nil {
		u := su.Plain
		u.Name = r.Name
		return &u, nil
	}
	return s.seal.OpenUser(&su)
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
	Network       string   `json:"network,omitempty"`
}

func encodeSession(x *core.Session) ([]byte, error) {
	return encode(sessionRecord{
		header: current, ID: x.ID, UserID: x.UserID, RefreshHash: x.RefreshHash,
		RotatedHashes: x.RotatedHashes, AuthTime: unixNano(x.AuthTime),
		CreatedAt: unixNano(x.CreatedAt), LastUsedAt: unixNano(x.LastUsedAt),
		ExpiresAt: unixNano(x.ExpiresAt), UserAgent: x.UserAgent, RefreshedAt: unixNano(x.RefreshedAt),
		Network: x.Network,
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
		UserAgent: r.UserAgent, RefreshedAt: fromUnixNano(r.RefreshedAt), Network: r.Network,
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
	// Scopes is absent in a token made before tokens had scopes, which
	// reads back as nil: every scope (core.AccessToken).
	Scopes []string `json:"scopes,omitempty"`
}

func encodeToken(t *core.AccessToken) ([]byte, error) {
	return encode(tokenRecord{
		header: current, ID: t.ID, UserID: t.UserID, Name: t.Name, Hash: t.Hash,
		CreatedAt: unixNano(t.CreatedAt), LastUsedAt: unixNano(t.LastUsedAt), Scopes: t.Scopes,
	})
}

func decodeToken(b []byte) (*core.AccessToken, error) {
	var r tokenRecord
	if err := decode("access token", b, &r); err != nil {
		return nil, err
	}
	return &core.AccessToken{
		ID: r.ID, UserID: r.UserID, Name: r.Name, Hash: r.Hash,
		CreatedAt: fromUnixNano(r.CreatedAt), LastUsedAt: fromUnixNano(r.LastUsedAt), Scopes: r.Scopes,
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

// contactRecord holds the submission sealed (store/seal); records written
// before schema version 7 held it in clear until that version's migration
// sealed them.
type contactRecord struct {
	header
	ID            string `json:"id"`
	Name          string `json:"name,omitempty"`
	Email         string `json:"email,omitempty"`
	Message       string `json:"message,omitempty"`
	SealedName    []byte `json:"sealedName,omitempty"`
	SealedEmail   []byte `json:"sealedEmail,omitempty"`
	SealedMessage []byte `json:"sealedMessage,omitempty"`
	CreatedAt     int64  `json:"createdAt,omitempty"`
}

func contactRecordOf(sc *seal.Contact) contactRecord {
	return contactRecord{
		header: current, ID: sc.Plain.ID, SealedName: sc.Name, SealedEmail: sc.Email, SealedMessage: sc.Message,
		CreatedAt: unixNano(sc.Plain.CreatedAt),
	}
}

func (r *contactRecord) sealedContact() seal.Contact {
	return seal.Contact{
		Plain: core.ContactSubmission{ID: r.ID, CreatedAt: fromUnixNano(r.CreatedAt)},
		Name:  r.SealedName, Email: r.SealedEmail, Message: r.SealedMessage,
	}
}

func decodeContactRecord(b []byte) (*contactRecord, error) {
	var r contactRecord
	if err := decode("contact", b, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func (s *DB) encodeContact(c *core.ContactSubmission) ([]byte, error) {
	sc := s.seal.SealContact(c)
	return encode(contactRecordOf(&sc))
}

// decodeContact reads and opens a submission; one from before version 7
// (migration 7 reads them) is in clear.
func (s *DB) decodeContact(b []byte) (*core.ContactSubmission, error) {
	r, err := decodeContactRecord(b)
	if err != nil {
		return nil, err
	}
	sc := r.sealedContact()
	if r.SealedMessage == nil {
		c := sc.Plain
		c.Name, c.Email, c.Message = r.Name, r.Email, r.Message
		return &c, nil
	}
	return s.seal.OpenContact(&sc)
}

// sealPersonalData is version 7: account names and contact submissions,
// until then in clear, are sealed like message contents.
func (s *DB) sealPersonalData(tx *bbolt.Tx) error {
	for _, kind := range []struct {
		bucket []byte
		reseal func(v []byte) ([]byte, error)
	}{
		{bucketUsers, func(v []byte) ([]byte, error) {
			u, err := s.decodeUser(v)
			if err != nil {
				return nil, err
			}
			return s.encodeUser(u)
		}},
		{bucketContacts, func(v []byte) ([]byte, error) {
			c, err := s.decodeContact(v)
			if err != nil {
				return nil, err
			}
			return s.encodeContact(c)
		}},
	} {
		b := tx.Bucket(kind.bucket)
		var keys [][]byte
		b.ForEach(func(k, _ []byte) error { keys = append(keys, bytes.Clone(k)); return nil })
		for _, k := range keys {
			v, err := kind.reseal(b.Get(k))
			if err != nil {
				return err
			}
			if err := b.Put(k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

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

// messageRecord holds Title, Name, Recipient, Body and LastError (which may
// quote the recipient's address) sealed with AES-256-GCM; see sealField. It
// is stored with the binary codec of codec.go, not JSON: see there.
type messageRecord struct {
	ID                           []byte // compared with the key, never copied
	Owner                        string
	Title, Name, Recipient, Body []byte
	Interval                     string
	SendDate                     int64
	IsActive                     bool
	PostponeCode                 string
	Featured                     bool
	WebhookURL                   string
	CreatedAt, UpdatedAt         int64
	Status                       string
	RemindersSent                int64
	ReminderSentAt, DeliveredAt  int64
	Attempts                     int64
	LastError                    []byte
	NextAttemptAt, LeaseUntil    int64
	EmailMessageID               string
	DueAt, RemindAt              int64
}

// The values of the message fields that intern reads.
var (
	intervals = []string{string(core.Interval1M), string(core.Interval6M), string(core.Interval12M)}
	statuses  = []string{
		string(core.StatusScheduled), string(core.StatusReminded), string(core.StatusSending),
		string(core.StatusDelivered), string(core.StatusFailed), string(core.StatusPaused),
	}
)

func (r *recordReader) bool() bool {
	if r.err != nil {
		return false
	}
	if len(r.b) == 0 {
		r.err = errTruncated
		return false
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v != 0
}

// messageRecordVersion is the first byte of a stored message.
const messageRecordVersion = 1

func (r *messageRecord) marshal() []byte {
	w := recordWriter{b: make([]byte, 0, 256+len(r.Title)+len(r.Name)+len(r.Recipient)+len(r.Body)+len(r.LastError))}
	w.b = append(w.b, messageRecordVersion)
	w.bytes(r.ID)
	w.str(r.Owner)
	w.bytes(r.Title)
	w.bytes(r.Name)
	w.bytes(r.Recipient)
	w.bytes(r.Body)
	w.str(r.Interval)
	w.int(r.SendDate)
	w.bool(r.IsActive)
	w.str(r.PostponeCode)
	w.bool(r.Featured)
	w.str(r.WebhookURL)
	w.int(r.CreatedAt)
	w.int(r.UpdatedAt)
	w.str(r.Status)
	w.int(r.RemindersSent)
	w.int(r.ReminderSentAt)
	w.int(r.DeliveredAt)
	w.int(r.Attempts)
	w.bytes(r.LastError)
	w.int(r.NextAttemptAt)
	w.int(r.LeaseUntil)
	w.str(r.EmailMessageID)
	w.int(r.DueAt)
	w.int(r.RemindAt)
	return w.b
}

// unmarshal reads a stored message. Its byte fields point into b.
func (r *messageRecord) unmarshal(b []byte) error {
	if len(b) == 0 || b[0] != messageRecordVersion {
		return fmt.Errorf("decode message record: version unknown to this binary")
	}
	rd := recordReader{b: b[1:]}
	*r = messageRecord{
		ID: rd.bytes(), Owner: rd.str(),
		Title: rd.bytes(), Name: rd.bytes(), Recipient: rd.bytes(), Body: rd.bytes(),
		Interval: rd.intern(intervals), SendDate: rd.int(), IsActive: rd.bool(), PostponeCode: rd.str(),
		Featured: rd.bool(), WebhookURL: rd.str(), CreatedAt: rd.int(), UpdatedAt: rd.int(),
		Status: rd.intern(statuses), RemindersSent: rd.int(), ReminderSentAt: rd.int(), DeliveredAt: rd.int(),
		Attempts: rd.int(), LastError: rd.bytes(), NextAttemptAt: rd.int(), LeaseUntil: rd.int(),
		EmailMessageID: rd.str(), DueAt: rd.int(), RemindAt: rd.int(),
	}
	if rd.err == nil && len(rd.b) != 0 {
		rd.err = fmt.Errorf("%d bytes left over", len(rd.b))
	}
	if rd.err != nil {
		return fmt.Errorf("decode message record: %w", rd.err)
	}
	return nil
}

func (s *DB) encodeMessage(m *core.Message) []byte {
	r := messageRecord{
		ID: []byte(m.ID), Owner: m.Owner,
		Title:     s.sealField(m.ID, fieldTitle, m.Title),
		Name:      s.sealField(m.ID, fieldName, m.Name),
		Recipient: s.sealField(m.ID, fieldRecipient, m.Recipient),
		Body:      s.sealField(m.ID, fieldBody, m.Body),
		Interval:  string(m.Interval), SendDate: unixNano(m.SendDate), IsActive: m.IsActive,
		PostponeCode: m.PostponeCode, Featured: m.Featured, WebhookURL: m.WebhookURL,
		CreatedAt: unixNano(m.CreatedAt), UpdatedAt: unixNano(m.UpdatedAt),
		Status: string(m.Status), RemindersSent: int64(m.RemindersSent),
		ReminderSentAt: unixNano(m.ReminderSentAt), DeliveredAt: unixNano(m.DeliveredAt),
		Attempts: int64(m.Attempts), NextAttemptAt: unixNano(m.NextAttemptAt),
		LeaseUntil: unixNano(m.LeaseUntil), EmailMessageID: m.EmailMessageID,
		DueAt: unixNano(m.DueAt), RemindAt: unixNano(m.RemindAt),
	}
	if m.LastError != "" {
		r.LastError = s.sealField(m.ID, fieldLastError, m.LastError)
	}
	return r.marshal()
}

// decodeMessage reads and decrypts the message stored under id; a record
// under another id's key is refused.
func (s *DB) decodeMessage(id string, b []byte) (*core.Message, error) {
	var r messageRecord
	if err := r.unmarshal(b); err != nil {
		return nil, err
	}
	if string(r.ID) != id {
		return nil, fmt.Errorf("message %s: the record holds message %s", id, r.ID)
	}
	m := &core.Message{
		ID: id, Owner: r.Owner,
		Interval: core.Interval(r.Interval), SendDate: fromUnixNano(r.SendDate), IsActive: r.IsActive,
		PostponeCode: r.PostponeCode, Featured: r.Featured, WebhookURL: r.WebhookURL,
		CreatedAt: fromUnixNano(r.CreatedAt), UpdatedAt: fromUnixNano(r.UpdatedAt),
		Status: core.MessageStatus(r.Status), RemindersSent: int(r.RemindersSent),
		ReminderSentAt: fromUnixNano(r.ReminderSentAt), DeliveredAt: fromUnixNano(r.DeliveredAt),
		Attempts: int(r.Attempts), NextAttemptAt: fromUnixNano(r.NextAttemptAt),
		LeaseUntil: fromUnixNano(r.LeaseUntil), EmailMessageID: r.EmailMessageID,
		DueAt: fromUnixNano(r.DueAt), RemindAt: fromUnixNano(r.RemindAt),
	}
	// Every sealed field opens into one buffer that becomes one string; the
	// fields are substrings of it: one allocation for a message's contents.
	fields := [...]struct {
		name   string
		sealed []byte
		dst    *string
	}{
		{fieldTitle, r.Title, &m.Title},
		{fieldName, r.Name, &m.Name},
		{fieldRecipient, r.Recipient, &m.Recipient},
		{fieldBody, r.Body, &m.Body},
		{fieldLastError, r.LastError, &m.LastError},
	}
	buf := openBuffers.Get().(*openBuffer)
	defer buf.release()
	var ends [len(fields)]int
	for i, f := range fields {
		if f.sealed != nil {
			if err := s.openInto(buf, id, f.name, f.sealed); err != nil {
				return nil, err
			}
		}
		ends[i] = len(buf.pt)
	}
	contents, start := string(buf.pt), 0
	for i, f := range fields {
		*f.dst, start = contents[start:ends[i]], ends[i]
	}
	return m, nil
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
}

func encodeSession(x *core.Session) ([]byte, error) {
	return encode(sessionRecord{
		header: current, ID: x.ID, UserID: x.UserID, RefreshHash: x.RefreshHash,
		RotatedHashes: x.RotatedHashes, AuthTime: unixNano(x.AuthTime),
		CreatedAt: unixNano(x.CreatedAt), LastUsedAt: unixNano(x.LastUsedAt),
		ExpiresAt: unixNano(x.ExpiresAt), UserAgent: x.UserAgent,
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
		UserAgent: r.UserAgent,
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

package bolt

import (
	"fmt"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
)

// messageRecord holds Title, Name, Recipient, Body and LastError (which may
// quote the recipient's address) sealed with AES-256-GCM; see store/seal. It
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
	IdempotencyKey               string // from version 2
	Recipients                   []byte // from version 3, sealed; nil: none
}

// The values of the message fields that intern reads.
var (
	intervals = []string{string(core.Interval1M), string(core.Interval6M), string(core.Interval12M)}
	statuses  = []string{
		string(core.StatusScheduled), string(core.StatusReminded), string(core.StatusSending),
		string(core.StatusDelivered), string(core.StatusFailed), string(core.StatusPaused),
	}
)

// messageRecordVersion is the first byte of a stored message. Version 2
// added IdempotencyKey at the end, version 3 Recipients; older records are
// read as they are.
const messageRecordVersion = 3

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
	w.str(r.IdempotencyKey)
	w.bytes(r.Recipients)
	return w.b
}

// unmarshal reads a stored message. Its byte fields point into b.
func (r *messageRecord) unmarshal(b []byte) error {
	if len(b) == 0 || b[0] < 1 || b[0] > messageRecordVersion {
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
	if b[0] >= 2 {
		r.IdempotencyKey = rd.str()
	}
	if b[0] >= 3 {
		if r.Recipients = rd.bytes(); len(r.Recipients) == 0 {
			r.Recipients = nil
		}
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
	sm := s.seal.SealMessage(m)
	r := recordOf(&sm)
	return r.marshal()
}

// recordOf is the stored form of a sealed message.
func recordOf(sm *seal.Message) messageRecord {
	m := &sm.Plain
	return messageRecord{
		ID: []byte(m.ID), Owner: m.Owner,
		Title: sm.Title, Name: sm.Name, Recipient: sm.Recipient, Body: sm.Body,
		Interval: string(m.Interval), SendDate: unixNano(m.SendDate), IsActive: m.IsActive,
		PostponeCode: m.PostponeCode, Featured: m.Featured, WebhookURL: m.WebhookURL,
		CreatedAt: unixNano(m.CreatedAt), UpdatedAt: unixNano(m.UpdatedAt),
		Status: string(m.Status), RemindersSent: int64(m.RemindersSent),
		ReminderSentAt: unixNano(m.ReminderSentAt), DeliveredAt: unixNano(m.DeliveredAt),
		Attempts: int64(m.Attempts), LastError: sm.LastError, NextAttemptAt: unixNano(m.NextAttemptAt),
		LeaseUntil: unixNano(m.LeaseUntil), EmailMessageID: m.EmailMessageID,
		DueAt: unixNano(m.DueAt), RemindAt: unixNano(m.RemindAt), IdempotencyKey: m.IdempotencyKey,
		Recipients: sm.Recipients,
	}
}

// sealedMessage is the sealed message r holds, with id (r's, which the
// caller has checked) as its id. Its sealed fields point into r.
func (r *messageRecord) sealedMessage(id string) seal.Message {
	return seal.Message{
		Plain: core.Message{
			ID: id, Owner: r.Owner,
			Interval: core.Interval(r.Interval), SendDate: fromUnixNano(r.SendDate), IsActive: r.IsActive,
			PostponeCode: r.PostponeCode, Featured: r.Featured, WebhookURL: r.WebhookURL,
			CreatedAt: fromUnixNano(r.CreatedAt), UpdatedAt: fromUnixNano(r.UpdatedAt),
			Status: core.MessageStatus(r.Status), RemindersSent: int(r.RemindersSent),
			ReminderSentAt: fromUnixNano(r.ReminderSentAt), DeliveredAt: fromUnixNano(r.DeliveredAt),
			Attempts: int(r.Attempts), NextAttemptAt: fromUnixNano(r.NextAttemptAt),
			LeaseUntil: fromUnixNano(r.LeaseUntil), EmailMessageID: r.EmailMessageID,
			DueAt: fromUnixNano(r.DueAt), RemindAt: fromUnixNano(r.RemindAt), IdempotencyKey: r.IdempotencyKey,
		},
		Title: r.Title, Name: r.Name, Recipient: r.Recipient, Body: r.Body, LastError: r.LastError,
		Recipients: r.Recipients,
	}
}

// decodeMessage reads and decrypts the message stored under id; a record
// under another id's key is refused.
func (s *DB) decodeMessage(id string, b []byte) (*core.Message, error) {
	return s.cachedMessage(id, b, func() (*core.Message, error) { return s.openMessage(id, b) })
}

// openMessage is decodeMessage without the cache of opened records.
func (s *DB) openMessage(id string, b []byte) (*core.Message, error) {
	var r messageRecord
	if err := r.unmarshal(b); err != nil {
		return nil, err
	}
	if string(r.ID) != id {
		return nil, fmt.Errorf("message %s: the record holds message %s", id, r.ID)
	}
	sm := r.sealedMessage(id)
	return s.seal.OpenMessage(&sm)
}

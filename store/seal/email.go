package seal

import (
	"encoding/json"
	"time"

	"github.com/sendlater/sendlater/core"
)

// An outbox email is sealed as the JSON of emailRecord: a form of its own,
// so that a change to core.Email never silently changes what stores hold.

type addressRecord struct {
	Name    string `json:"name,omitempty"`
	Address string `json:"address"`
}

type emailRecord struct {
	V         int               `json:"v"`
	From      addressRecord     `json:"from"`
	To        []addressRecord   `json:"to"`
	ReplyTo   *addressRecord    `json:"replyTo,omitempty"`
	Subject   string            `json:"subject"`
	Text      string            `json:"text"`
	HTML      string            `json:"html,omitempty"`
	Date      int64             `json:"date,omitempty"`
	MessageID string            `json:"messageId,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
	// ReturnPath: the envelope sender (issue 31's VERP); absent in
	// emails sealed before it.
	ReturnPath string `json:"returnPath,omitempty"`
}

func addressOf(a core.Address) addressRecord { return addressRecord{Name: a.Name, Address: a.Address} }
func (a addressRecord) core() core.Address   { return core.Address{Name: a.Name, Address: a.Address} }

func marshalEmail(e *core.Email) []byte {
	r := emailRecord{V: 1, From: addressOf(e.From), Subject: e.Subject, Text: e.Text, HTML: e.HTML,
		MessageID: e.MessageID, Headers: e.Headers, ReturnPath: e.ReturnPath}
	for _, to := range e.To {
		r.To = append(r.To, addressOf(to))
	}
	if e.ReplyTo != nil {
		rt := addressOf(*e.ReplyTo)
		r.ReplyTo = &rt
	}
	if !e.Date.IsZero() {
		r.Date = e.Date.UnixNano()
	}
	b, _ := json.Marshal(r) // strings and maps of strings always marshal
	return b
}

func unmarshalEmail(b []byte) (*core.Email, error) {
	var r emailRecord
	if err := json.Unmarshal(b, &r); err != nil || r.V != 1 {
		return nil, core.Errorf(core.EInternal, "an outbox email of an unknown form")
	}
	e := &core.Email{From: r.From.core(), Subject: r.Subject, Text: r.Text, HTML: r.HTML,
		MessageID: r.MessageID, Headers: r.Headers, ReturnPath: r.ReturnPath}
	for _, to := range r.To {
		e.To = append(e.To, to.core())
	}
	if r.ReplyTo != nil {
		rt := r.ReplyTo.core()
		e.ReplyTo = &rt
	}
	if r.Date != 0 {
		e.Date = time.Unix(0, r.Date).UTC()
	}
	return e, nil
}

// A message's recipients are sealed as the JSON of recipientRecords, for
// the same reason.

type recipientRecord struct {
	Name           string `json:"name"`
	Address        string `json:"address"`
	Status         string `json:"status,omitempty"`
	EmailMessageID string `json:"messageId,omitempty"`
	Attempts       int    `json:"attempts,omitempty"`
	NextAttemptAt  int64  `json:"nextAttemptAt,omitempty"`
	LastError      string `json:"lastError,omitempty"`
	SentAt         int64  `json:"sentAt,omitempty"`
	// A hard bounce and the soft ones counted (issue 31), as lists sealed
	// before the marks moved to records of their own (core.BounceMark)
	// held them: read for the migrations that move them, never written.
	BounceAt     int64  `json:"bounceAt,omitempty"`
	BounceEmail  int    `json:"bounceEmail,omitempty"`
	BounceStatus string `json:"bounceStatus,omitempty"`
	BounceReason string `json:"bounceReason,omitempty"`
	SoftBounces  int    `json:"softBounces,omitempty"`
}

type recipientsRecord struct {
	V          int               `json:"v"`
	Recipients []recipientRecord `json:"recipients"`
}

func nanosOf(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func timeOf(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func marshalRecipients(rs []core.Recipient) []byte { return marshalRecipientsOf(rs, false) }

// marshalRecipientsOf is marshalRecipients, with the marks held inline
// when withMarks (as before they moved out: the migrations' tests).
func marshalRecipientsOf(rs []core.Recipient, withMarks bool) []byte {
	r := recipientsRecord{V: 1, Recipients: make([]recipientRecord, len(rs))}
	for i, x := range rs {
		r.Recipients[i] = recipientRecord{Name: x.Name, Address: x.Address, Status: string(x.Status),
			EmailMessageID: x.EmailMessageID, Attempts: x.Attempts, NextAttemptAt: nanosOf(x.NextAttemptAt),
			LastError: x.LastError, SentAt: nanosOf(x.SentAt)}
		if withMarks {
			r.Recipients[i].BounceAt, r.Recipients[i].BounceEmail = nanosOf(x.Bounce.At), int(x.Bounce.Email)
			r.Recipients[i].BounceStatus, r.Recipients[i].BounceReason = x.Bounce.Status, x.Bounce.Reason
			r.Recipients[i].SoftBounces = x.SoftBounces
		}
	}
	b, _ := json.Marshal(r) // strings and numbers always marshal
	return b
}

func unmarshalRecipients(b []byte) ([]core.Recipient, error) {
	var r recipientsRecord
	if err := json.Unmarshal(b, &r); err != nil || r.V != 1 {
		return nil, core.Errorf(core.EInternal, "a recipient list of an unknown form")
	}
	rs := make([]core.Recipient, len(r.Recipients))
	for i, x := range r.Recipients {
		rs[i] = core.Recipient{Name: x.Name, Address: x.Address, Status: core.RecipientStatus(x.Status),
			EmailMessageID: x.EmailMessageID, Attempts: x.Attempts, NextAttemptAt: timeOf(x.NextAttemptAt),
			LastError: x.LastError, SentAt: timeOf(x.SentAt),
			Bounce: core.RecipientBounce{At: timeOf(x.BounceAt), Email: core.BounceEmail(x.BounceEmail),
				Status: x.BounceStatus, Reason: x.BounceReason}, SoftBounces: x.SoftBounces}
	}
	return rs, nil
}

package web

import (
	"strconv"

	"github.com/sendlater/sendlater/core"
)

// RecipientJSON is one recipient of a message on the wire, with the
// delivery of their own email: status is pending, sent, failed or refused;
// lastError is the mail server's reply of a failure (or of the last try
// while a retry waits, at nextAttemptAt).
type RecipientJSON struct {
	Name          string               `json:"name"`
	Recipient     string               `json:"recipient"`
	Status        core.RecipientStatus `json:"status"`
	SentAt        *int64               `json:"sentAt,omitempty"`
	NextAttemptAt *int64               `json:"nextAttemptAt,omitempty"`
	LastError     string               `json:"lastError,omitempty"`
	// Bouncing: the address returned an email for good (issue 31); the
	// fix is to edit it, which clears this.
	Bouncing *BouncingJSON `json:"bouncing,omitempty"`
}

// BouncingJSON is a recipient's hard bounce: the remote server's words,
// when (ms), and which email ("message" or "notice").
type BouncingJSON struct {
	Reason string `json:"reason"`
	At     int64  `json:"at"`
	Email  string `json:"email"`
}

// RecipientInputJSON is a recipient in a create or an edit.
type RecipientInputJSON struct {
	Name      string `json:"name"`
	Recipient string `json:"recipient"`
}

func recipientsJSON(m *core.Message) []RecipientJSON {
	rs := m.RecipientList()
	out := make([]RecipientJSON, len(rs))
	for i, r := range rs {
		status := r.Status
		if status == "" {
			status = core.RecipientPending
		}
		out[i] = RecipientJSON{Name: r.Name, Recipient: r.Address, Status: status, SentAt: optMillis(r.SentAt),
			NextAttemptAt: optMillis(r.NextAttemptAt), LastError: r.LastError}
		if r.Bouncing() {
			out[i].Bouncing = &BouncingJSON{Reason: r.Bounce.Reason, At: millis(r.Bounce.At), Email: r.Bounce.Email.String()}
		}
	}
	return out
}

func recipientsCore(js []RecipientJSON) []core.Recipient {
	if len(js) == 0 {
		return nil
	}
	out := make([]core.Recipient, len(js))
	for i, j := range js {
		out[i] = core.Recipient{Name: j.Name, Address: j.Recipient, Status: j.Status, SentAt: fromOptMillis(j.SentAt),
			NextAttemptAt: fromOptMillis(j.NextAttemptAt), LastError: j.LastError}
		if b := j.Bouncing; b != nil {
			email := core.BounceDelivery
			if b.Email == "notice" {
				email = core.BounceNotice
			}
			out[i].Bounce = core.RecipientBounce{At: fromMillis(b.At), Reason: b.Reason, Email: email}
		}
	}
	return out
}

func recipientInputs(js []RecipientInputJSON) []core.RecipientInput {
	if js == nil {
		return nil
	}
	out := make([]core.RecipientInput, len(js))
	for i, j := range js {
		out[i] = core.RecipientInput{Name: j.Name, Address: j.Recipient}
	}
	return out
}

func recipientInputsJSON(rs []core.RecipientInput) []RecipientInputJSON {
	if rs == nil {
		return nil
	}
	out := make([]RecipientInputJSON, len(rs))
	for i, r := range rs {
		out[i] = RecipientInputJSON{Name: r.Name, Recipient: r.Address}
	}
	return out
}

// appendRecipientsJSON appends ,"recipients":[...] as encoding/json
// marshals MessageJSON.Recipients.
func appendRecipientsJSON(b []byte, m *core.Message) []byte {
	b = append(b, `,"recipients":[`...)
	for i, r := range recipientsJSON(m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendJSONString(b, r.Name)
		b = append(b, `,"recipient":`...)
		b = appendJSONString(b, r.Recipient)
		b = append(b, `,"status":`...)
		b = appendJSONString(b, string(r.Status))
		if r.SentAt != nil {
			b = append(b, `,"sentAt":`...)
			b = strconv.AppendInt(b, *r.SentAt, 10)
		}
		if r.NextAttemptAt != nil {
			b = append(b, `,"nextAttemptAt":`...)
			b = strconv.AppendInt(b, *r.NextAttemptAt, 10)
		}
		if r.LastError != "" {
			b = append(b, `,"lastError":`...)
			b = appendJSONString(b, r.LastError)
		}
		if bo := r.Bouncing; bo != nil {
			b = append(b, `,"bouncing":{"reason":`...)
			b = appendJSONString(b, bo.Reason)
			b = append(b, `,"at":`...)
			b = strconv.AppendInt(b, bo.At, 10)
			b = append(b, `,"email":`...)
			b = appendJSONString(b, bo.Email)
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

package web

import "github.com/sendlater/sendlater/core"

// MessageJSON is a message on the wire (API.md). The admin fields are only
// filled on the admin socket. The postpone code never leaves the server.
type MessageJSON struct {
	ID        string `json:"id"`
	Owner     string `json:"owner"`
	Title     string `json:"title"`
	Name      string `json:"name"`
	Recipient string `json:"recipient"`
	Message   string `json:"message"`
	// Sealed is a sealed message's envelope and hint; message is then "".
	// An operator's read carries neither (sealed: {}).
	Sealed         *SealedJSON        `json:"sealed,omitempty"`
	Interval       core.Interval      `json:"interval"`
	SendDate       int64              `json:"sendDate"`
	IsActive       bool               `json:"isActive"`
	Featured       bool               `json:"featured"`
	WebhookURL     string             `json:"webhookUrl,omitempty"`
	CreatedAt      int64              `json:"createdAt"`
	Status         core.MessageStatus `json:"status"`
	ReminderSentAt *int64             `json:"reminderSentAt,omitempty"`
	DeliveredAt    *int64             `json:"deliveredAt,omitempty"`
	// FailureReason says why a failed message could not be delivered, so
	// the author sees it whatever became of the email that told them.
	FailureReason string `json:"failureReason,omitempty"`
	// PostponeBlockedUntil, on an author's read, says that a postpone
	// before this instant would not move the date (core's rule): the
	// clients disable Postpone until then, with the reason.
	PostponeBlockedUntil *int64 `json:"postponeBlockedUntil,omitempty"`
	// Recipients are all the recipients, name and recipient the first's.
	Recipients []RecipientJSON `json:"recipients"`
	// Warnings, on the reply to a create or an edit, are what the author
	// should know that did not stop the save (docs/api.md).
	Warnings []WarningJSON `json:"warnings,omitempty"`

	*AdminMessageFields
}

// AdminMessageFields are the delivery details only the admin socket shows.
type AdminMessageFields struct {
	UpdatedAt     int64              `json:"updatedAt"`
	State         core.MessageStatus `json:"state"` // the stored status, paused or not
	Attempts      int                `json:"attempts"`
	LastError     string             `json:"lastError,omitempty"`
	NextAttemptAt *int64             `json:"nextAttemptAt,omitempty"`
	LeaseUntil    *int64             `json:"leaseUntil,omitempty"`
	DueAt         *int64             `json:"dueAt,omitempty"`
	RemindAt      *int64             `json:"remindAt,omitempty"`
	// Outbox is what follows the message (`messages show --json`): its
	// webhook call or its author's failure notice, waiting or failed.
	Outbox *OutboxItemJSON `json:"outbox,omitempty"`
	// Events are its timeline (`messages show --json`).
	Events []EventJSON `json:"events,omitempty"`
}

// NewMessageJSON is m as the API sends it to its author.
func NewMessageJSON(m *core.Message) *MessageJSON {
	return &MessageJSON{
		ID: m.ID, Owner: m.Owner, Title: m.Title, Name: m.Name, Recipient: m.Recipient,
		Message: m.Text(), Sealed: sealedOfMessage(m), Interval: m.Interval, SendDate: millis(m.SendDate), IsActive: m.IsActive,
		Featured: m.Featured, WebhookURL: m.WebhookURL, CreatedAt: millis(m.CreatedAt),
		Status: m.DisplayStatus(), ReminderSentAt: optMillis(m.ReminderSentAt),
		DeliveredAt: optMillis(m.DeliveredAt), FailureReason: failureReason(m),
		PostponeBlockedUntil: optMillis(m.NoPostponeUntil), Recipients: recipientsJSON(m),
		Warnings: warningsJSON(m.Warnings),
	}
}

// WarningJSON is a core.Warning on the wire.
type WarningJSON struct {
	Code    string `json:"code"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// warningsJSON is ws on the wire, nil when there are none.
func warningsJSON(ws []core.Warning) []WarningJSON {
	if len(ws) == 0 {
		return nil
	}
	return each(ws, func(w core.Warning) WarningJSON { return WarningJSON(w) })
}

// warningsCore is the warnings of a decoded message, nil when there are
// none.
func warningsCore(ws []WarningJSON) []core.Warning {
	if len(ws) == 0 {
		return nil
	}
	return each(ws, func(w WarningJSON) core.Warning { return core.Warning(w) })
}

// failureReason is m's last error when it failed, else "".
func failureReason(m *core.Message) string {
	if m.DisplayStatus() != core.StatusFailed {
		return ""
	}
	return m.LastError
}

// NewAdminMessageJSON is m as the admin socket sends it to an operator: with
// its delivery details.
func NewAdminMessageJSON(m *core.Message) *MessageJSON {
	j := NewMessageJSON(m)
	j.AdminMessageFields = &AdminMessageFields{
		UpdatedAt: millis(m.UpdatedAt), State: m.Status, Attempts: m.Attempts, LastError: m.LastError,
		NextAttemptAt: optMillis(m.NextAttemptAt), LeaseUntil: optMillis(m.LeaseUntil),
		DueAt: optMillis(m.DueAt), RemindAt: optMillis(m.RemindAt),
	}
	return j
}

// Core is the message j describes, as far as the wire carries it: without
// the admin fields the status is the displayed one.
func (j *MessageJSON) Core() *core.Message {
	m := &core.Message{
		ID: j.ID, Owner: j.Owner, Title: j.Title, Name: j.Name, Recipient: j.Recipient, Body: j.Message,
		Interval: j.Interval, SendDate: fromMillis(j.SendDate), IsActive: j.IsActive, Featured: j.Featured,
		WebhookURL: j.WebhookURL, CreatedAt: fromMillis(j.CreatedAt), Status: j.Status,
		ReminderSentAt: fromOptMillis(j.ReminderSentAt), DeliveredAt: fromOptMillis(j.DeliveredAt),
		LastError: j.FailureReason, Recipients: recipientsCore(j.Recipients),
		NoPostponeUntil: fromOptMillis(j.PostponeBlockedUntil),
		Warnings:        warningsCore(j.Warnings),
	}
	if l := j.Sealed.core(); l != nil {
		m.SetSealed(*l)
	}
	if a := j.AdminMessageFields; a != nil {
		m.UpdatedAt, m.Status, m.Attempts, m.LastError = fromMillis(a.UpdatedAt), a.State, a.Attempts, a.LastError
		m.NextAttemptAt, m.LeaseUntil = fromOptMillis(a.NextAttemptAt), fromOptMillis(a.LeaseUntil)
		m.DueAt, m.RemindAt = fromOptMillis(a.DueAt), fromOptMillis(a.RemindAt)
	}
	return m
}

// messagesCore is the messages of a decoded list.
func messagesCore(js []*MessageJSON) []*core.Message { return each(js, (*MessageJSON).Core) }

// SealedJSON is a sealed message's letter on the wire (docs/api.md).
type SealedJSON struct {
	Envelope string `json:"envelope,omitempty"`
	Hint     string `json:"hint,omitempty"`
}

// core is j as core takes it; nil for nil.
func (j *SealedJSON) core() *core.SealedLetter {
	if j == nil {
		return nil
	}
	return &core.SealedLetter{Envelope: j.Envelope, Hint: j.Hint}
}

// sealedJSON is l on the wire; nil for nil.
func sealedJSON(l *core.SealedLetter) *SealedJSON {
	if l == nil {
		return nil
	}
	return &SealedJSON{Envelope: l.Envelope, Hint: l.Hint}
}

// sealedOfMessage is m's sealed letter on the wire; nil when m is text.
func sealedOfMessage(m *core.Message) *SealedJSON {
	l, ok := m.Sealed()
	if !ok {
		return nil
	}
	return &SealedJSON{Envelope: l.Envelope, Hint: l.Hint}
}

package core

import (
	"context"
	"crypto/subtle"
	"strings"
	"time"
)

// Limits on message fields.
const (
	MaxTitleLen      = 200
	MaxNameLen       = 200
	MaxEmailLen      = 254
	MaxBodyBytes     = 100 * 1024
	MaxWebhookURLLen = 2048
	// MaxIdempotencyKeyLen bounds an Idempotency-Key.
	MaxIdempotencyKeyLen = 255
	PostponeCodeLen      = 10
	ReminderLeadTime     = 10 * 24 * time.Hour
)

// MessageStatus is where a message is in its delivery.
type MessageStatus string

const (
	StatusScheduled MessageStatus = "scheduled" // waiting for its reminder and sendDate
	StatusReminded  MessageStatus = "reminded"  // the author has been reminded
	StatusSending   MessageStatus = "sending"   // claimed by a delivery pass, under a lease
	StatusDelivered MessageStatus = "delivered"
	StatusFailed    MessageStatus = "failed" // gave up; the author was told
	StatusPaused    MessageStatus = "paused" // isActive is false
)

// Message is a message for the future (SPEC.md section 3) and its delivery
// state: the one Go form of a message. Its wire form is web.MessageJSON (the
// API, the admin socket, web.APIClient and the CLI's --json). Three parallel
// forms are kept by hand and checked by tests: the bbolt store's binary
// record (store/bolt/records_message.go, codec.go), web's append encoder of
// the hot replies (web/json_append.go, byte-for-byte MessageJSON), and the
// web app's TypeScript type (web/ui/src/features/dashboard/api/messages.ts,
// whose fields web's TestWireTypesMatchTypeScript holds to MessageJSON's
// JSON tags, as it does for every wire type the app reads).
type Message struct {
	ID        string
	Owner     string
	Title     string // private label, never in the email
	Name      string // the first recipient's name
	Recipient string // the first recipient's email address
	// Recipients are all the recipients, the first included, each with
	// their delivery (RecipientList reads a message stored without one).
	Recipients   []Recipient
	Body         string
	Interval     Interval
	SendDate     time.Time
	IsActive     bool
	PostponeCode string
	Featured     bool
	WebhookURL   string
	CreatedAt    time.Time
	UpdatedAt    time.Time

	Status MessageStatus
	// RemindersSent is how many reminder steps (Reminders.Steps, the
	// ladder's included) are done for the current SendDate: sent, or
	// stepped over as not chosen by the author or past.
	RemindersSent  int
	ReminderSentAt time.Time
	DeliveredAt    time.Time
	Attempts       int
	LastError      string
	NextAttemptAt  time.Time // a retry after a temporary failure
	// LeaseUntil is when a delivery pass's claim expires: of the delivery
	// while Status is sending, else of a reminder being sent.
	LeaseUntil     time.Time
	EmailMessageID string // fixed at the first claim, reused on every retry
	// IdempotencyKey is a hash of the Idempotency-Key the message was made
	// with (HashSecret), unique per owner; empty when none.
	IdempotencyKey string

	// Events are timeline entries to append with the message's next write
	// (the store writes and clears them); a message read has none.
	Events []MessageEvent

	// DueAt and RemindAt are derived by Reschedule and indexed by the store:
	// when delivery work and the next reminder are due (zero: never).
	DueAt    time.Time
	RemindAt time.Time

	// NoPostponeUntil is set on a message read for its author (the
	// author's MessageService): when a postpone at the time of the read
	// would not move the date, the instant from which it would
	// (PostponeBlockedUntil); zero otherwise, and on every other read.
	// Never stored: the wire's postponeBlockedUntil.
	NoPostponeUntil time.Time
	// Warnings are set on the message a create or an edit returns: what
	// the author should know that did not stop the save (a recipient
	// domain that receives no email). Never stored: the wire's warnings.
	Warnings []Warning
}

// MessageInput is what an author writes when creating a message.
type MessageInput struct {
	Title      string
	Name       string
	Recipient  string
	Body       string
	Interval   Interval // empty: DefaultInterval
	WebhookURL string
	// Recipients, when given, are all the recipients (1 to MaxRecipients);
	// Name and Recipient are then empty or the first's. Else Name and
	// Recipient are the one recipient.
	Recipients []RecipientInput
	// Sealed, when set, is the sealed letter the message holds instead of
	// Body (which is then empty), and ID the id its envelope is bound to
	// (20 letters and digits, made by the client: message_sealed_body.go).
	Sealed *SealedLetter
	ID     string
	// IdempotencyKey, when set, makes a retried create find the message
	// the first made instead of making another (the Idempotency-Key
	// header): at most MaxIdempotencyKeyLen printable characters.
	IdempotencyKey string
}

// MessageUpdate is a partial edit; nil fields are left alone.
type MessageUpdate struct {
	Title      *string
	Name       *string
	Recipient  *string
	Body       *string
	Interval   *Interval
	IsActive   *bool
	WebhookURL *string
	// Recipients replaces the list; Name and Recipient then are nil or the
	// first's.
	Recipients *[]RecipientInput
	// Sealed replaces the body with a sealed letter (a re-seal); Body
	// then is nil. A Body given to a sealed message makes it text again.
	Sealed *SealedLetter
}

// NewMessage creates a message for owner from valid input: active, with a new
// postpone code and sendDate = now + the interval's months in loc.
func NewMessage(owner string, in MessageInput, now time.Time, loc *time.Location) *Message {
	iv := in.Interval
	if iv == "" {
		iv = DefaultInterval
	}
	m := &Message{
		ID:           in.ID,
		Owner:        owner,
		Title:        in.Title,
		Body:         in.storedBody(),
		Interval:     iv,
		SendDate:     AddMonths(now, iv.Months(), loc),
		IsActive:     true,
		PostponeCode: RandomString(PostponeCodeLen),
		WebhookURL:   in.WebhookURL,
		CreatedAt:    now,
		UpdatedAt:    now,
		Status:       StatusScheduled,
	}
	if m.ID == "" {
		m.ID = NewID()
	}
	m.setRecipients(newRecipients(in.list()))
	if in.IdempotencyKey != "" {
		m.IdempotencyKey = HashSecret(in.IdempotencyKey)
	}
	return m
}

// Apply applies an edit. Only picking a new interval recalculates sendDate
// (from now); other edits never move it.
func (m *Message) Apply(up MessageUpdate, now time.Time, loc *time.Location) {
	if up.Title != nil {
		m.Title = *up.Title
	}
	if up.Recipients != nil {
		rs := newRecipients(*up.Recipients)
		keepBounces(rs, m.RecipientList())
		m.setRecipients(rs)
	} else if up.Name != nil || up.Recipient != nil {
		rs := m.editRecipients()
		if up.Name != nil {
			rs[0].Name = strings.TrimSpace(*up.Name)
		}
		if up.Recipient != nil && !strings.EqualFold(strings.TrimSpace(*up.Recipient), rs[0].Address) {
			rs[0] = Recipient{Name: rs[0].Name, Address: strings.TrimSpace(*up.Recipient), Status: RecipientPending}
		}
		m.setRecipients(rs)
	}
	if up.Body != nil {
		m.Body = *up.Body
	}
	if up.Sealed != nil {
		m.SetSealed(*up.Sealed)
	}
	if up.WebhookURL != nil {
		m.WebhookURL = *up.WebhookURL
	}
	if up.Interval != nil && *up.Interval != m.Interval {
		m.Interval = *up.Interval
		m.setSendDate(AddMonths(now, m.Interval.Months(), loc))
	}
	if up.IsActive != nil {
		m.IsActive = *up.IsActive
	}
	m.UpdatedAt = now
}

// Postpone moves sendDate to now + the interval. It does nothing, and
// returns false, when sendDate already falls on that day in loc.
func (m *Message) Postpone(now time.Time, loc *time.Location) bool {
	if !m.PostponeMoves(now, loc) { // the one rule: core/message_postpone_rule.go
		return false
	}
	m.setSendDate(m.PostponeTarget(now, loc))
	m.UpdatedAt = now
	return true
}

// setSendDate moves the delivery date; reminders and delivery attempts start
// over for the new date.
func (m *Message) setSendDate(t time.Time) {
	m.SendDate = t
	m.RemindersSent = 0
	m.Attempts = 0
	m.LastError = ""
	m.NextAttemptAt = time.Time{}
	rs := m.editRecipients()
	for i := range rs {
		if rs[i].Status != RecipientSent {
			rs[i].Status, rs[i].Attempts, rs[i].NextAttemptAt, rs[i].LastError = RecipientPending, 0, time.Time{}, ""
		}
	}
	if m.Status == StatusReminded || m.Status == StatusFailed {
		m.Status = StatusScheduled
	}
}

// checkCanChange is the one rule every edit of a message passes, whoever
// makes it (its author, a postpone link, an operator): a message that is
// being sent or has been delivered can no longer change.
func (m *Message) checkCanChange() error {
	switch m.Status {
	case StatusDelivered:
		return Errorf(EConflict, "The message has been delivered and can no longer change.")
	case StatusSending:
		return Errorf(EConflict, "The message is being delivered right now and cannot change; try again in a moment.")
	}
	if m.anySent() {
		return Errorf(EConflict, "The message has been delivered to some of its recipients and can no longer change.")
	}
	return nil
}

// Delivered reports whether the message has gone out.
func (m *Message) Delivered() bool { return m.Status == StatusDelivered }

// DisplayStatus is the status clients see: paused while the author has
// switched the message off and it has not gone out or failed.
func (m *Message) DisplayStatus() MessageStatus {
	if !m.IsActive && m.Status != StatusDelivered && m.Status != StatusFailed {
		return StatusPaused
	}
	return m.Status
}

// CheckPostponeCode compares a postpone code in constant time.
func (m *Message) CheckPostponeCode(code string) bool {
	return len(code) == len(m.PostponeCode) &&
		subtle.ConstantTimeCompare([]byte(code), []byte(m.PostponeCode)) == 1
}

// Reschedule derives DueAt and RemindAt from the message's state and the
// reminder offsets. Call it before every write: the store indexes both.
func (m *Message) Reschedule(reminders Reminders) {
	m.DueAt, m.RemindAt = time.Time{}, time.Time{}
	if !m.IsActive {
		return
	}
	switch m.Status {
	case StatusScheduled, StatusReminded:
		m.DueAt = m.SendDate
		if m.NextAttemptAt.After(m.DueAt) {
			m.DueAt = m.NextAttemptAt
		}
		if steps := reminders.Steps(); m.RemindersSent < len(steps) {
			m.RemindAt = m.SendDate.Add(-steps[m.RemindersSent])
			if m.LeaseUntil.After(m.RemindAt) { // a reminder is being sent
				m.RemindAt = m.LeaseUntil
			}
		}
	case StatusSending:
		m.DueAt = m.LeaseUntil
	}
}

// MessageFilter selects messages for listing, newest first (by CreatedAt,
// then ID).
type MessageFilter struct {
	Owner string // empty: every owner (admin)
	// After, when set, starts the list after that message's place: a
	// cursor, which holds whatever was added or deleted since.
	After  *MessageCursor
	Offset int // after After
	Limit  int // 0: all
	// Status and DueBefore are an operator's filters (messages list
	// --status, --due-before): AdminService.ListMessages keeps the messages
	// they match (Keeps) before it pages; the stores list by the fields
	// above only.
	Status    MessageStatus
	DueBefore time.Time
}

// Keeps tells whether m passes the operator's filters of f: its displayed
// status is Status, and its delivery date is before DueBefore (each when
// set).
func (f MessageFilter) Keeps(m *Message) bool {
	return (f.Status == "" || m.DisplayStatus() == f.Status) && (f.DueBefore.IsZero() || m.SendDate.Before(f.DueBefore))
}

// ValidStatus tells whether s is a status an operator can filter by.
func ValidStatus(s MessageStatus) bool {
	switch s {
	case StatusScheduled, StatusReminded, StatusSending, StatusDelivered, StatusFailed, StatusPaused:
		return true
	}
	return false
}

// MessageCursor is a place in a list: the message it follows.
type MessageCursor struct {
	CreatedAt time.Time
	ID        string
}

// MessageStore persists messages. Implementations return EMessageNotFound.
type MessageStore interface {
	// CreateMessage stores m. check runs inside the write transaction with the
	// owner and whether they hold any message yet, so a limit cannot be raced.
	CreateMessage(ctx context.Context, m *Message, check func(owner *User, hasMessages bool) error) error
	FindMessageByID(ctx context.Context, id string) (*Message, error)
	ListMessages(ctx context.Context, f MessageFilter) ([]*Message, int, error)
	CountMessages(ctx context.Context, owner string) (int, error)
	// UpdateMessage reads the message, applies fn and writes it back in one
	// transaction; fn's error aborts the update.
	UpdateMessage(ctx context.Context, id string, fn func(m *Message) error) (*Message, error)
	DeleteMessage(ctx context.Context, id string) error
	// FindMessageByIdempotencyKey finds the owner's message made with the
	// key (Message.IdempotencyKey), or EMessageNotFound. CreateMessage
	// refuses a second message of the owner with the same key:
	// EIdempotencyKeyUsed.
	FindMessageByIdempotencyKey(ctx context.Context, owner, key string) (*Message, error)
	// DueMessages returns up to limit active messages with DueAt at or before
	// until, earliest first; DueReminders the same by RemindAt.
	DueMessages(ctx context.Context, until time.Time, limit int) ([]*Message, error)
	DueReminders(ctx context.Context, until time.Time, limit int) ([]*Message, error)
	MessageEventStore
	BounceMarkStore
}

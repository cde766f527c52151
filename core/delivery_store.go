package core

import (
	"context"
	"time"
)

// DeliveryStore is what the delivery pass needs beyond MessageStore. Each
// method is one transaction, so a claim and its outcome are each atomic and a
// crash between them leaves a lease that expires.
type DeliveryStore interface {
	// ClaimDeliveries walks the due-delivery index from its start up to now,
	// calls claim for each message inside one write transaction, and writes
	// back (rescheduled) the messages for which claim returned true, at most
	// limit of them; it returns those. When nothing is due it only reads.
	ClaimDeliveries(ctx context.Context, now time.Time, limit int, claim func(m *Message) bool) ([]*Message, error)
	// ClaimReminders is ClaimDeliveries over the reminder index.
	ClaimReminders(ctx context.Context, now time.Time, limit int, claim func(m *Message) bool) ([]*Message, error)
	// SettleMessage records the outcome of a send: it reads the message,
	// applies fn and writes it back in one transaction, together with the
	// webhook call fn returns (nil: none). fn may run more than once (writes
	// are batched), so it must only depend on the message it is given. A
	// missing message is EMessageNotFound.
	SettleMessage(ctx context.Context, id string, fn func(m *Message) (*WebhookCall, error)) (*Message, error)

	// RefuseAddress records that email refused every further message; only a
	// keyed hash of it is stored. AddressRefused tells whether it did.
	RefuseAddress(ctx context.Context, email string, at time.Time) error
	AddressRefused(ctx context.Context, email string) (bool, error)

	// ClaimWebhooks leases up to limit webhook calls due at now until
	// leaseUntil and returns them; SettleWebhook deletes a call (done) or
	// stores its next attempt.
	ClaimWebhooks(ctx context.Context, now, leaseUntil time.Time, limit int) ([]*WebhookCall, error)
	SettleWebhook(ctx context.Context, c *WebhookCall, done bool) error

	// SetWebhookSecret stores the user's webhook signing secret (encrypted),
	// replacing the old one; WebhookSecret returns it, "" when none was made.
	SetWebhookSecret(ctx context.Context, userID, secret string) error
	WebhookSecret(ctx context.Context, userID string) (string, error)
}

// WebhookCall is a pending call that follows a message's outcome, retried
// like a delivery: the POST to a business message's webhookUrl after its
// delivery, or the email that tells the author a delivery failed for good.
// MessageID is the call's id: one call per message (a message is delivered
// or failed, not both).
type WebhookCall struct {
	Kind          string // CallWebhook or CallFailureNotice
	MessageID     string
	Owner         string
	URL           string
	Recipient     string
	DeliveredAt   time.Time
	Attempts      int
	NextAttemptAt time.Time // also the lease while a pass sends it
	LastError     string
}

// Kinds of WebhookCall.
const (
	CallWebhook       = ""               // POST to the message's webhookUrl
	CallFailureNotice = "failure-notice" // email the author that delivery failed
)

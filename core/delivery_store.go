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
	// outbox items fn returns (one per recipient at most). fn may run more than once (writes
	// are batched), so it must only depend on the message it is given. A
	// missing message is EMessageNotFound.
	SettleMessage(ctx context.Context, id string, fn func(m *Message) ([]*OutboxItem, error)) (*Message, error)
	// ReadForSend reads what a send needs just before it starts, in one
	// snapshot and, where the store can, one round trip: message id
	// (EMessageNotFound when gone), its author authorID, and for each of
	// addresses whether it refused every message (RefuseAddress).
	ReadForSend(ctx context.Context, id, authorID string, addresses []string) (*Message, *User, []bool, error)

	// RefuseAddress records that email refused every further message; only a
	// keyed hash of it is stored. AddressRefused tells whether it did.
	RefuseAddress(ctx context.Context, email string, at time.Time) error
	AddressRefused(ctx context.Context, email string) (bool, error)

	OutboxStore
	// ClaimOutbox leases up to limit outbox items due at now until
	// leaseUntil and returns them; SettleOutbox deletes an item (done) or
	// stores it as it is: its next attempt, or its failure for good
	// (FailedAt set: kept, never due again).
	ClaimOutbox(ctx context.Context, now, leaseUntil time.Time, limit int) ([]*OutboxItem, error)
	SettleOutbox(ctx context.Context, item *OutboxItem, done bool) error
	// FindOutboxItem returns the item with id, or ENotFound.
	FindOutboxItem(ctx context.Context, id string) (*OutboxItem, error)
	// FailedOutbox lists up to limit items that failed for good at or
	// after since, the latest first; CountOutbox counts the items waiting
	// and those that failed for good.
	FailedOutbox(ctx context.Context, since time.Time, limit int) ([]*OutboxItem, error)
	OutboxCounter

	// SetWebhookSecret stores the user's webhook signing secret (encrypted),
	// replacing the old one; WebhookSecret returns it, "" when none was made.
	SetWebhookSecret(ctx context.Context, userID, secret string) error
	WebhookSecret(ctx context.Context, userID string) (string, error)
}

// DueQueue tells the operator's metrics the deliveries waiting: how many
// are due at now (in the delivery index at or before it) and the due time
// of the earliest (zero: none), so that a queue that grows old shows.
type DueQueue interface {
	DueQueue(ctx context.Context, now time.Time) (count int, oldest time.Time, err error)
}

// OutboxCounter counts the outbox: the items waiting, and those that failed
// for good (for /healthz).
type OutboxCounter interface {
	CountOutbox(ctx context.Context) (pending, failed int, err error)
}

// OutboxStore queues outbox items; DeliveryStore works them off.
type OutboxStore interface {
	// AddOutboxItem stores a new item (or replaces the item with its id).
	AddOutboxItem(ctx context.Context, item *OutboxItem) error
}

// OutboxItem is work that follows an event and is retried like a delivery
// (RetryDelays) by the pass's last step, so that a mail server or endpoint
// that is down only delays it: the POST of a business webhook after a
// delivery, the email that tells an author a delivery failed, identity
// emails (verification, email change, recovery, the operator's summary),
// and the password reset request of an address, which the pass turns into
// an email when an account has that address. An item is deleted once done;
// one that failed for good is kept, without its email, for the operator.
type OutboxItem struct {
	// ID is the item's key: for a webhook or a failure notice, its
	// message's id for the first recipient and "<id>.<i>" for recipient i
	// (a recipient is sent or failed, not both), a new id otherwise.
	ID        string
	Kind      string
	MessageID string // the message it follows; "" for identity emails
	Owner     string
	URL       string
	Recipient string // sealed at rest
	// DeliveredAt is when the message was delivered, for a webhook call;
	// for a reminder copy, the sendDate the reminder announces.
	DeliveredAt time.Time
	// Email is an OutboxEmail or a reminder copy as composed: sealed at rest, as it may carry
	// a secret link.
	Email         *Email
	Attempts      int
	NextAttemptAt time.Time // also the lease while a pass works it
	LastError     string
	// FailedAt is when it failed for good; zero while it waits.
	FailedAt time.Time
}

// Kinds of OutboxItem.
const (
	OutboxWebhook       = ""               // POST to the message's webhookUrl
	OutboxFailureNotice = "failure-notice" // email the author that delivery failed
	OutboxEmail         = "email"          // send Email
	OutboxPasswordReset = "password-reset" // the reset email of Recipient's account, if any
	OutboxReminderCopy  = "reminder-copy"  // a reminder to the second reminder address, retried
)

// ErrOutboxItemNotFound is an outbox item no store holds.
func ErrOutboxItemNotFound() error { return Errorf(ENotFound, "The outbox item could not be found.") }

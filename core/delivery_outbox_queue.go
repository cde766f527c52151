package core

import "context"

// Outbox queues emails for the delivery pass and wakes it, so that they
// leave at once, while a request that queued one answers before it is
// sent: a mail server that is slow or down neither slows nor fails the
// request (sign-up, password reset, verification), and the pass retries.
type Outbox struct {
	Store OutboxStore
	Clock Clock
	// Wake nudges the delivery pass (Scheduler.Wake); nil: the next pass
	// sends (the next tick, or send-due).
	Wake func()
}

func (o *Outbox) add(ctx context.Context, it *OutboxItem) error {
	it.ID = NewID()
	it.NextAttemptAt = o.Clock.Now()
	if err := o.Store.AddOutboxItem(ctx, it); err != nil {
		return err
	}
	if o.Wake != nil {
		o.Wake()
	}
	return nil
}

// Email queues e, sealed at rest until it is sent.
func (o *Outbox) Email(ctx context.Context, e *Email) error {
	it := &OutboxItem{Kind: OutboxEmail, Email: e}
	if len(e.To) > 0 {
		it.Recipient = e.To[0].Address
	}
	return o.add(ctx, it)
}

// PasswordReset queues the reset email of the account of email, if one has
// it: the pass looks the account up, so that asking costs the same whether
// or not it exists.
func (o *Outbox) PasswordReset(ctx context.Context, email string) error {
	return o.add(ctx, &OutboxItem{Kind: OutboxPasswordReset, Recipient: email})
}

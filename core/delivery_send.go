package core

// The pass's first step: claiming due deliveries, sending each one, and
// recording the outcome (delivered, a retry after a temporary failure, or
// failed for good).

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"time"
)

// deliveryDue is the claim rule of a delivery: an active message whose
// sendDate and retry time have come, or whose previous claim expired.
func deliveryDue(m *Message, now time.Time) bool {
	if !m.IsActive {
		return false
	}
	switch m.Status {
	case StatusScheduled, StatusReminded:
		return !m.SendDate.After(now) && !m.NextAttemptAt.After(now)
	case StatusSending:
		return !m.LeaseUntil.After(now)
	}
	return false
}

func (d *Delivery) claimDeliveries(ctx context.Context, now time.Time, limit int) ([]*Message, error) {
	lease := now.Add(d.lease())
	return d.Store.ClaimDeliveries(ctx, now, limit, func(m *Message) bool {
		if !deliveryDue(m, now) {
			return false
		}
		m.Status = StatusSending
		m.LeaseUntil = lease
		if m.EmailMessageID == "" {
			m.EmailMessageID = strings.ToLower(NewID()) + "@" + d.messageIDDomain()
		}
		return true
	})
}

func (d *Delivery) messageIDDomain() string {
	if u, err := url.Parse(d.BaseURL); err == nil && u.Hostname() != "" {
		return u.Hostname()
	}
	return "sendlater.local"
}

// waiting is the status a message goes back to when a claim is released.
func (m *Message) waiting() MessageStatus {
	if m.RemindersSent > 0 {
		return StatusReminded
	}
	return StatusScheduled
}

// ownsClaim reports whether cur is still under the claim that produced
// claimed: the same status and lease. Another pass may have taken over an
// expired lease, or an operator may have changed the message.
func ownsClaim(cur, claimed *Message) bool {
	return cur.Status == StatusSending && cur.LeaseUntil.Equal(claimed.LeaseUntil)
}

// reread reads a claimed message again just before sending: the author may
// have paused, deleted or postponed it since the claim. It reports false when
// there is nothing to send: the pass is stopping (the claim is given back
// with release), the message is gone, or the store failed.
func (d *Delivery) reread(ctx context.Context, m *Message, counts *passCounts, log *slog.Logger, release func(*Message, *slog.Logger)) (*Message, bool) {
	if ctx.Err() != nil {
		release(m, log)
		return nil, false
	}
	cur, err := d.Messages.FindMessageByID(ctx, m.ID)
	if ErrorCode(err) == EMessageNotFound {
		counts.add(func(r *PassResult) { r.Skipped++ })
		return nil, false
	}
	if err != nil {
		release(m, log)
		d.passError(counts, log, err)
		return nil, false
	}
	return cur, true
}

// deliver sends one claimed message and records the outcome.
func (d *Delivery) deliver(ctx context.Context, m *Message, counts *passCounts) {
	log := d.logger().With("message", m.ID, "kind", "delivery")
	cur, ok := d.reread(ctx, m, counts, log, d.release)
	if !ok {
		return
	}
	now := d.Clock.Now()
	if !ownsClaim(cur, m) {
		counts.add(func(r *PassResult) { r.Skipped++ })
		return
	}
	if !cur.IsActive || cur.SendDate.After(now) || ctx.Err() != nil {
		d.release(m, log)
		counts.add(func(r *PassResult) { r.Skipped++ })
		return
	}
	author, err := d.Users.FindUserByID(ctx, cur.Owner)
	if err != nil {
		d.release(m, log)
		d.passError(counts, log, err)
		return
	}
	refused, err := d.Store.AddressRefused(ctx, cur.Recipient)
	if err != nil {
		d.release(m, log)
		d.passError(counts, log, err)
		return
	}
	if refused {
		d.fail(cur, "The recipient has refused all messages sent through this service.", log, counts)
		return
	}
	email, err := d.Emails.Delivery(d.deliveryEmail(cur, author, now))
	if err == nil {
		stop := d.keepClaim(ownsClaim, m, cur)
		err = d.Mailer.Send(ctx, email)
		stop()
	}
	switch {
	case err == nil:
		d.settleDelivered(m, now, log, counts)
	case ctx.Err() != nil:
		// Stopped mid-send: whether the server took it is unknown, and the
		// next pass sends it again with the same Message-ID.
		d.release(m, log)
	case isTemporary(err):
		d.retry(ctx, cur, author, err, log, counts)
	default:
		d.fail(cur, "The recipient's mail server refused the message: "+err.Error(), log, counts)
	}
}

func isTemporary(err error) bool {
	var t *TemporaryError
	return errors.As(err, &t)
}

func (d *Delivery) deliveryEmail(m *Message, author *User, now time.Time) DeliveryEmail {
	e := DeliveryEmail{
		To:        Address{Name: m.Name, Address: m.Recipient},
		Author:    Address{Name: author.Name, Address: author.Email},
		Body:      m.Body,
		WrittenAt: m.CreatedAt,
		Location:  author.Location(),
		MessageID: m.EmailMessageID,
		Date:      now,
	}
	if d.Refusals != nil {
		e.UnsubscribeLink = d.BaseURL + "/unsubscribe/" + d.Refusals.Token(m.Recipient)
	}
	return e
}

// settle records an outcome. It does not take the pass's ctx: an outcome
// of a send that happened must be written even while the pass stops.
func (d *Delivery) settle(id string, fn func(m *Message) (*OutboxItem, error)) (*Message, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return d.Store.SettleMessage(ctx, id, fn)
}

func (d *Delivery) settleDelivered(claimed *Message, now time.Time, log *slog.Logger, counts *passCounts) {
	_, err := d.settle(claimed.ID, func(m *Message) (*OutboxItem, error) {
		// The email went out, so the message is delivered whoever holds
		// the claim now.
		if m.Status == StatusDelivered {
			return nil, nil
		}
		m.Status, m.DeliveredAt = StatusDelivered, now
		m.LeaseUntil, m.NextAttemptAt, m.LastError = time.Time{}, time.Time{}, ""
		if m.WebhookURL == "" {
			return nil, nil
		}
		return &OutboxItem{ID: m.ID, MessageID: m.ID, Owner: m.Owner, URL: m.WebhookURL, Recipient: m.Recipient,
			DeliveredAt: now, NextAttemptAt: now}, nil
	})
	if err != nil && ErrorCode(err) != EMessageNotFound {
		// Sent but not recorded: the lease expires and the message goes
		// out again with the same Message-ID.
		d.passError(counts, log, err)
		return
	}
	log.Info("delivered")
	counts.add(func(r *PassResult) { r.Delivered++ })
}

// release gives a claim back untouched, so the next pass may take it at once.
func (d *Delivery) release(claimed *Message, log *slog.Logger) {
	_, err := d.settle(claimed.ID, func(m *Message) (*OutboxItem, error) {
		if ownsClaim(m, claimed) {
			m.Status, m.LeaseUntil = m.waiting(), time.Time{}
		}
		return nil, nil
	})
	if err != nil && ErrorCode(err) != EMessageNotFound {
		log.Warn("releasing a claim failed; it expires on its own", "err", err)
	}
}

// retry schedules the next attempt after a temporary failure, or fails the
// message after the last.
func (d *Delivery) retry(ctx context.Context, cur *Message, author *User, sendErr error, log *slog.Logger, counts *passCounts) {
	if cur.Attempts >= len(RetryDelays) {
		d.fail(cur, "Its mail server kept failing for more than 3 days: "+sendErr.Error(), log, counts)
		return
	}
	now := d.Clock.Now()
	_, err := d.settle(cur.ID, func(m *Message) (*OutboxItem, error) {
		if !ownsClaim(m, cur) {
			return nil, nil
		}
		m.Status, m.LeaseUntil = m.waiting(), time.Time{}
		m.NextAttemptAt = now.Add(RetryDelays[m.Attempts])
		m.Attempts++
		m.LastError = sendErr.Error()
		return nil, nil
	})
	if err != nil && ErrorCode(err) != EMessageNotFound {
		d.passError(counts, log, err)
		return
	}
	log.Warn("delivery failed, will retry", "attempt", cur.Attempts+1, "err", sendErr)
	counts.add(func(r *PassResult) { r.Retried++ })
}

// fail marks the message failed with reason and queues the email that tells
// its author.
func (d *Delivery) fail(cur *Message, reason string, log *slog.Logger, counts *passCounts) {
	owned := false
	_, err := d.settle(cur.ID, func(m *Message) (*OutboxItem, error) {
		owned = ownsClaim(m, cur)
		if !owned {
			return nil, nil
		}
		m.Status, m.LeaseUntil, m.NextAttemptAt = StatusFailed, time.Time{}, time.Time{}
		m.LastError = reason
		// The author's notice is queued with the outcome, so a mail server
		// that is down for it too only delays it.
		return &OutboxItem{ID: m.ID, Kind: OutboxFailureNotice, MessageID: m.ID, Owner: m.Owner,
			Recipient: m.Recipient, NextAttemptAt: d.Clock.Now()}, nil
	})
	if err != nil && ErrorCode(err) != EMessageNotFound {
		d.passError(counts, log, err)
		return
	}
	if !owned {
		return
	}
	log.Warn("delivery failed for good", "reason", reason)
	counts.add(func(r *PassResult) { r.Failed++ })
}

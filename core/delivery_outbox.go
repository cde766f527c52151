package core

// The pass's last step: the outbox, work that follows an event, retried
// like a delivery: business webhooks after a delivery, the email that tells
// an author a delivery failed for good, identity emails and password reset
// requests.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// WebhookSender posts a signed webhook. A *TemporaryError may pass on a later
// try; any other error is permanent.
type WebhookSender interface {
	Post(ctx context.Context, url string, body []byte, headers map[string]string) error
}

// PasswordResets makes the password reset email of the account that has an
// address (Auth): nil when none has.
type PasswordResets interface {
	PasswordResetEmail(ctx context.Context, email string) (*Email, error)
}

// itemMessage reads the message an outbox item follows and its author;
// gone reports that one of them was deleted since (nothing left to do), and
// a failed read is temporary.
func (d *Delivery) itemMessage(ctx context.Context, it *OutboxItem) (m *Message, author *User, gone bool, err error) {
	m, err = d.Messages.FindMessageByID(ctx, it.MessageID)
	if ErrorCode(err) == EMessageNotFound {
		return nil, nil, true, nil
	}
	if err != nil {
		return nil, nil, false, &TemporaryError{Err: err}
	}
	author, err = d.Users.FindUserByID(ctx, it.Owner)
	if ErrorCode(err) == EUserNotFound {
		return nil, nil, true, nil
	}
	if err != nil {
		return nil, nil, false, &TemporaryError{Err: err}
	}
	return m, author, false, nil
}

// sendFailureNotice emails the author of a failed message what happened. A
// message or account deleted since has nobody left to tell.
func (d *Delivery) sendFailureNotice(ctx context.Context, it *OutboxItem) (done bool, err error) {
	m, author, gone, err := d.itemMessage(ctx, it)
	if gone || err != nil {
		return gone, err
	}
	// The recipient the notice is about: the item names them.
	r := m.RecipientList()[0]
	for _, x := range m.RecipientList() {
		if x.Address == it.Recipient {
			r = x
		}
	}
	reason := r.LastError
	if reason == "" {
		reason = m.LastError
	}
	email, err := d.Emails.DeliveryFailed(DeliveryFailedEmail{
		To: Address{Name: author.Name, Address: author.Email}, Title: m.Title,
		Recipient: Address{Name: r.Name, Address: r.Address}, Reason: reason,
		DashboardLink: d.BaseURL + "/dashboard",
	})
	if err != nil {
		// A failing template, a bug of this server: retried on the
		// schedule, the operator told why by the item (its lastError).
		return false, &TemporaryError{Err: fmt.Errorf("the email could not be made: %w", err)}
	}
	return false, d.Mailer.Send(ctx, email)
}

// sendPasswordReset sends the reset email of the account of the item's
// address, if there is one. The code is made here, not when it was asked
// for, so the request cost the same whether or not the account exists. A
// temporary failure turns the item into that email, so a retry sends the
// same link.
func (d *Delivery) sendPasswordReset(ctx context.Context, it *OutboxItem) (done bool, err error) {
	if d.Resets == nil {
		return false, &TemporaryError{Err: errors.New("no identity service is configured")}
	}
	e, err := d.Resets.PasswordResetEmail(ctx, it.Recipient)
	if err != nil {
		return false, &TemporaryError{Err: err}
	}
	if e == nil {
		return true, nil
	}
	it.Kind, it.Email = OutboxEmail, e
	return false, d.Mailer.Send(ctx, e)
}

// WebhookPayload is the JSON body of a delivery webhook.
type WebhookPayload struct {
	Event       string `json:"event"`
	MessageID   string `json:"messageId"`
	Recipient   string `json:"recipient"`
	DeliveredAt int64  `json:"deliveredAt"` // milliseconds since the epoch, as API.md
	Attempt     int    `json:"attempt"`
}

// WebhookSignatureHeader carries "sha256=" and the hex HMAC-SHA256 of the
// raw body under the user's webhook secret.
const WebhookSignatureHeader = "X-Sendlater-Signature"

// SignWebhook returns the signature header value of body under secret.
func SignWebhook(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// runOutbox works every due outbox item, one batch at a time.
func (d *Delivery) runOutbox(ctx context.Context, counts *passCounts) error {
	for ctx.Err() == nil {
		now := d.Clock.Now()
		items, err := d.Store.ClaimOutbox(ctx, now, now.Add(d.lease()), 4*d.concurrency())
		if err != nil || len(items) == 0 {
			return err
		}
		sem := make(chan struct{}, d.concurrency())
		var wg sync.WaitGroup
		for _, it := range items {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				d.workOutbox(ctx, it, counts)
			}()
		}
		wg.Wait()
	}
	return nil
}

// outboxKindName names a kind in the log.
func outboxKindName(kind string) string {
	if kind == OutboxWebhook {
		return "webhook"
	}
	return kind
}

func (d *Delivery) workOutbox(ctx context.Context, it *OutboxItem, counts *passCounts) {
	ctx, span := StartChild(d.Tracer, ctx, SpanOutbox, SpanInternal)
	defer span.End(nil)
	span.SetString(AttrKind, outboxKindName(it.Kind))
	log := d.logger().With("outbox", it.ID, "kind", outboxKindName(it.Kind))
	if it.MessageID != "" {
		log = log.With("message", it.MessageID)
	}
	var done, copySent bool
	var err error
	webhook := it.Kind == OutboxWebhook
	stop := d.keepOutboxLease(it)
	switch it.Kind {
	case OutboxWebhook:
		done, err = d.postWebhook(ctx, it)
	case OutboxFailureNotice:
		done, err = d.sendFailureNotice(ctx, it)
	case OutboxPasswordReset:
		done, err = d.sendPasswordReset(ctx, it)
	case OutboxReminderCopy:
		done, err = d.sendReminderCopy(ctx, it, log)
		copySent = !done && err == nil // done at once: dropped unsent
	case OutboxEmail:
		err = d.Mailer.Send(ctx, it.Email)
	default:
		err = Errorf(EInternal, "an outbox item of the unknown kind %q", it.Kind)
	}
	stop()
	now := d.Clock.Now()
	switch {
	case done:
	case err == nil:
		done = true
		if webhook {
			counts.add(func(r *PassResult) { r.Webhooks++ })
		}
	case ctx.Err() != nil:
		it.NextAttemptAt = now
	case isTemporary(err) && it.Attempts < len(RetryDelays):
		it.NextAttemptAt = now.Add(RetryDelays[it.Attempts])
		it.Attempts++
		it.LastError = MaskEmails(err.Error())
		log.Warn("outbox item failed, will retry", "attempt", it.Attempts, "err", it.LastError)
	default:
		// Kept for the operator (/healthz, the daily summary, `messages
		// show`), without the email and its link.
		it.FailedAt, it.NextAttemptAt, it.Email = now, time.Time{}, nil
		it.LastError = MaskEmails(err.Error())
		log.Error("outbox item failed for good", "err", it.LastError)
	}
	if !d.settleOutbox(ctx, it, done, counts, log) {
		return // the item is worked again once its lease ends: its outcome then
	}
	switch {
	case webhook && ctx.Err() == nil: // stopped: the call's outcome is unknown
		d.recordWebhook(ctx, it, err, log)
	case copySent:
		// The failure that queued it is in the timeline already; retries
		// that fail for now are not.
		d.recordOutcome(ctx, it, EventReminded, copyDetail+", sent on a retry", time.Time{}, log)
	case it.Kind == OutboxReminderCopy && !it.FailedAt.IsZero():
		d.recordOutcome(ctx, it, EventReminderFailed, copyDetail+", failed for good: "+sendReason(err), time.Time{}, log)
	}
}

// recordWebhook adds a webhook call's outcome to its message's timeline.
func (d *Delivery) recordWebhook(ctx context.Context, it *OutboxItem, callErr error, log *slog.Logger) {
	detail, next, outcome := "answered 2xx", time.Time{}, OutcomeSent
	switch {
	case callErr != nil && it.FailedAt.IsZero():
		detail, next, outcome = "failed, will retry: "+it.LastError, it.NextAttemptAt, OutcomeRetried
	case callErr != nil:
		detail, outcome = "failed for good: "+it.LastError, OutcomeFailed
	}
	d.metrics().Webhook(outcome)
	d.recordOutcome(ctx, it, EventWebhook, detail, next, log)
}

// recordOutcome adds an outbox item's outcome to its message's timeline,
// just after the item was settled.
func (d *Delivery) recordOutcome(ctx context.Context, it *OutboxItem, kind EventKind, detail string, next time.Time, log *slog.Logger) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_, err := d.Messages.UpdateMessage(sctx, it.MessageID, func(m *Message) error {
		m.record(d.Clock.Now(), kind, "", MessageEvent{Recipient: it.Recipient, Detail: detail, NextAttemptAt: next})
		return nil
	})
	if err != nil && ErrorCode(err) != EMessageNotFound {
		log.Warn("recording an outcome in the timeline failed", "kind", string(kind), "err", err)
	}
}

// postWebhook POSTs a delivered message's webhook call, signed with its
// owner's secret. An account deleted since took its consent with it: the
// call is done unsent.
func (d *Delivery) postWebhook(ctx context.Context, it *OutboxItem) (done bool, err error) {
	if _, err := d.Users.FindUserByID(ctx, it.Owner); ErrorCode(err) == EUserNotFound {
		return true, nil
	}
	if d.Webhooks == nil {
		return false, &TemporaryError{Err: errors.New("no webhook client is configured")}
	}
	secret, err := d.Store.WebhookSecret(ctx, it.Owner)
	if err != nil {
		return false, &TemporaryError{Err: err}
	}
	body, _ := json.Marshal(WebhookPayload{Event: "message.delivered", MessageID: it.MessageID,
		Recipient: it.Recipient, DeliveredAt: it.DeliveredAt.UnixMilli(), Attempt: it.Attempts + 1})
	headers := map[string]string{"Content-Type": "application/json"}
	if secret != "" {
		headers[WebhookSignatureHeader] = SignWebhook(secret, body)
	}
	return false, d.Webhooks.Post(ctx, it.URL, body, headers)
}

// settleOutbox stores an item's outcome and reports whether it did; an
// outcome that was not stored is not put in the timeline either.
func (d *Delivery) settleOutbox(ctx context.Context, it *OutboxItem, done bool, counts *passCounts, log *slog.Logger) bool {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := d.Store.SettleOutbox(sctx, it, done); err != nil {
		d.passError(counts, log, err)
		return false
	}
	return true
}

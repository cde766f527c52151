package core

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Defaults of Delivery.
const (
	DefaultDeliveryConcurrency = 8
	DefaultLeaseDuration       = 10 * time.Minute
	// reminderRetryDelay is how long a reminder waits after a temporary
	// failure; reminders are retried until their message is due.
	reminderRetryDelay = 5 * time.Minute
	// claimBatch is how many messages per worker one claim transaction takes:
	// enough to spread its fsync, few enough that the leases stay fresh.
	claimBatch = 16
)

// RetryDelays are the waits after each temporary failure of a delivery
// (1 min, 5 min, 30 min, 2 h, 6 h, then every 12 h for 3 days). After the
// last one fails the message is failed and its author told.
var RetryDelays = []time.Duration{
	time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour,
	12 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour,
}

// WebhookSender posts a signed webhook. A *TemporaryError may pass on a later
// try; any other error is permanent.
type WebhookSender interface {
	Post(ctx context.Context, url string, body []byte, headers map[string]string) error
}

// Delivery is the state machine of DESIGN.md run by one function, Run: the
// server's ticker and `sendlater send-due` both call it. Dependencies are
// fields, wired in cmd. Safe for concurrent use; passes of one Delivery run
// one at a time, and passes of several processes are kept apart by the
// store's claims.
type Delivery struct {
	Messages MessageStore
	Users    UserStore
	Store    DeliveryStore
	Mailer   Mailer
	Emails   Emails
	Clock    Clock
	// BaseURL starts every link in the emails.
	BaseURL string
	// Reminders are the reminder offsets before sendDate, largest first, as
	// the store reschedules with.
	Reminders []time.Duration
	// Concurrency bounds the sends in flight; 0: DefaultDeliveryConcurrency.
	Concurrency int
	// LeaseDuration is how long a claim holds before another pass may take
	// it over; 0: DefaultLeaseDuration.
	LeaseDuration time.Duration
	// Refusals makes the one-click refusal links; nil: none offered.
	Refusals *RefusalTokens
	// Webhooks posts business webhooks; nil: calls wait in the store.
	Webhooks WebhookSender
	Logger   *slog.Logger
	// Log keeps the last passes; nil: not kept.
	Log *PassLog

	mu sync.Mutex // one pass at a time
}

// PassResult is what one pass did.
type PassResult struct {
	Started   time.Time `json:"started"`
	Finished  time.Time `json:"finished"`
	Delivered int       `json:"delivered"`
	Reminded  int       `json:"reminded"`
	Retried   int       `json:"retried"`
	Failed    int       `json:"failed"`
	Skipped   int       `json:"skipped"`
	Webhooks  int       `json:"webhooks"`
	// Errors are the failures of single messages that are not about the
	// message itself (a store read); Error is what stopped the pass.
	Errors []string `json:"errors,omitempty"`
	Error  string   `json:"error,omitempty"`
}

// Unreachable reports whether the pass looks cut off from the mail server:
// sends failed temporarily and none succeeded.
func (r PassResult) Unreachable() bool {
	return r.Retried > 0 && r.Delivered == 0 && r.Reminded == 0
}

// passCounts is a pass's tally, shared by its workers.
type passCounts struct {
	mu sync.Mutex
	r  *PassResult
}

func (c *passCounts) add(f func(r *PassResult)) {
	c.mu.Lock()
	f(c.r)
	c.mu.Unlock()
}

func (d *Delivery) concurrency() int {
	if d.Concurrency > 0 {
		return d.Concurrency
	}
	return DefaultDeliveryConcurrency
}

func (d *Delivery) lease() time.Duration {
	if d.LeaseDuration > 0 {
		return d.LeaseDuration
	}
	return DefaultLeaseDuration
}

func (d *Delivery) logger() *slog.Logger {
	if d.Logger == nil {
		return slog.Default()
	}
	return d.Logger
}

// Run is one pass: every due delivery, then every due reminder, then every
// due webhook call. It returns the tally and an error only when the store
// failed; send failures are in the tally. A cancelled ctx stops the pass
// between sends: what was claimed and not sent is released.
func (d *Delivery) Run(ctx context.Context) (PassResult, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	res := PassResult{Started: d.Clock.Now()}
	counts := &passCounts{r: &res}
	err := d.drain(ctx, counts, d.claimDeliveries, d.deliver)
	if err == nil {
		err = d.drain(ctx, counts, d.claimReminders, d.remind)
	}
	if err == nil {
		err = d.callWebhooks(ctx, counts)
	}
	res.Finished = d.Clock.Now()
	if err != nil {
		res.Error = ErrorMessageOrText(err)
	}
	if d.Log != nil {
		d.Log.add(res)
	}
	return res, err
}

// ErrorMessageOrText is an error as an operator reads it: an application
// error's message, else its text.
func ErrorMessageOrText(err error) string {
	if e, ok := AsError(err); ok {
		return e.Message
	}
	return err.Error()
}

// drain claims batches until none is left and works each with bounded
// concurrency. A batch is claimBatch sends per worker, so leases stay far
// shorter than their duration.
func (d *Delivery) drain(ctx context.Context, counts *passCounts, claim func(ctx context.Context, now time.Time, limit int) ([]*Message, error), work func(ctx context.Context, m *Message, counts *passCounts)) error {
	n := d.concurrency()
	for {
		if err := ctx.Err(); err != nil {
			return nil
		}
		batch, err := claim(ctx, d.Clock.Now(), claimBatch*n)
		if err != nil {
			return err
		}
		if len(batch) == 0 {
			return nil
		}
		jobs := make(chan *Message)
		var wg sync.WaitGroup
		for range min(n, len(batch)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for m := range jobs {
					work(ctx, m, counts)
				}
			}()
		}
		for _, m := range batch {
			jobs <- m
		}
		close(jobs)
		wg.Wait()
	}
}

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
		err = d.Mailer.Send(ctx, email)
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
func (d *Delivery) settle(id string, fn func(m *Message) (*WebhookCall, error)) (*Message, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return d.Store.SettleMessage(ctx, id, fn)
}

func (d *Delivery) settleDelivered(claimed *Message, now time.Time, log *slog.Logger, counts *passCounts) {
	_, err := d.settle(claimed.ID, func(m *Message) (*WebhookCall, error) {
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
		return &WebhookCall{MessageID: m.ID, Owner: m.Owner, URL: m.WebhookURL, Recipient: m.Recipient,
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
	_, err := d.settle(claimed.ID, func(m *Message) (*WebhookCall, error) {
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
	_, err := d.settle(cur.ID, func(m *Message) (*WebhookCall, error) {
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
	_, err := d.settle(cur.ID, func(m *Message) (*WebhookCall, error) {
		owned = ownsClaim(m, cur)
		if !owned {
			return nil, nil
		}
		m.Status, m.LeaseUntil, m.NextAttemptAt = StatusFailed, time.Time{}, time.Time{}
		m.LastError = reason
		// The author's notice is queued with the outcome, so a mail server
		// that is down for it too only delays it.
		return &WebhookCall{Kind: CallFailureNotice, MessageID: m.ID, Owner: m.Owner,
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

// sendFailureNotice emails the author of a failed message what happened. A
// message or account deleted since has nobody left to tell.
func (d *Delivery) sendFailureNotice(ctx context.Context, c *WebhookCall) (done bool, err error) {
	m, err := d.Messages.FindMessageByID(ctx, c.MessageID)
	if ErrorCode(err) == EMessageNotFound {
		return true, nil
	}
	if err != nil {
		return false, &TemporaryError{Err: err}
	}
	author, err := d.Users.FindUserByID(ctx, c.Owner)
	if ErrorCode(err) == EUserNotFound {
		return true, nil
	}
	if err != nil {
		return false, &TemporaryError{Err: err}
	}
	email, err := d.Emails.DeliveryFailed(DeliveryFailedEmail{
		To: Address{Name: author.Name, Address: author.Email}, Title: m.Title,
		Recipient: Address{Name: m.Name, Address: m.Recipient}, Reason: m.LastError,
		DashboardLink: d.BaseURL + "/dashboard",
	})
	if err != nil {
		return false, err
	}
	return false, d.Mailer.Send(ctx, email)
}

func (d *Delivery) passError(counts *passCounts, log *slog.Logger, err error) {
	log.Error("delivery pass", "err", err)
	counts.add(func(r *PassResult) { r.Errors = append(r.Errors, ErrorMessageOrText(err)) })
}

// remindersPassed counts the reminder offsets of m whose time has come.
func (d *Delivery) remindersPassed(m *Message, now time.Time) int {
	n := 0
	for _, off := range d.Reminders {
		if !m.SendDate.Add(-off).After(now) {
			n++
		}
	}
	return n
}

// reminderDue is the claim rule of a reminder: an active, waiting message
// whose next reminder time has come and that no pass is reminding.
func (d *Delivery) reminderDue(m *Message, now time.Time) bool {
	return m.IsActive && (m.Status == StatusScheduled || m.Status == StatusReminded) &&
		m.RemindersSent < len(d.Reminders) && !m.SendDate.Add(-d.Reminders[m.RemindersSent]).After(now) &&
		!m.LeaseUntil.After(now)
}

func (d *Delivery) claimReminders(ctx context.Context, now time.Time, limit int) ([]*Message, error) {
	lease := now.Add(d.lease())
	var skipped []string
	claimed, err := d.Store.ClaimReminders(ctx, now, limit, func(m *Message) bool {
		if !d.reminderDue(m, now) {
			return false
		}
		if !m.SendDate.After(now) {
			// Too late to remind: the delivery itself is due.
			m.RemindersSent, m.LeaseUntil = len(d.Reminders), time.Time{}
			skipped = append(skipped, m.ID)
			return true
		}
		m.LeaseUntil = lease
		return true
	})
	if err != nil || len(skipped) == 0 {
		return claimed, err
	}
	out := claimed[:0]
	for _, m := range claimed {
		if m.LeaseUntil.IsZero() {
			continue
		}
		out = append(out, m)
	}
	return out, nil
}

// ownsReminder reports whether cur is still under the reminder claim.
func ownsReminder(cur, claimed *Message) bool {
	return (cur.Status == StatusScheduled || cur.Status == StatusReminded) && cur.LeaseUntil.Equal(claimed.LeaseUntil)
}

// remind sends one claimed reminder to the author and records it.
func (d *Delivery) remind(ctx context.Context, m *Message, counts *passCounts) {
	log := d.logger().With("message", m.ID, "kind", "reminder")
	cur, ok := d.reread(ctx, m, counts, log, d.releaseReminder)
	if !ok {
		return
	}
	now := d.Clock.Now()
	if !ownsReminder(cur, m) || !cur.SendDate.Equal(m.SendDate) || !cur.IsActive || ctx.Err() != nil {
		d.releaseReminder(m, log)
		counts.add(func(r *PassResult) { r.Skipped++ })
		return
	}
	author, err := d.Users.FindUserByID(ctx, cur.Owner)
	if err != nil {
		d.releaseReminder(m, log)
		d.passError(counts, log, err)
		return
	}
	email, err := d.Emails.Reminder(ReminderEmail{
		To: Address{Name: author.Name, Address: author.Email}, Title: cur.Title,
		SendDate: cur.SendDate, Location: author.Location(),
		PostponeLink:  d.BaseURL + "/postpone/" + cur.ID + "?code=" + url.QueryEscape(cur.PostponeCode),
		DashboardLink: d.BaseURL + "/dashboard",
	})
	if err == nil {
		err = d.Mailer.Send(ctx, email)
	}
	passed := d.remindersPassed(cur, now)
	_, serr := d.settle(m.ID, func(x *Message) (*WebhookCall, error) {
		if !ownsReminder(x, m) {
			return nil, nil
		}
		x.LeaseUntil = time.Time{}
		switch {
		case err != nil && ctx.Err() != nil:
		case err != nil && isTemporary(err):
			x.LeaseUntil = now.Add(reminderRetryDelay)
		case x.SendDate.Equal(m.SendDate):
			// Sent, or refused for good: either way this date's reminder is done.
			x.RemindersSent = max(x.RemindersSent+1, passed)
			if err == nil {
				x.Status, x.ReminderSentAt = StatusReminded, now
			}
		}
		return nil, nil
	})
	if serr != nil && ErrorCode(serr) != EMessageNotFound {
		d.passError(counts, log, serr)
		return
	}
	switch {
	case err == nil:
		log.Info("reminded")
		counts.add(func(r *PassResult) { r.Reminded++ })
	case ctx.Err() != nil:
	case isTemporary(err):
		log.Warn("reminder failed, will retry", "err", err)
		counts.add(func(r *PassResult) { r.Retried++ })
	default:
		log.Error("reminder refused by the mail server", "err", err)
		counts.add(func(r *PassResult) { r.Failed++ })
	}
}

func (d *Delivery) releaseReminder(claimed *Message, log *slog.Logger) {
	_, err := d.settle(claimed.ID, func(m *Message) (*WebhookCall, error) {
		if ownsReminder(m, claimed) {
			m.LeaseUntil = time.Time{}
		}
		return nil, nil
	})
	if err != nil && ErrorCode(err) != EMessageNotFound {
		log.Warn("releasing a reminder claim failed; it expires on its own", "err", err)
	}
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

// callWebhooks posts every due webhook call, one batch at a time.
func (d *Delivery) callWebhooks(ctx context.Context, counts *passCounts) error {
	for ctx.Err() == nil {
		now := d.Clock.Now()
		calls, err := d.Store.ClaimWebhooks(ctx, now, now.Add(d.lease()), 4*d.concurrency())
		if err != nil || len(calls) == 0 {
			return err
		}
		sem := make(chan struct{}, d.concurrency())
		var wg sync.WaitGroup
		for _, c := range calls {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				d.callWebhook(ctx, c, counts)
			}()
		}
		wg.Wait()
	}
	return nil
}

func (d *Delivery) callWebhook(ctx context.Context, c *WebhookCall, counts *passCounts) {
	kind := c.Kind
	if kind == CallWebhook {
		kind = "webhook"
	}
	log := d.logger().With("message", c.MessageID, "kind", kind)
	var done bool
	var err error
	if c.Kind == CallFailureNotice {
		done, err = d.sendFailureNotice(ctx, c)
	} else {
		done, err = d.postWebhook(ctx, c)
	}
	now := d.Clock.Now()
	switch {
	case done:
	case err == nil:
		done = true
		if c.Kind == CallWebhook {
			counts.add(func(r *PassResult) { r.Webhooks++ })
		}
	case ctx.Err() != nil:
		c.NextAttemptAt = now
	case isTemporary(err) && c.Attempts < len(RetryDelays):
		c.NextAttemptAt = now.Add(RetryDelays[c.Attempts])
		c.Attempts++
		c.LastError = err.Error()
		log.Warn("call failed, will retry", "attempt", c.Attempts, "err", err)
	default:
		done = true
		log.Error("call failed for good", "err", err)
	}
	d.settleWebhook(ctx, c, done, counts, log)
}

// postWebhook POSTs a delivered message's webhook call, signed with its
// owner's secret. An account deleted since took its consent with it: the
// call is done unsent.
func (d *Delivery) postWebhook(ctx context.Context, c *WebhookCall) (done bool, err error) {
	if _, err := d.Users.FindUserByID(ctx, c.Owner); ErrorCode(err) == EUserNotFound {
		return true, nil
	}
	if d.Webhooks == nil {
		return false, &TemporaryError{Err: errors.New("no webhook client is configured")}
	}
	secret, err := d.Store.WebhookSecret(ctx, c.Owner)
	if err != nil {
		return false, &TemporaryError{Err: err}
	}
	body, _ := json.Marshal(WebhookPayload{Event: "message.delivered", MessageID: c.MessageID,
		Recipient: c.Recipient, DeliveredAt: c.DeliveredAt.UnixMilli(), Attempt: c.Attempts + 1})
	headers := map[string]string{"Content-Type": "application/json"}
	if secret != "" {
		headers[WebhookSignatureHeader] = SignWebhook(secret, body)
	}
	return false, d.Webhooks.Post(ctx, c.URL, body, headers)
}

func (d *Delivery) settleWebhook(ctx context.Context, c *WebhookCall, done bool, counts *passCounts, log *slog.Logger) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := d.Store.SettleWebhook(sctx, c, done); err != nil {
		d.passError(counts, log, err)
	}
}

// PlannedSend is one email a pass would send by a given time (dry run).
type PlannedSend struct {
	Kind      string    `json:"kind"` // "delivery" or "reminder"
	MessageID string    `json:"messageId"`
	Owner     string    `json:"owner"`
	To        string    `json:"to"`
	DueAt     time.Time `json:"dueAt"`
}

// Plan lists what a pass at the given time would send, and sends nothing.
func (d *Delivery) Plan(ctx context.Context, at time.Time) ([]PlannedSend, error) {
	due, err := d.Messages.DueMessages(ctx, at, 0)
	if err != nil {
		return nil, err
	}
	out := []PlannedSend{}
	for _, m := range due {
		if deliveryDue(m, at) {
			out = append(out, PlannedSend{Kind: "delivery", MessageID: m.ID, Owner: m.Owner, To: m.Recipient, DueAt: m.DueAt})
		}
	}
	reminders, err := d.Messages.DueReminders(ctx, at, 0)
	if err != nil {
		return nil, err
	}
	for _, m := range reminders {
		if !d.reminderDue(m, at) || !m.SendDate.After(at) {
			continue
		}
		to := m.Owner
		if u, err := d.Users.FindUserByID(ctx, m.Owner); err == nil {
			to = u.Email
		}
		out = append(out, PlannedSend{Kind: "reminder", MessageID: m.ID, Owner: m.Owner, To: to, DueAt: m.RemindAt})
	}
	return out, nil
}

// PassLog keeps the last passes in memory. Safe for concurrent use.
type PassLog struct {
	mu     sync.Mutex
	max    int
	passes []PassResult
}

// NewPassLog keeps the last n passes.
func NewPassLog(n int) *PassLog { return &PassLog{max: n} }

func (l *PassLog) add(r PassResult) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.passes) == l.max {
		l.passes = append(l.passes[:0], l.passes[1:]...)
	}
	l.passes = append(l.passes, r)
}

// Last returns the passes kept, oldest first.
func (l *PassLog) Last() []PassResult {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]PassResult(nil), l.passes...)
}

// LastFinished is when the last pass that was not stopped by an error
// finished; zero when none has.
func (l *PassLog) LastFinished() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.passes) - 1; i >= 0; i-- {
		if l.passes[i].Error == "" {
			return l.passes[i].Finished
		}
	}
	return time.Time{}
}

// String is the pass's one-line summary, as send-due prints it.
func (r PassResult) String() string {
	return fmt.Sprintf("delivered %d, reminded %d, retried %d, failed %d, skipped %d, webhooks %d",
		r.Delivered, r.Reminded, r.Retried, r.Failed, r.Skipped, r.Webhooks)
}

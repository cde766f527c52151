package core

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Defaults of Delivery.
const (
	DefaultDeliveryConcurrency = 8
	// DefaultLeaseDuration is how long a claim holds: about as long as a
	// send may take (the SMTP timeout), renewed while one is in flight.
	DefaultLeaseDuration = 30 * time.Second
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
	// Reminders are the reminder offsets, the value the store reschedules
	// with.
	Reminders Reminders
	// Prices tells the author's plan: a second reminder address is used
	// while the plan allows one (core/delivery_ladder.go).
	Prices PriceMap
	// Concurrency bounds the sends in flight; 0: DefaultDeliveryConcurrency.
	Concurrency int
	// LeaseDuration is how long a claim holds before another pass may take
	// it over, renewed every third of it while a send is in flight; 0:
	// DefaultLeaseDuration.
	LeaseDuration time.Duration
	// Refusals makes the one-click refusal links; nil: none offered.
	Refusals *RefusalTokens
	// Bounces makes each recipient's return path (VERP); nil: the
	// sender's address is every email's return path.
	Bounces *BounceAddresses
	// Opens makes a sealed message's recipients' open links; nil: test
	// links, which open nothing (previews and tests).
	Opens *OpenTokens
	// OpenValidity is how long an open link opens after delivery, as the
	// email says it (SealedOpenService.Validity); zero: DefaultOpenValidity.
	OpenValidity time.Duration
	// Files lists and opens a message's files for its emails; nil: no
	// file is listed.
	Files *AttachmentService
	// FileLinks makes the recipients' file links; nil: test links, which
	// download only for the author (previews and tests).
	FileLinks *FileLinks
	// FileValidity is how long a file link downloads after delivery, as
	// the email says it (FileLinkService.Validity); zero:
	// DefaultFileLinkValidity.
	FileValidity time.Duration
	// InlineMax is attachments.inline_max: when a message's files total at
	// most this many bytes, its emails also carry them; 0: never.
	InlineMax int64
	// Confirmations asks a second reminder address set before
	// confirmation existed to confirm; nil: it is never asked by the pass.
	Confirmations ReminderAddressAsker
	// Webhooks posts business webhooks; nil: calls wait in the store.
	Webhooks WebhookSender
	// Resets makes password reset emails for the outbox's reset requests
	// (Auth); nil: they wait in the store.
	Resets PasswordResets
	Logger *slog.Logger
	// Log keeps the last passes; nil: not kept.
	Log *PassLog
	// Monitor records each pass as this process's delivery health; nil:
	// not recorded.
	Monitor *PassMonitor
	// Tracer makes a span of each pass, and under it of each message, each
	// email and each webhook call; nil: none.
	Tracer Tracer
	// Metrics counts the sends by outcome, their lateness and the passes;
	// nil: not counted.
	Metrics Metrics

	mu sync.Mutex // one pass at a time
}

// PassResult is what one pass did.
type PassResult struct {
	Started   time.Time
	Finished  time.Time
	Delivered int
	Reminded  int
	Retried   int
	Failed    int
	Skipped   int
	Webhooks  int
	// Errors are the failures of single messages that are not about the
	// message itself (a store read); Error is what stopped the pass.
	Errors []string
	Error  string
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

func (d *Delivery) metrics() Metrics { return metricsOr(d.Metrics) }

func (d *Delivery) logger() *slog.Logger {
	if d.Logger == nil {
		return slog.Default()
	}
	return d.Logger
}

// Run is one pass: every due delivery, then every due reminder, then every
// due outbox item (webhooks, failure notices, identity emails). It returns the tally and an error only when the store
// failed; send failures are in the tally. A cancelled ctx stops the pass
// between sends: what was claimed and not sent is released.
func (d *Delivery) Run(ctx context.Context) (_ PassResult, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	res := PassResult{Started: d.Clock.Now()}
	counts := &passCounts{r: &res}
	ctx, span := startSpan(d.Tracer, ctx, SpanDeliveryPass, SpanInternal)
	defer func() {
		span.SetInt("delivery.delivered", res.Delivered)
		span.SetInt("delivery.reminded", res.Reminded)
		span.SetInt("delivery.retried", res.Retried)
		span.SetInt("delivery.failed", res.Failed)
		span.SetInt("delivery.webhooks", res.Webhooks)
		span.End(err)
	}()
	err = d.drain(ctx, counts, d.claimDeliveries, d.deliver)
	if err == nil {
		err = d.drain(ctx, counts, d.claimReminders, d.remind)
	}
	if err == nil {
		err = d.runOutbox(ctx, counts)
	}
	res.Finished = d.Clock.Now()
	if err != nil {
		res.Error = ErrorMessageOrText(err)
	}
	if d.Log != nil {
		d.Log.add(res)
	}
	if d.Monitor != nil {
		d.Monitor.passed(ctx, res)
	}
	d.metrics().Pass(res.Finished.Sub(res.Started), err == nil, res.Finished)
	return res, err
}

// RunOutbox is the pass's last step alone: every due outbox item.
func (d *Delivery) RunOutbox(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.runOutbox(ctx, &passCounts{r: &PassResult{}})
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

func (d *Delivery) passError(counts *passCounts, log *slog.Logger, err error) {
	log.Error("delivery pass", "err", err)
	counts.add(func(r *PassResult) { r.Errors = append(r.Errors, ErrorMessageOrText(err)) })
}

// String is the pass's one-line summary, as send-due prints it.
func (r PassResult) String() string {
	return fmt.Sprintf("delivered %d, reminded %d, retried %d, failed %d, skipped %d, webhooks %d",
		r.Delivered, r.Reminded, r.Retried, r.Failed, r.Skipped, r.Webhooks)
}

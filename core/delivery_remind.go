package core

// The pass's second step: the reminders before sendDate, each claimed,
// sent to the author and recorded once per sendDate.

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"
)

func (d *Delivery) claimReminders(ctx context.Context, now time.Time, limit int) ([]*Message, error) {
	lease := now.Add(d.lease())
	var skipped []string
	claimed, err := d.Store.ClaimReminders(ctx, now, limit, func(m *Message) bool {
		if !d.Reminders.due(m, now) {
			return false
		}
		if !m.SendDate.After(now) {
			// Too late to remind: the delivery itself is due.
			m.RemindersSent, m.LeaseUntil = len(d.Reminders.Steps()), time.Time{}
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
	ctx, span := StartChild(d.Tracer, ctx, SpanRemind, SpanInternal)
	defer span.End(nil)
	log := d.logger().With("message", m.ID, "kind", "reminder")
	read, ok := d.reread(ctx, m, false, counts, log, d.releaseReminder)
	if !ok {
		return
	}
	cur, author := read.cur, read.author
	now := d.Clock.Now()
	if !ownsReminder(cur, m) || !cur.SendDate.Equal(m.SendDate) || !cur.IsActive || ctx.Err() != nil {
		d.releaseReminder(m, log)
		counts.add(func(r *PassResult) { r.Skipped++ })
		return
	}
	if !d.confirmClaim(ownsReminder, m, cur, now, log) {
		counts.add(func(r *PassResult) { r.Skipped++ })
		return
	}
	steps := d.Reminders.Steps()
	step := min(cur.RemindersSent, len(steps)-1)
	if !d.Reminders.sends(steps, step, author.ReminderLadder) {
		// A ladder step the author did not choose: step over it, silently.
		d.stepOver(m, steps, author.ReminderLadder, log, counts)
		return
	}
	if author.holds(cur, cur.SendDate.Add(-steps[step]), now) {
		d.holdBack(m, ownsReminder, author, now, log, counts)
		return
	}
	passed := d.Reminders.passed(steps, cur, now)
	next := d.Reminders.nextSent(steps, max(step+1, passed), author.ReminderLadder)
	data := ReminderEmail{
		To: Address{Name: author.Name, Address: author.Email}, Title: cur.Title,
		SendDate: cur.SendDate, Location: author.Location(),
		PostponeLink: d.BaseURL + "/postpone/" + cur.ID + "?code=" + url.QueryEscape(cur.PostponeCode) +
			"&step=" + url.QueryEscape(stepName(steps[step])),
		DashboardLink: d.BaseURL + "/dashboard", Step: stepName(steps[step]),
		LastChance: next >= len(steps) && author.ReminderLadder != 0,
	}
	// The marks live beside the message (issue 31): joined into a copy,
	// so that cur stays as read. A store that fails here leaves the list
	// out, not the reminder.
	marked := *cur
	if err := JoinBounceMarks(ctx, d.Messages, &marked); err != nil {
		log.Warn("reminder: reading the bounce marks failed", "err", err)
	}
	for _, r := range marked.RecipientList() {
		if r.Bouncing() {
			data.Bouncing = append(data.Bouncing, BouncingRecipient{Address: Address{Name: r.Name, Address: r.Address}, Reason: r.Bounce.Reason})
			data.EditLink = d.BaseURL + "/dashboard?edit=" + cur.ID
		}
	}
	detail := fmt.Sprintf("reminder %s, %d of %d", data.Step,
		d.Reminders.sentCount(steps[:step+1], author.ReminderLadder),
		d.Reminders.sentCount(steps, author.ReminderLadder))
	retrying := detail + ", failed, will retry: "
	email, err := d.Emails.Reminder(data)
	var second *MessageEvent // the copy's entry of the timeline, when one was sent or tried
	stop := d.keepClaim(ownsReminder, m, cur)
	if err != nil {
		err = emailNotMade(log, err)
	} else {
		err = d.Mailer.Send(ctx, email)
		if plan, active := d.Prices.PlanOf(author); err == nil && author.ReminderAddress != "" && ReminderAddressAllowed(plan, active) {
			second = d.remindSecond(ctx, m.ID, data, author, now, log)
		}
	}
	// Whether a failure for now is new to the timeline, read while the
	// claim is still kept.
	tell := err != nil && ctx.Err() == nil && isTemporary(err) && !d.toldRetrying(ctx, m.ID, author.Email, retrying, log)
	stop()
	_, serr := d.settle(m.ID, func(x *Message) ([]*OutboxItem, error) {
		if !ownsReminder(x, m) {
			return nil, nil
		}
		x.LeaseUntil = time.Time{}
		switch {
		case err != nil && ctx.Err() != nil:
		case err != nil && isTemporary(err):
			x.LeaseUntil = now.Add(reminderRetryDelay)
			if tell {
				x.record(now, EventReminderFailed, "", MessageEvent{Recipient: author.Email,
					Detail: retrying + sendReason(err), NextAttemptAt: x.LeaseUntil})
			}
		case x.SendDate.Equal(m.SendDate):
			// Sent, or refused for good: either way this step is done for
			// this date, and so are the steps whose time passed with it.
			x.RemindersSent = max(x.RemindersSent+1, next)
			if err != nil {
				x.record(now, EventReminderFailed, "", MessageEvent{Recipient: author.Email,
					Detail: detail + ", refused for good: " + sendReason(err)})
				break
			}
			x.Status, x.ReminderSentAt = StatusReminded, now
			x.record(now, EventReminded, "", MessageEvent{Recipient: author.Email, Detail: detail})
			if second != nil {
				e := *second
				e.Detail = detail + ", " + copyDetail + e.Detail
				x.record(now, e.Kind, "", e)
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
		d.metrics().Sent(KindReminder, OutcomeSent, 1)
	case ctx.Err() != nil:
	case isTemporary(err):
		log.Warn("reminder failed, will retry", "err", err)
		counts.add(func(r *PassResult) { r.Retried++ })
		d.metrics().Sent(KindReminder, OutcomeRetried, 1)
	default:
		log.Error("reminder refused by the mail server", "err", err)
		counts.add(func(r *PassResult) { r.Failed++ })
		d.metrics().Sent(KindReminder, OutcomeBounced, 1)
	}
}

// toldRetrying reports whether the timeline of message id already says, in
// its last entry, that the author's reminder (to email, of the entry
// starting with retrying) failed for now: a reminder retried every few
// minutes while the mail server refuses it for hours is told once, and
// again after anything else happened to the message. A timeline that
// cannot be read counts as not told: better told twice than not at all.
func (d *Delivery) toldRetrying(ctx context.Context, id, email, retrying string, log *slog.Logger) bool {
	events, err := d.Messages.ListMessageEvents(ctx, id)
	if err != nil {
		if ctx.Err() == nil {
			log.Warn("reading the timeline failed", "err", err)
		}
		return false
	}
	if len(events) == 0 {
		return false
	}
	last := events[len(events)-1]
	return last.Kind == EventReminderFailed && last.Recipient == email && strings.HasPrefix(last.Detail, retrying)
}

func (d *Delivery) releaseReminder(claimed *Message, log *slog.Logger) {
	_, err := d.settle(claimed.ID, func(m *Message) ([]*OutboxItem, error) {
		if ownsReminder(m, claimed) {
			m.LeaseUntil = time.Time{}
		}
		return nil, nil
	})
	if err != nil && ErrorCode(err) != EMessageNotFound {
		log.Warn("releasing a reminder claim failed; it expires on its own", "err", err)
	}
}

// stepOver moves a claimed message past ladder steps its author did not
// choose, to the next step they get (or past the last), sending nothing.
func (d *Delivery) stepOver(claimed *Message, steps Reminders, l Ladder, log *slog.Logger, counts *passCounts) {
	_, err := d.settle(claimed.ID, func(m *Message) ([]*OutboxItem, error) {
		if ownsReminder(m, claimed) && m.SendDate.Equal(claimed.SendDate) {
			m.RemindersSent = d.Reminders.nextSent(steps, m.RemindersSent+1, l)
			m.LeaseUntil = time.Time{}
		}
		return nil, nil
	})
	if err != nil && ErrorCode(err) != EMessageNotFound {
		d.passError(counts, log, err)
	}
}

// copyDetail names a reminder's copy to the second address in the timeline.
const copyDetail = "a copy to the second reminder address"

// remindSecond sends the reminder to the author's second reminder address
// too (while the plan allows one: an address kept after a downgrade rests),
// once: a failure there is logged and never holds back the author's. It
// returns the copy's entry of the timeline, its Detail to follow
// copyDetail: reminded, or reminder-failed with why (and when it is tried
// again, when the outbox retries it). An address that has not confirmed,
// or refused, gets nothing (secondHeldBack).
func (d *Delivery) remindSecond(ctx context.Context, messageID string, data ReminderEmail, author *User, now time.Time, log *slog.Logger) *MessageEvent {
	if e := d.secondHeldBack(ctx, author, log); e != nil {
		return e
	}
	data.To, data.CopyOf = Address{Address: author.ReminderAddress}, data.To
	// The recipients' addresses are the author's business, not the copy's.
	data.Bouncing, data.EditLink = nil, ""
	if d.Refusals != nil {
		data.UnsubscribeLink = refusalLink(d.BaseURL, d.Refusals, author.ReminderAddress)
	}
	email, err := d.Emails.Reminder(data)
	if err != nil {
		// Not queued: the outbox keeps an email to send, and there is none.
		err = emailNotMade(log.With("to", "the second reminder address"), err)
		return &MessageEvent{Kind: EventReminderFailed, Recipient: author.ReminderAddress, Detail: ", failed: " + sendReason(err)}
	}
	err = d.Mailer.Send(ctx, email)
	if err == nil {
		return &MessageEvent{Kind: EventReminded, Recipient: author.ReminderAddress}
	}
	failed := &MessageEvent{Kind: EventReminderFailed, Recipient: author.ReminderAddress, Detail: ", failed: " + sendReason(err)}
	if !isTemporary(err) && ctx.Err() == nil {
		log.Warn("reminder to the second reminder address failed", "err", err)
		return failed
	}
	// Refused for now, or not sent because the pass was stopped before its
	// send started (a started send runs to its end: mailer.SMTP.Send):
	// retried by the outbox on the delivery schedule, while the reminder
	// still says what is true (sendReminderCopy).
	it := &OutboxItem{ID: NewID(), Kind: OutboxReminderCopy, MessageID: messageID, Owner: author.ID,
		Recipient: author.ReminderAddress, DeliveredAt: data.SendDate, Email: email,
		Attempts: 1, NextAttemptAt: now.Add(RetryDelays[0]), LastError: MaskEmails(err.Error())}
	if qerr := d.Store.AddOutboxItem(context.WithoutCancel(ctx), it); qerr != nil {
		log.Warn("reminder to the second reminder address failed and could not be queued", "err", err, "queue_err", qerr)
		return failed
	}
	log.Warn("reminder to the second reminder address failed, will retry", "err", err)
	failed.Detail, failed.NextAttemptAt = ", failed, will retry: "+sendReason(err), it.NextAttemptAt
	return failed
}

// sendReminderCopy retries a reminder copy to the second reminder address
// while it still says what is true: the message is there, active, not yet
// delivered, still due on the date the reminder announces, and the author
// still has that address on a plan that includes it. Otherwise it is
// dropped (done): a late or wrong reminder is worse than none.
func (d *Delivery) sendReminderCopy(ctx context.Context, it *OutboxItem, log *slog.Logger) (done bool, err error) {
	m, author, gone, err := d.itemMessage(ctx, it)
	if gone || err != nil {
		return gone, err
	}
	plan, active := d.Prices.PlanOf(author)
	if !m.IsActive || (m.Status != StatusScheduled && m.Status != StatusReminded) || !m.SendDate.Equal(it.DeliveredAt) ||
		!m.SendDate.After(d.Clock.Now()) || author.ReminderAddress != it.Recipient || !ReminderAddressAllowed(plan, active) ||
		!author.ReminderAddressConfirmed() {
		log.Info("reminder copy dropped: what it says is no longer true")
		return true, nil
	}
	if refused, err := d.Store.AddressRefused(ctx, it.Recipient); err != nil || refused {
		if refused {
			log.Info("reminder copy dropped: the address refused every email")
		}
		return refused, err
	}
	return false, d.Mailer.Send(ctx, it.Email)
}

// ReminderAddressAsker asks a second reminder address that was never
// asked to confirm (Auth.AskReminderAddress), reporting whether it did.
type ReminderAddressAsker interface {
	AskReminderAddress(ctx context.Context, u *User) (bool, error)
}

// secondHeldBack is the timeline's entry of a copy that the author's
// second address must not get: it refused every email, or has not
// confirmed yet (an address never asked, set before confirmation
// existed, is asked now, once); nil when the copy may go.
func (d *Delivery) secondHeldBack(ctx context.Context, author *User, log *slog.Logger) *MessageEvent {
	addr := author.ReminderAddress
	// Read even when the pass is stopping: a copy not started is queued
	// for the outbox then (remindSecond), once known that it may go.
	refused, err := d.Store.AddressRefused(context.WithoutCancel(ctx), addr)
	switch {
	case err != nil:
		log.Warn("reading whether the second reminder address refused failed", "err", err)
		return &MessageEvent{Kind: EventReminderFailed, Recipient: addr, Detail: ", not sent: " + errNotChecked}
	case refused:
		return &MessageEvent{Kind: EventReminderFailed, Recipient: addr, Detail: ", not sent: " + reasonSecondRefused}
	case author.ReminderAddressConfirmed():
		return nil
	}
	detail := ", not sent: " + reasonSecondWaiting
	if d.Confirmations != nil && author.ReminderAddressAskedAt.IsZero() {
		asked, err := d.Confirmations.AskReminderAddress(context.WithoutCancel(ctx), author)
		if err != nil {
			log.Warn("asking the second reminder address to confirm failed", "err", err)
		}
		if asked {
			detail += " (asked now)"
		}
	}
	return &MessageEvent{Kind: EventReminderFailed, Recipient: addr, Detail: detail}
}

// Why a copy to the second reminder address was not sent, as the timeline
// says it.
const (
	reasonSecondWaiting = "waiting for the address to confirm (the link sent to it)"
	reasonSecondRefused = "the address refused every email sent through this service"
	errNotChecked       = "whether the address refused could not be read; not sent rather than sent against its will"
)

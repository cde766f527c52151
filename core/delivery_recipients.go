package core

// Each recipient of a claimed message gets their own email, Message-ID,
// attempts and outcome: one failing address never holds back the others.

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Reasons a recipient's email failed for good.
const (
	// A refusal by the recipient's one-click link, or a complaint (marked
	// as spam) on the suppression list: both stop all further mail.
	reasonRefused     = "The recipient has refused all messages sent through this service, or marked one as spam."
	reasonRejected    = "The recipient's mail server refused the message: "
	reasonKeptFailing = "Its mail server kept failing for more than 3 days: "
	// reasonNotMade: the retries of an email that could not be made ran
	// out; no mail server was asked.
	reasonNotMade = "This service could not make the email for more than 3 days (a fault of the service, not of the message)."
)

type outcomeKind int

const (
	outcomeSent outcomeKind = iota
	outcomeRetry
	outcomeFailed
	outcomeRefused
)

// recipientOutcome is what a pass did for one recipient.
type recipientOutcome struct {
	index   int
	address string
	kind    outcomeKind
	err     string // the send's error, or the reason it failed for good
	notMade bool   // the email could not be made (errEmailNotMade)
}

// sendEach sends the message to each recipient whose turn it is: pending,
// with no retry waiting. A pass that stops leaves the rest pending.
func (d *Delivery) sendEach(ctx context.Context, read *sendRead, now time.Time, counts *passCounts, log *slog.Logger, accepted *acceptances) []recipientOutcome {
	m, author := read.cur, read.author
	var out []recipientOutcome
	rs := m.RecipientList()
	files, inline, err := d.emailFiles(ctx, m)
	if err != nil {
		d.passError(counts, log, err) // every recipient stays pending: due again at once
		return nil
	}
	for i := range rs {
		r := &rs[i]
		if r.settled() || r.NextAttemptAt.After(now) {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		o := recipientOutcome{index: i, address: r.Address}
		refused, err := d.refusedAddress(ctx, read, r.Address)
		if err != nil {
			d.passError(counts, log, err) // stays pending: due again at once
			continue
		}
		if refused {
			o.kind, o.err = outcomeRefused, reasonRefused
			out = append(out, o)
			continue
		}
		de := d.deliveryEmail(m, r, author, files, now)
		de.Attachments = inline
		email, err := d.Emails.Delivery(de)
		if err != nil {
			err, o.notMade = emailNotMade(log, err), true
		} else {
			email.ReturnPath = d.Bounces.Address(BounceRef{MessageID: m.ID, Recipient: i, Email: BounceDelivery, Address: r.Address})
			err = d.Mailer.Send(ctx, email)
		}
		switch {
		case err == nil:
			o.kind = outcomeSent
			d.metrics().Late(d.Clock.Now().Sub(m.SendDate))
			if laterDue(rs, i, now) {
				// The server took it: recorded at once, not after the
				// other recipients' sends (acceptances).
				accepted.add(o)
			}
		case ctx.Err() != nil:
			// Stopped mid-send: whether the server took it is unknown, and
			// the next pass sends it again with the same Message-ID.
			continue
		case isTemporary(err):
			o.kind, o.err = outcomeRetry, sendReason(err)
		default:
			o.kind, o.err = outcomeFailed, reasonRejected+sendReason(err)
		}
		if err != nil && !o.notMade {
			// The author reads the server's reply (sendReason); the log
			// gets all of it, our relay's address too.
			log.Warn("send failed", "recipient", i, "err", MaskEmails(err.Error()))
		}
		out = append(out, o)
	}
	return out
}

// laterDue reports whether a recipient after i is due in this pass.
func laterDue(rs []Recipient, i int, now time.Time) bool {
	for j := i + 1; j < len(rs); j++ {
		if !rs[j].settled() && !rs[j].NextAttemptAt.After(now) {
			return true
		}
	}
	return false
}

// recipientItemID is the key of the outbox item (webhook call or failure
// notice) that follows recipient i of message id: a recipient is sent or
// failed, not both, so one key each. The first's is the message's id.
func recipientItemID(id string, i int) string {
	if i == 0 {
		return id
	}
	return fmt.Sprintf("%s.%d", id, i)
}

// settleRecipients records the outcomes in one transaction. A sent email is
// recorded whoever holds the claim now (it went out); a failure only under
// this pass's claim. The message ends delivered when every recipient is
// settled and one was sent, failed when none was. The sent outcomes that
// accepted recorded already (while later recipients were being sent) are
// settled and skipped here; its tally joins this one.
func (d *Delivery) settleRecipients(claimed *Message, outcomes []recipientOutcome, now time.Time, log *slog.Logger, counts *passCounts, accepted *acceptances) {
	var tally PassResult
	var reasons []string // of the failures for good, for the log (which masks addresses)
	// The early settlements end first (one still waiting out its delay
	// never starts): two settlements of one message never race.
	early := accepted.wait()
	_, err := d.settle(claimed.ID, func(m *Message) ([]*OutboxItem, error) {
		var items []*OutboxItem
		items, tally, reasons = applyOutcomes(m, ownsClaim(m, claimed), outcomes, now, true)
		return items, nil
	})
	if err != nil && ErrorCode(err) != EMessageNotFound {
		// What was sent but not recorded goes out again with the same
		// Message-IDs when the lease expires.
		d.passError(counts, log, err)
		counts.add(func(r *PassResult) { r.Delivered += early })
		return
	}
	tally.Delivered += early
	d.countOutcomes(outcomes, tally)
	switch {
	case tally.Failed > 0:
		log.Warn("delivery failed for good", "sent", tally.Delivered, "failed", tally.Failed, "retrying", tally.Retried,
			"reason", strings.Join(reasons, "; "))
	case tally.Retried > 0:
		log.Warn("delivery failed for some recipients, will retry", "sent", tally.Delivered, "retrying", tally.Retried)
	default:
		log.Info("delivered", "recipients", tally.Delivered)
	}
	counts.add(func(r *PassResult) {
		r.Delivered += tally.Delivered
		r.Retried += tally.Retried
		r.Failed += tally.Failed
	})
}

// countOutcomes tells the metrics a settlement's tally: of its failures
// for good, those its recipient refused and those the mail server refused
// (bounced) are told apart from the retries that ran out.
func (d *Delivery) countOutcomes(outcomes []recipientOutcome, tally PassResult) {
	refused, bounced := 0, 0
	for _, o := range outcomes {
		switch {
		case o.kind == outcomeRefused:
			refused++
		case o.kind == outcomeFailed && !o.notMade:
			bounced++
		}
	}
	refused, bounced = min(refused, tally.Failed), min(bounced, tally.Failed-min(refused, tally.Failed))
	m := d.metrics()
	for _, c := range [...]struct {
		outcome string
		n       int
	}{{OutcomeSent, tally.Delivered}, {OutcomeRetried, tally.Retried}, {OutcomeRefused, refused},
		{OutcomeBounced, bounced}, {OutcomeFailed, tally.Failed - refused - bounced}} {
		if c.n > 0 {
			m.Sent(KindDelivery, c.outcome, c.n)
		}
	}
}

// applyOutcomes writes outcomes into m, read under the settlement's
// transaction, and returns the outbox items they start, what it applied and
// the reasons of the failures for good; a recipient settled already (by an
// earlier settlement of the same send) is skipped. owned tells whether m
// is still under this pass's claim: a failure is recorded only then, a sent
// email always. finish ends the claim's round (finishRound) when it is
// still this pass's or every recipient is settled.
func applyOutcomes(m *Message, owned bool, outcomes []recipientOutcome, now time.Time, finish bool) (items []*OutboxItem, tally PassResult, reasons []string) {
	rs := m.editRecipients()
	for _, o := range outcomes {
		if o.index >= len(rs) || rs[o.index].Address != o.address || rs[o.index].settled() {
			continue
		}
		r := &rs[o.index]
		kind, reason := o.kind, o.err
		if kind == outcomeSent {
			r.Status, r.SentAt, r.LastError, r.NextAttemptAt = RecipientSent, now, "", time.Time{}
			m.record(now, EventSent, "", MessageEvent{Recipient: r.Address})
			tally.Delivered++
			if m.WebhookURL != "" {
				items = append(items, &OutboxItem{ID: recipientItemID(m.ID, o.index), MessageID: m.ID, Owner: m.Owner,
					URL: m.WebhookURL, Recipient: r.Address, DeliveredAt: now, NextAttemptAt: now})
			}
			continue
		}
		if !owned {
			continue
		}
		if kind == outcomeRetry {
			if r.Attempts < len(RetryDelays) {
				r.NextAttemptAt, r.LastError = now.Add(RetryDelays[r.Attempts]), o.err
				r.Attempts++
				m.record(now, EventRetrying, "", MessageEvent{Recipient: r.Address, Detail: o.err, NextAttemptAt: r.NextAttemptAt})
				tally.Retried++
				continue
			}
			kind, reason = outcomeFailed, reasonKeptFailing+o.err
			if o.notMade {
				reason = reasonNotMade
			}
		}
		r.Status, r.LastError, r.NextAttemptAt = RecipientFailed, reason, time.Time{}
		event := EventFailed
		if kind == outcomeRefused {
			r.Status, event = RecipientRefused, EventRefused
		}
		m.record(now, event, "", MessageEvent{Recipient: r.Address, Detail: reason})
		tally.Failed++
		reasons = append(reasons, reason)
		// The author's notice is queued with the outcome, so a mail
		// server that is down for it too only delays it.
		items = append(items, &OutboxItem{ID: recipientItemID(m.ID, o.index), Kind: OutboxFailureNotice,
			MessageID: m.ID, Owner: m.Owner, Recipient: r.Address, NextAttemptAt: now})
	}
	if finish && (owned || allSettled(rs)) {
		m.finishRound(now)
	}
	return items, tally, reasons
}

func allSettled(rs []Recipient) bool {
	for i := range rs {
		if !rs[i].settled() {
			return false
		}
	}
	return true
}

// finishRound ends a claim: the message waits for its recipients still
// pending (from the earliest retry), or is delivered when one was sent, or
// failed. The message's Attempts, NextAttemptAt and LastError sum up its
// recipients'.
func (m *Message) finishRound(now time.Time) {
	rs := m.RecipientList()
	pending, sent := false, false
	var next time.Time
	attempts, lastErr, failedErr := 0, "", ""
	for i := range rs {
		r := &rs[i]
		attempts = max(attempts, r.Attempts)
		switch r.Status {
		case RecipientSent:
			sent = true
		case RecipientFailed, RecipientRefused:
			if failedErr == "" {
				failedErr = r.LastError
			}
		default:
			pending = true
			if r.LastError != "" {
				lastErr = r.LastError
			}
			if next.IsZero() || r.NextAttemptAt.Before(next) {
				next = r.NextAttemptAt
			}
		}
	}
	m.LeaseUntil, m.Attempts = time.Time{}, attempts
	switch {
	case pending:
		m.Status, m.NextAttemptAt, m.LastError = m.waiting(), next, lastErr
	case sent:
		if m.Status != StatusDelivered {
			m.Status, m.DeliveredAt = StatusDelivered, now
		}
		m.NextAttemptAt, m.LastError = time.Time{}, ""
	default:
		m.Status, m.NextAttemptAt, m.LastError = StatusFailed, time.Time{}, failedErr
	}
}

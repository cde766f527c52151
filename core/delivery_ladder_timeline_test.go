package core_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// ladderMessage is a 1-month message made on 2026-01-01 at 08:00 UTC by
// ada@example.com (UTC, on plan) with the reminder ladder steps and second
// reminder address second.
func ladderMessage(t *testing.T, plan core.PlanID, steps []string, second string) (*deliveryEnv, *core.Message) {
	t.Helper()
	e := MustDeliveryEnv(t, time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC))
	u := e.MustUser(t, "ada@example.com", "UTC", plan)
	e.setLadder(t, u.ID, steps, second)
	return e, e.mustMessage(t, u.ID, core.Interval1M)
}

// queuedCopy is an author with a 3-day step and a second reminder address,
// and a message whose 10-day reminder went out to the author while its
// copy was refused for now: queued in the outbox, the copy address still
// refusing.
func queuedCopy(t *testing.T) (*deliveryEnv, *core.Message) {
	t.Helper()
	e, m := ladderMessage(t, core.PlanPro, []string{"3d"}, "partner@example.com")
	e.SMTP.Reject("partner@example.com", 451, "mailbox busy, try later")
	e.Clock.Set(m.SendDate.Add(-240 * time.Hour))
	e.pass(t, core.PassResult{Reminded: 1})
	e.nextEmail(t, "ada@example.com")
	return e, m
}

// A copy to the second address that fails for a while is retried by the
// outbox, with the same email, while it is still true; a copy whose date
// the author postponed meanwhile is dropped, never sent late or wrong.
func TestReminderCopyIsRetriedWhileTrue(t *testing.T) {
	e, m := queuedCopy(t)
	e.NoMoreEmail(t)
	e.SMTP.Accept("partner@example.com")
	e.Clock.Add(time.Minute) // the first retry
	e.pass(t, core.PassResult{})
	p, _ := e.nextEmail(t, "partner@example.com")
	ladderStep(t, p, "10d", false)
	e.Clock.Add(time.Hour)
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t) // sent once

	// The 3-day reminder's copy fails too; the author postpones before its
	// retry: the copy, which names the old date, is dropped.
	e.SMTP.Reject("partner@example.com", 451, "mailbox busy, try later")
	e.Clock.Set(m.SendDate.Add(-72 * time.Hour))
	e.pass(t, core.PassResult{Reminded: 1})
	e.nextEmail(t, "ada@example.com")
	if pending, _, err := e.DB.CountOutbox(e.Ctx); err != nil || pending != 1 {
		t.Fatalf("the failed copy was not queued: %d waiting, %v", pending, err)
	}
	e.SMTP.Accept("partner@example.com")
	if _, err := e.Postpone.Postpone(e.Ctx, m.ID, m.PostponeCode, "192.0.2.7"); err != nil {
		t.Fatal(err)
	}
	e.Clock.Add(time.Minute)
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
	if pending, failed, err := e.DB.CountOutbox(e.Ctx); err != nil || pending != 0 || failed != 0 {
		t.Fatalf("outbox after the copies: %d waiting, %d failed, %v", pending, failed, err)
	}
}

// A reminder that fails is in the message's timeline, as the author's
// history shows it: the author's own refused for good, a copy refused, a
// copy queued for a retry (with its time), then sent on it or failed for
// good there.
func TestAFailedReminderIsInTheTimeline(t *testing.T) {
	e, m := ladderMessage(t, core.PlanPro, []string{"3d", "1d"}, "partner@example.com")

	// 10 days before: the author's reminder is refused for good.
	e.SMTP.Reject("ada@example.com", 550, "no such mailbox")
	e.Clock.Set(m.SendDate.Add(-240 * time.Hour))
	e.pass(t, core.PassResult{Failed: 1})
	e.NoMoreEmail(t)
	e.SMTP.Accept("ada@example.com")

	// 3 days before: the author's goes out, the copy is refused for good.
	e.SMTP.Reject("partner@example.com", 550, "no such mailbox")
	e.Clock.Set(m.SendDate.Add(-72 * time.Hour))
	e.pass(t, core.PassResult{Reminded: 1})
	e.nextEmail(t, "ada@example.com")

	// 1 day before: the copy fails for now, is queued, and is sent on its
	// retry.
	e.SMTP.Reject("partner@example.com", 451, "mailbox busy, try later")
	e.Clock.Set(m.SendDate.Add(-24 * time.Hour))
	e.pass(t, core.PassResult{Reminded: 1})
	e.nextEmail(t, "ada@example.com")
	retryAt := e.Clock.Now().Add(core.RetryDelays[0])
	e.SMTP.Accept("partner@example.com")
	e.Clock.Set(retryAt)
	e.pass(t, core.PassResult{})
	e.nextEmail(t, "partner@example.com")
	e.NoMoreEmail(t)

	if got, want := reminderLines(t, e, m.ID), []string{
		"reminder-failed ada@example.com: reminder 10d, 1 of 3, refused for good: 550 5.0.0 no such mailbox",
		"reminded ada@example.com: reminder 3d, 2 of 3",
		"reminder-failed partner@example.com: reminder 3d, 2 of 3, a copy to the second reminder address, failed: 550 5.0.0 no such mailbox",
		"reminded ada@example.com: reminder 1d, 3 of 3",
		"reminder-failed partner@example.com: reminder 1d, 3 of 3, a copy to the second reminder address, failed, will retry: 451 4.0.0 mailbox busy, try later (next " + retryAt.Format(time.RFC3339) + ")",
		"reminded partner@example.com: a copy to the second reminder address, sent on a retry",
	}; got != strings.Join(want, "\n") {
		t.Fatalf("reminders in the timeline:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}

	// Another message: its copy, queued, is refused for good on its retry
	// (the first message is delivered meanwhile).
	m2 := e.mustMessage(t, m.Owner, core.Interval1M)
	e.SMTP.Reject("partner@example.com", 451, "mailbox busy, try later")
	e.Clock.Set(m2.SendDate.Add(-240 * time.Hour))
	e.pass(t, core.PassResult{Delivered: 1, Reminded: 1})
	e.nextEmail(t, "charles@example.com")
	e.nextEmail(t, "ada@example.com")
	e.SMTP.Reject("partner@example.com", 550, "no such mailbox")
	e.Clock.Add(core.RetryDelays[0])
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
	if got := reminderLines(t, e, m2.ID); !strings.HasSuffix(got, "\nreminder-failed partner@example.com: a copy to the second reminder address, failed for good: 550 5.0.0 no such mailbox") {
		t.Fatalf("the second message's timeline:\n%s", got)
	}
}

// TestARetriedReminderIsInTheTimelineOnce: the author's reminder refused
// for now is in the timeline, with when it is tried again, once for a run of
// retries (every five minutes, for as long as the mail server refuses it),
// and again for a later step's run.
func TestARetriedReminderIsInTheTimelineOnce(t *testing.T) {
	e, m := ladderMessage(t, core.PlanPro, []string{"3d", "1d"}, "")

	// 10 days before: refused for now twice, then sent.
	e.SMTP.Reject("ada@example.com", 451, "mailbox busy, try later")
	e.Clock.Set(m.SendDate.Add(-240 * time.Hour))
	firstRetry := e.Clock.Now().Add(5 * time.Minute)
	e.pass(t, core.PassResult{Retried: 1})
	e.Clock.Set(firstRetry)
	e.pass(t, core.PassResult{Retried: 1})
	e.NoMoreEmail(t)
	e.SMTP.Accept("ada@example.com")
	e.Clock.Add(5 * time.Minute)
	e.pass(t, core.PassResult{Reminded: 1})
	e.nextEmail(t, "ada@example.com")

	// 3 days before: refused for now at every retry, until past the next
	// step's time.
	e.SMTP.Reject("ada@example.com", 451, "mailbox busy, try later")
	e.Clock.Set(m.SendDate.Add(-72 * time.Hour))
	secondRetry := e.Clock.Now().Add(5 * time.Minute)
	e.pass(t, core.PassResult{Retried: 1})
	for _, at := range []time.Time{secondRetry, secondRetry.Add(5 * time.Minute), m.SendDate.Add(-24 * time.Hour)} {
		e.Clock.Set(at)
		e.pass(t, core.PassResult{Retried: 1})
	}
	e.NoMoreEmail(t)

	if got, want := reminderLines(t, e, m.ID), []string{
		"reminder-failed ada@example.com: reminder 10d, 1 of 3, failed, will retry: 451 4.0.0 mailbox busy, try later (next " + firstRetry.Format(time.RFC3339) + ")",
		"reminded ada@example.com: reminder 10d, 1 of 3",
		"reminder-failed ada@example.com: reminder 3d, 2 of 3, failed, will retry: 451 4.0.0 mailbox busy, try later (next " + secondRetry.Format(time.RFC3339) + ")",
	}; got != strings.Join(want, "\n") {
		t.Fatalf("reminders in the timeline:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// TestACopyStoppedByThePassIsQueued: a pass stopped (the server shutting
// down) while the author's reminder is in flight lets that send run to its
// end (mailer.SMTP.Send: cutting it short would leave unknown whether the
// server took it) and records it as sent; the copy to the second reminder
// address, not started, is queued for a retry, which sends it once.
func TestACopyStoppedByThePassIsQueued(t *testing.T) {
	e, m := ladderMessage(t, core.PlanPro, []string{"3d"}, "partner@example.com")
	e.Clock.Set(m.SendDate.Add(-240 * time.Hour))
	retryAt := e.Clock.Now().Add(core.RetryDelays[0])

	// Each email's end of data is answered after 1.5 s: the pass is
	// stopped once the author's DATA has arrived, well before its reply.
	e.SMTP.SetDelay(1500 * time.Millisecond)
	sent := e.SMTP.Commands("DATA") // the second address's confirmation
	ctx, stop := context.WithCancel(e.Ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Delivery.Run(ctx) // its error is the stop's
	}()
	for deadline := time.Now().Add(10 * time.Second); e.SMTP.Commands("DATA") == sent; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the author's reminder did not reach the mail server in 10 s")
		}
	}
	stop()
	<-done
	e.SMTP.SetDelay(0)
	e.nextEmail(t, "ada@example.com")
	e.NoMoreEmail(t)

	lines := strings.Split(reminderLines(t, e, m.ID), "\n")
	queued := "reminder-failed partner@example.com: reminder 10d, 1 of 2, a copy to the second reminder address, failed, will retry: "
	if len(lines) != 2 || lines[0] != "reminded ada@example.com: reminder 10d, 1 of 2" ||
		!strings.HasPrefix(lines[1], queued) || !strings.HasSuffix(lines[1], " (next "+retryAt.Format(time.RFC3339)+")") {
		t.Fatalf("reminders in the timeline after the stop:\n%s", strings.Join(lines, "\n"))
	}

	e.Clock.Set(retryAt)
	e.pass(t, core.PassResult{})
	p, _ := e.nextEmail(t, "partner@example.com")
	ladderStep(t, p, "10d", false)
	e.NoMoreEmail(t)
	if got := reminderLines(t, e, m.ID); !strings.HasSuffix(got, "\nreminded partner@example.com: a copy to the second reminder address, sent on a retry") {
		t.Fatalf("reminders in the timeline after the retry:\n%s", got)
	}
}

// reminderLines are the reminders in message id's timeline, one line each.
func reminderLines(t *testing.T, e *deliveryEnv, id string) string {
	t.Helper()
	events, err := e.DB.ListMessageEvents(e.Ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range events {
		if ev.Kind == core.EventReminded || ev.Kind == core.EventReminderFailed {
			// The mail server's reply as the author reads it: code,
			// enhanced code, text, never the relay's address.
			line := string(ev.Kind) + " " + ev.Recipient + ": " + ev.Detail
			if !ev.NextAttemptAt.IsZero() {
				line += " (next " + ev.NextAttemptAt.Format(time.RFC3339) + ")"
			}
			got = append(got, line)
		}
	}
	return strings.Join(got, "\n")
}

// settleFailingStore fails the next fail settlements of outbox items, as a
// database that is briefly gone would.
type settleFailingStore struct {
	core.DeliveryStore
	fail int
}

func (s *settleFailingStore) SettleOutbox(ctx context.Context, it *core.OutboxItem, done bool) error {
	if s.fail > 0 {
		s.fail--
		return errors.New("the database is gone for a moment")
	}
	return s.DeliveryStore.SettleOutbox(ctx, it, done)
}

// A queued copy whose outcome could not be stored is worked again once its
// lease ends; the timeline tells its outcome once, when it is stored.
func TestAnOutcomeNotStoredIsNotInTheTimeline(t *testing.T) {
	e, m := queuedCopy(t)
	e.SMTP.Accept("partner@example.com")
	e.Delivery.Store = &settleFailingStore{DeliveryStore: e.DB, fail: 1}
	e.Clock.Add(core.RetryDelays[0])
	e.Delivery.Run(e.Ctx) // sent; its outcome is not stored
	e.nextEmail(t, "partner@example.com")
	e.Clock.Add(time.Hour) // past the item's lease: worked again
	e.pass(t, core.PassResult{})
	e.nextEmail(t, "partner@example.com")
	e.NoMoreEmail(t)
	if got := reminderLines(t, e, m.ID); strings.Count(got, "sent on a retry") != 1 {
		t.Fatalf("the timeline:\n%s", got)
	}
}

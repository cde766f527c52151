package core_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

func ladderPtr[T any](v T) *T { return &v }

// setLadder sets the author's ladder (and second address, confirmed) as
// the profile form does.
func (e *deliveryEnv) setLadder(tb testing.TB, uid string, steps []string, second string) *core.SessionUser {
	tb.Helper()
	su, err := e.Auth.UpdateProfile(e.As(uid), core.ProfileUpdate{ReminderLadder: &steps, ReminderAddress: &second})
	if err != nil {
		tb.Fatal(err)
	}
	if second != "" {
		// The second address agrees to get the reminders: nothing goes
		// to it before (reminder_address_test.go).
		e.ConfirmReminderAddress(tb, strings.TrimSpace(second))
	}
	return su
}

// ladderStep checks one reminder email: its step in its own postpone link,
// and whether it says it is the last chance.
func ladderStep(tb testing.TB, p *smtptest.Parsed, step string, last bool) (id, code string) {
	tb.Helper()
	id, code = reminderLink(tb, p)
	u, _ := url.Parse(p.Link(baseURL + "/postpone/"))
	if got := u.Query().Get("step"); got != step {
		tb.Fatalf("reminder link's step %q, want %q", got, step)
	}
	says := strings.Contains(p.Subject, "Last chance") && strings.Contains(p.Text, "last chance") &&
		strings.Contains(p.HTML, "last chance")
	if says != last {
		tb.Fatalf("step %s: last chance %v, want %v: %q\n%s", step, says, last, p.Subject, p.Text)
	}
	return id, code
}

// An author in Berlin with the whole ladder and a second address; the
// sendDate is the Monday after the last Sunday of October (clocks go back):
// each step comes once, at its instant, to both addresses, with its own
// link; the last says so; the second address never gets the delivery.
func TestReminderLadderAcrossDST(t *testing.T) {
	berlin := core.LoadLocation("Europe/Berlin")
	e := MustDeliveryEnv(t, time.Date(2026, 9, 26, 10, 0, 0, 0, berlin))
	u := e.MustUser(t, "ada@example.com", "Europe/Berlin", core.PlanPro)
	su := e.setLadder(t, u.ID, []string{"2h", "3d", "1d"}, "partner@sms.example.com")
	if strings.Join(su.ReminderLadder, ",") != "3d,1d,2h" || su.ReminderAddress != "partner@sms.example.com" {
		t.Fatalf("session user: %v %q", su.ReminderLadder, su.ReminderAddress)
	}
	m := e.mustMessage(t, u.ID, core.Interval1M)
	if want := time.Date(2026, 10, 26, 10, 0, 0, 0, berlin); !m.SendDate.Equal(want) {
		t.Fatalf("sendDate %v, want %v", m.SendDate, want)
	}
	steps := []struct {
		name string
		off  time.Duration
	}{{"10d", 240 * time.Hour}, {"3d", 72 * time.Hour}, {"1d", 24 * time.Hour}, {"2h", 2 * time.Hour}}
	for i, s := range steps {
		at := m.SendDate.Add(-s.off)
		e.Clock.Set(at.Add(-time.Minute))
		e.pass(t, core.PassResult{})
		e.NoMoreEmail(t)
		e.Clock.Set(at)
		e.pass(t, core.PassResult{Reminded: 1})
		last := i == len(steps)-1
		p, _ := e.nextEmail(t, "ada@example.com")
		id, code := ladderStep(t, p, s.name, last)
		if id != m.ID || code != m.PostponeCode {
			t.Fatalf("step %s links to %s %s", s.name, id, code)
		}
		p2, _ := e.nextEmail(t, "partner@sms.example.com")
		ladderStep(t, p2, s.name, last)
		e.Clock.Add(time.Minute)
		e.pass(t, core.PassResult{}) // once per sendDate
		e.NoMoreEmail(t)
	}
	// The 3-day step is 72 hours before: across the change, 11:00 summer time.
	if got := m.SendDate.Add(-72 * time.Hour).In(berlin); got.Hour() != 11 {
		t.Fatalf("3-day step at %v", got)
	}
	e.Clock.Set(m.SendDate)
	e.pass(t, core.PassResult{Delivered: 1})
	e.nextEmail(t, "charles@example.com")
	e.NoMoreEmail(t) // the second address gets the reminders only

	// The timeline shows each reminder to the author and its copy to the
	// second address.
	events, err := e.DB.ListMessageEvents(e.Ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	var reminded []string
	for _, ev := range events {
		if ev.Kind == core.EventReminded {
			reminded = append(reminded, ev.Recipient+": "+ev.Detail)
		}
	}
	want := []string{
		"ada@example.com: reminder 10d, 1 of 4", "partner@sms.example.com: reminder 10d, 1 of 4, a copy to the second reminder address",
		"ada@example.com: reminder 3d, 2 of 4", "partner@sms.example.com: reminder 3d, 2 of 4, a copy to the second reminder address",
		"ada@example.com: reminder 1d, 3 of 4", "partner@sms.example.com: reminder 1d, 3 of 4, a copy to the second reminder address",
		"ada@example.com: reminder 2h, 4 of 4", "partner@sms.example.com: reminder 2h, 4 of 4, a copy to the second reminder address",
	}
	if strings.Join(reminded, "\n") != strings.Join(want, "\n") {
		t.Fatalf("reminders in the timeline:\n%s", strings.Join(reminded, "\n"))
	}
}

// A sendDate on the 1st of a month with 3d and 1d: a postpone between the
// steps starts the ladder over for the new date; the old date's steps pass
// quietly.
func TestReminderLadderPostponeResetsAtMonthEnd(t *testing.T) {
	e, m := ladderMessage(t, core.PlanStarter, []string{"3d", "1d"}, "")
	if m.SendDate.Day() != 1 {
		t.Fatalf("sendDate %v", m.SendDate)
	}
	for _, s := range []struct {
		name string
		off  time.Duration
	}{{"10d", 240 * time.Hour}, {"3d", 72 * time.Hour}} {
		e.Clock.Set(m.SendDate.Add(-s.off))
		e.pass(t, core.PassResult{Reminded: 1})
		p, _ := e.nextEmail(t, "ada@example.com")
		ladderStep(t, p, s.name, false)
	}
	// The 3-day reminder's link, followed between the steps.
	e.Clock.Add(time.Hour)
	newDate, err := e.Postpone.Postpone(e.Ctx, m.ID, m.PostponeCode, "192.0.2.7")
	if err != nil {
		t.Fatal(err)
	}
	if got := e.find(t, m.ID); got.RemindersSent != 0 || !got.RemindAt.Equal(newDate.Add(-240*time.Hour)) {
		t.Fatalf("after postpone: sent %d remindAt %v", got.RemindersSent, got.RemindAt)
	}
	e.Clock.Set(m.SendDate.Add(-24 * time.Hour)) // the old 1-day step
	e.pass(t, core.PassResult{})
	e.Clock.Set(m.SendDate)
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
	for i, s := range []struct {
		name string
		off  time.Duration
	}{{"10d", 240 * time.Hour}, {"3d", 72 * time.Hour}, {"1d", 24 * time.Hour}} {
		e.Clock.Set(newDate.Add(-s.off))
		e.pass(t, core.PassResult{Reminded: 1})
		p, _ := e.nextEmail(t, "ada@example.com")
		ladderStep(t, p, s.name, i == 2)
	}
	e.Clock.Set(newDate.Add(-2 * time.Hour)) // not chosen: nothing
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
	e.Clock.Set(newDate)
	e.pass(t, core.PassResult{Delivered: 1})
	e.nextEmail(t, "charles@example.com")
}

// The default (no ladder) is one reminder, not called the last chance.
func TestReminderDefaultIsOneReminder(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.mustUser(t, "ada@example.com", "UTC")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	e.Clock.Set(m.SendDate.Add(-240 * time.Hour))
	e.pass(t, core.PassResult{Reminded: 1})
	p, _ := e.nextEmail(t, "ada@example.com")
	ladderStep(t, p, "10d", false)
	for _, off := range []time.Duration{72 * time.Hour, 24 * time.Hour, 2 * time.Hour} {
		e.Clock.Set(m.SendDate.Add(-off))
		e.pass(t, core.PassResult{})
	}
	e.NoMoreEmail(t)
}

// The settings' rules: steps among 3d, 1d, 2h; a valid second address; a
// second address is Pro's; bad input changes nothing.
func TestReminderLadderSettings(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	free := e.mustUser(t, "ada@example.com", "UTC")
	ctx := e.As(free.ID)
	_, err := e.Auth.UpdateProfile(ctx, core.ProfileUpdate{ReminderLadder: &[]string{"3d", "5d"}})
	wantFields(t, err, map[string]string{"reminderLadder": `Reminder steps must be among "3d", "1d" and "2h"`})
	_, err = e.Auth.UpdateProfile(ctx, core.ProfileUpdate{ReminderAddress: ladderPtr("not-an-address")})
	wantFields(t, err, map[string]string{"reminderAddress": "Please enter a valid email address"})
	_, err = e.Auth.UpdateProfile(ctx, core.ProfileUpdate{ReminderAddress: ladderPtr("partner@example.com")})
	wantCode(t, err, core.EPlanLimit)
	if u, _ := e.DB.FindUserByID(e.Ctx, free.ID); u.ReminderLadder != 0 || u.ReminderAddress != "" {
		t.Fatalf("refused settings were kept: %v %q", u.ReminderLadder.Names(), u.ReminderAddress)
	}
	su := e.setLadder(t, free.ID, []string{"1d"}, "") // the ladder itself is for every plan
	if strings.Join(su.ReminderLadder, ",") != "1d" {
		t.Fatalf("ladder %v", su.ReminderLadder)
	}
	pro := e.MustUser(t, "bob@example.com", "UTC", core.PlanPro)
	if su := e.setLadder(t, pro.ID, []string{}, " partner@example.com "); su.ReminderAddress != "partner@example.com" {
		t.Fatalf("second address %q", su.ReminderAddress)
	}
	if su := e.setLadder(t, pro.ID, []string{}, ""); su.ReminderAddress != "" {
		t.Fatalf("second address not removed: %q", su.ReminderAddress)
	}
}

// A hold over the 10-day step: the message's fresh cycle after the hold
// runs the whole ladder again for the new sendDate.
func TestReminderLadderAfterAHold(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.mustUser(t, "ada@example.com", "UTC")
	e.setLadder(t, u.ID, []string{"3d"}, "")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	until := m.SendDate.Add(-5 * 24 * time.Hour)
	if _, err := e.Messages.Hold(e.As(u.ID), until); err != nil {
		t.Fatal(err)
	}
	e.Clock.Set(m.SendDate.Add(-240 * time.Hour)) // the 10-day step, held back
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
	newDate := until.Add(core.ReminderLeadTime)
	if got := e.find(t, m.ID); !got.SendDate.Equal(newDate) || got.RemindersSent != 0 {
		t.Fatalf("after the hold's pass: sendDate %v sent %d", got.SendDate, got.RemindersSent)
	}
	e.Clock.Set(until.Add(-time.Minute)) // still held: nothing
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
	e.Clock.Set(until)
	e.pass(t, core.PassResult{Reminded: 1})
	p, _ := e.nextEmail(t, "ada@example.com")
	ladderStep(t, p, "10d", false)
	e.Clock.Set(newDate.Add(-72 * time.Hour))
	e.pass(t, core.PassResult{Reminded: 1})
	p, _ = e.nextEmail(t, "ada@example.com")
	ladderStep(t, p, "3d", true)
	e.Clock.Set(newDate)
	e.pass(t, core.PassResult{Delivered: 1})
	e.nextEmail(t, "charles@example.com")
}

// A second address kept after the plan ended rests: the author alone is
// reminded.
func TestReminderSecondAddressRestsAfterADowngrade(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.MustUser(t, "ada@example.com", "UTC", core.PlanPro)
	e.setLadder(t, u.ID, nil, "partner@sms.example.com")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	if _, err := e.DB.UpdateUser(e.Ctx, u.ID, func(u *core.User) error {
		u.StripeSubscriptionStatus = "canceled"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.Clock.Set(m.SendDate.Add(-240 * time.Hour))
	e.pass(t, core.PassResult{Reminded: 1})
	e.nextEmail(t, "ada@example.com")
	e.NoMoreEmail(t)
}

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

package core_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// brokenEmails fails the next deliveries and reminders it is asked to
// compose, as a template that cannot be executed would.
type brokenEmails struct {
	core.Emails
	deliveries, reminders, notices int
}

var errTemplate = errors.New(`template: delivery.html:3:7: executing "delivery.html" at <.Internal>: boom`)

func (b *brokenEmails) Delivery(d core.DeliveryEmail) (*core.Email, error) {
	if b.deliveries > 0 {
		b.deliveries--
		return nil, errTemplate
	}
	return b.Emails.Delivery(d)
}

func (b *brokenEmails) Reminder(d core.ReminderEmail) (*core.Email, error) {
	if b.reminders > 0 {
		b.reminders--
		return nil, errTemplate
	}
	return b.Emails.Reminder(d)
}

func (b *brokenEmails) DeliveryFailed(d core.DeliveryFailedEmail) (*core.Email, error) {
	if b.notices > 0 {
		b.notices--
		return nil, errTemplate
	}
	return b.Emails.DeliveryFailed(d)
}

// brokenEnv is a delivery environment whose emails fail as broken says,
// with one message of a new author; without reminders unless asked.
func brokenEnv(t *testing.T, broken brokenEmails, reminders bool) (*deliveryEnv, *core.Message) {
	e := MustDeliveryEnv(t, march1)
	if !reminders {
		e.Delivery.Reminders = nil
	}
	broken.Emails = e.Delivery.Emails
	e.Delivery.Emails = &broken
	u := e.mustUser(t, "ada@example.com", "")
	return e, e.mustMessage(t, u.ID, core.Interval1M)
}

// lastEvent is the newest entry of the message's timeline.
func (e *deliveryEnv) lastEvent(tb testing.TB, id string) *core.MessageEvent {
	tb.Helper()
	events, err := e.DB.ListMessageEvents(e.Ctx, id)
	if err != nil || len(events) == 0 {
		tb.Fatalf("timeline: %v, %d entries", err, len(events))
	}
	return events[len(events)-1]
}

// An email that cannot be composed (a bug of the server, not of the
// message) is not a refusal for good: the delivery is retried on its
// schedule and goes out once it can be made; the timeline says it will be
// retried, without the template's words.
func TestADeliveryWhoseEmailCannotBeMadeIsRetried(t *testing.T) {
	e, m := brokenEnv(t, brokenEmails{deliveries: 1}, false)
	e.Clock.Set(m.SendDate)
	e.pass(t, core.PassResult{Retried: 1})
	e.NoMoreEmail(t)
	got := e.find(t, m.ID)
	if got.Status != core.StatusScheduled || got.Attempts != 1 || !got.NextAttemptAt.Equal(m.SendDate.Add(core.RetryDelays[0])) {
		t.Fatalf("after the failure: %s, attempts %d, next %v", got.Status, got.Attempts, got.NextAttemptAt)
	}
	ev := e.lastEvent(t, m.ID)
	if ev.Kind != core.EventRetrying || !strings.Contains(ev.Detail, "the email could not be made") || strings.Contains(ev.Detail, "template") {
		t.Fatalf("timeline: %s %q", ev.Kind, ev.Detail)
	}
	e.Clock.Add(core.RetryDelays[0])
	e.pass(t, core.PassResult{Delivered: 1})
	if got := e.find(t, m.ID); got.Status != core.StatusDelivered {
		t.Fatalf("after the retry: %s", got.Status)
	}
}

// When the email still cannot be made after the whole retry schedule, the
// recipient fails with a reason that blames the service, not a mail server
// that was never asked, and the author is told so.
func TestAnEmailNeverMadeFailsAsTheServicesFault(t *testing.T) {
	e, m := brokenEnv(t, brokenEmails{deliveries: len(core.RetryDelays) + 1}, false)
	e.Clock.Set(m.SendDate)
	for _, delay := range core.RetryDelays {
		e.pass(t, core.PassResult{Retried: 1})
		e.Clock.Add(delay)
	}
	e.pass(t, core.PassResult{Failed: 1})
	got := e.find(t, m.ID)
	if got.Status != core.StatusFailed || !strings.Contains(got.LastError, "could not make the email") || strings.Contains(got.LastError, "mail server") {
		t.Fatalf("failed %s: %q", got.Status, got.LastError)
	}
	if p, _ := e.nextEmail(t, "ada@example.com"); !strings.Contains(p.Text, "could not make the email") {
		t.Fatalf("the author's notice:\n%s", p.Text)
	}
}

// The same for the author's reminder: retried a few minutes later, not
// skipped, so the author is still reminded before the delivery.
func TestAReminderWhoseEmailCannotBeMadeIsRetried(t *testing.T) {
	e, m := brokenEnv(t, brokenEmails{reminders: 1}, true)
	e.Clock.Set(m.SendDate.Add(-240 * time.Hour))
	e.pass(t, core.PassResult{Retried: 1})
	e.NoMoreEmail(t)
	if got := e.find(t, m.ID); got.RemindersSent != 0 {
		t.Fatalf("the reminder counts as sent: %d", got.RemindersSent)
	}
	ev := e.lastEvent(t, m.ID)
	if ev.Kind != core.EventReminderFailed || !strings.Contains(ev.Detail, "will retry: the email could not be made") || strings.Contains(ev.Detail, "template") {
		t.Fatalf("timeline: %s %q", ev.Kind, ev.Detail)
	}
	e.Clock.Add(5 * time.Minute)
	e.pass(t, core.PassResult{Reminded: 1})
	if got := e.find(t, m.ID); got.RemindersSent == 0 || got.Status != core.StatusReminded {
		t.Fatalf("after the retry: %s, %d reminders", got.Status, got.RemindersSent)
	}
}

// The author's notice of a failed delivery whose email cannot be made is
// retried on the delivery schedule, and the author told once it can be.
func TestAFailureNoticeWhoseEmailCannotBeMadeIsRetried(t *testing.T) {
	e, m := brokenEnv(t, brokenEmails{notices: 1}, false)
	e.Clock.Set(m.SendDate)
	e.SMTP.FailNext(1, 550, "no such user")
	e.pass(t, core.PassResult{Failed: 1})
	e.NoMoreEmail(t)
	notice, err := e.Admin.MessageOutbox(e.Ctx, m.ID)
	if err != nil || !notice.FailedAt.IsZero() || notice.Attempts != 1 || !strings.Contains(notice.LastError, "could not be made") {
		t.Fatalf("the notice: %+v %v", notice, err)
	}
	e.Clock.Add(core.RetryDelays[0])
	e.pass(t, core.PassResult{})
	if p, _ := e.nextEmail(t, "ada@example.com"); !strings.Contains(p.Text, "no such user") {
		t.Fatalf("failure email:\n%s", p.Text)
	}
}

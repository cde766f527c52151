package core_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

// These tests run the delivery pass over a real bbolt store, the real email
// templates and SMTP transport, against the test SMTP server, and move a
// ManualClock through the months.

// deliveryEnv is the delivery pass over the test environment.
type deliveryEnv struct{ *testenv.Env }

func MustDeliveryEnv(tb testing.TB, start time.Time) *deliveryEnv {
	tb.Helper()
	return &deliveryEnv{testenv.New(tb, testenv.Config{Start: start})}
}

func (e *deliveryEnv) mustUser(tb testing.TB, email, zone string) *core.User {
	tb.Helper()
	return e.MustUser(tb, email, zone, core.PlanStarter)
}

func (e *deliveryEnv) mustMessage(tb testing.TB, owner string, iv core.Interval) *core.Message {
	tb.Helper()
	m, err := e.Messages.Create(e.As(owner), core.MessageInput{
		Title: "TITLE-never-in-the-delivery", Name: "Charles Babbage", Recipient: "charles@example.com",
		Body: "Dear Charles,\nthe engine <works>.\n\nAda", Interval: iv,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// pass runs one pass and checks the tally.
func (e *deliveryEnv) pass(tb testing.TB, want core.PassResult) core.PassResult {
	tb.Helper()
	got, err := e.Delivery.Run(e.Ctx)
	if err != nil {
		tb.Fatalf("pass: %v", err)
	}
	if got.Delivered != want.Delivered || got.Reminded != want.Reminded || got.Retried != want.Retried ||
		got.Failed != want.Failed || len(got.Errors) > 0 {
		tb.Fatalf("pass at %v: %v %v, want %v", e.Clock.Now(), got, got.Errors, want)
	}
	return got
}

func (e *deliveryEnv) nextEmail(tb testing.TB, to string) (*smtptest.Parsed, smtptest.Message) {
	tb.Helper()
	return e.Next(tb, to)
}

func (e *deliveryEnv) find(tb testing.TB, id string) *core.Message {
	tb.Helper()
	m, err := e.Store.FindMessageByID(e.Ctx, id)
	if err != nil {
		tb.Fatal(err)
	}
	if err := core.JoinBounceMarks(e.Ctx, e.Store, m); err != nil { // as the dashboard shows it
		tb.Fatal(err)
	}
	return m
}

var march1 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func TestDeliveryAtSendDate(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.mustUser(t, "ada@example.com", "Europe/London")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	e.Delivery.Reminders = nil // this test is about the delivery only

	e.Clock.Set(m.SendDate.Add(-time.Second))
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)

	e.Clock.Set(m.SendDate)
	e.pass(t, core.PassResult{Delivered: 1})
	p, raw := e.nextEmail(t, "charles@example.com")
	got := e.find(t, m.ID)
	if got.Status != core.StatusDelivered || !got.DeliveredAt.Equal(m.SendDate) || !got.DueAt.IsZero() {
		t.Fatalf("after delivery: status %s delivered %v due %v", got.Status, got.DeliveredAt, got.DueAt)
	}
	if id := strings.Trim(p.Header.Get("Message-Id"), "<>"); id == "" || id != got.EmailMessageID {
		t.Fatalf("Message-ID %q, stored %q", id, got.EmailMessageID)
	}
	if rt := p.Header.Get("Reply-To"); !strings.Contains(rt, "ada@example.com") {
		t.Fatalf("Reply-To %q", rt)
	}
	unsub := p.Header.Get("List-Unsubscribe")
	if !strings.HasPrefix(unsub, "<"+baseURL+"/unsubscribe/") || p.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
		t.Fatalf("List-Unsubscribe %q / %q", unsub, p.Header.Get("List-Unsubscribe-Post"))
	}
	if strings.Contains(string(raw.Data), "TITLE-never") || strings.Contains(p.Text, "TITLE-never") || strings.Contains(p.HTML, "TITLE-never") {
		t.Fatal("the title is in the delivery email")
	}
	if !strings.Contains(strings.ReplaceAll(p.Text, "\r\n", "\n"), "Dear Charles,\nthe engine <works>.") || !strings.Contains(p.HTML, "the engine &lt;works&gt;.") {
		t.Fatalf("body:\n%s\n%s", p.Text, p.HTML)
	}

	// Delivered once: later passes leave it alone.
	e.Clock.Add(24 * time.Hour)
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
}

// reminderLink returns the postpone link of a reminder email, which both
// parts carry.
func reminderLink(tb testing.TB, p *smtptest.Parsed) (id, code string) {
	tb.Helper()
	link := p.Link(baseURL + "/postpone/")
	if link == "" || !strings.Contains(p.Text, link) {
		tb.Fatalf("reminder lacks the postpone link: %v", p.Links())
	}
	u, err := url.Parse(link)
	if err != nil {
		tb.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/postpone/"), u.Query().Get("code")
}

func TestReminderLinkPostponesBothReminderAndDelivery(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.mustUser(t, "ada@example.com", "Europe/Berlin")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	remindAt := m.SendDate.Add(-core.ReminderLeadTime)

	e.Clock.Set(remindAt.Add(-time.Minute))
	e.pass(t, core.PassResult{})
	e.Clock.Set(remindAt)
	e.pass(t, core.PassResult{Reminded: 1})
	p, _ := e.nextEmail(t, "ada@example.com")
	// Created at 10:00 CET, delivered at 10:00 summer time: the wall clock is kept.
	for _, want := range []string{"TITLE-never-in-the-delivery", "Wednesday, 1 April 2026 at 10:00 CEST", baseURL + "/dashboard"} {
		if !strings.Contains(p.Text, want) || !strings.Contains(p.HTML, want) {
			t.Fatalf("reminder lacks %q:\n%s", want, p.Text)
		}
	}
	if got := e.find(t, m.ID); got.Status != core.StatusReminded || got.RemindersSent != len(core.DefaultReminders.Steps()) || !got.RemindAt.IsZero() {
		t.Fatalf("after the reminder: %s sent %d remindAt %v", got.Status, got.RemindersSent, got.RemindAt)
	}
	e.Clock.Add(time.Hour)
	e.pass(t, core.PassResult{}) // once per sendDate
	e.NoMoreEmail(t)

	// Follow the link: the page shows, changing nothing; the button postpones.
	id, code := reminderLink(t, p)
	view, err := e.Postpone.Show(e.Ctx, id, code, "192.0.2.7")
	if err != nil || view.Title != m.Title || !view.SendDate.Equal(m.SendDate) || view.Interval != core.Interval1M {
		t.Fatalf("show: %+v %v", view, err)
	}
	if got := e.find(t, m.ID); !got.SendDate.Equal(m.SendDate) {
		t.Fatal("showing the link postponed")
	}
	_, err = e.Postpone.Postpone(e.Ctx, id, "wrongcode1", "192.0.2.7")
	wantCode(t, err, core.EInvalidPostponeCode)
	newDate, err := e.Postpone.Postpone(e.Ctx, id, code, "192.0.2.7")
	if err != nil {
		t.Fatal(err)
	}
	if want := core.AddMonths(e.Clock.Now(), 1, core.LoadLocation("Europe/Berlin")); !newDate.Equal(want) {
		t.Fatalf("postponed to %v, want %v", newDate, want)
	}
	got := e.find(t, m.ID)
	if got.Status != core.StatusScheduled || got.RemindersSent != 0 || !got.RemindAt.Equal(newDate.Add(-core.ReminderLeadTime)) {
		t.Fatalf("after postpone: %s %d remindAt %v", got.Status, got.RemindersSent, got.RemindAt)
	}
	// Postponing again the same day changes nothing.
	again, err := e.Postpone.Postpone(e.Ctx, id, code, "192.0.2.7")
	if err != nil || !again.Equal(newDate) {
		t.Fatalf("same-day postpone: %v %v", again, err)
	}

	// The old date passes quietly; the new reminder and delivery come.
	e.Clock.Set(m.SendDate.Add(time.Hour))
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
	e.Clock.Set(newDate.Add(-core.ReminderLeadTime))
	e.pass(t, core.PassResult{Reminded: 1})
	e.nextEmail(t, "ada@example.com")
	e.Clock.Set(newDate)
	e.pass(t, core.PassResult{Delivered: 1})
	e.nextEmail(t, "charles@example.com")
}

func TestPostponeCodeGuessingIsLimitedPerClient(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.mustUser(t, "ada@example.com", "")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	guesser := "198.51.100.7"
	for i := range core.LimitPostponeMessageClient.Max {
		_, err := e.Postpone.Show(e.Ctx, m.ID, "guess"+string(rune('a'+i)), guesser)
		wantCode(t, err, core.EInvalidPostponeCode)
	}
	// The guesser waits, even with the right code...
	_, err := e.Postpone.Postpone(e.Ctx, m.ID, m.PostponeCode, guesser)
	if ce := wantCode(t, err, core.ETooManyRequests); ce.RetryAfter <= 0 {
		t.Fatal("no Retry-After")
	}
	// ...while the author, from any other device, is not refused.
	if _, err := e.Postpone.Postpone(e.Ctx, m.ID, m.PostponeCode, "203.0.113.1"); err != nil {
		t.Fatalf("the author after a guesser: %v", err)
	}
	// Guesses from many addresses lock no one out either.
	for i := range 100 {
		_, err := e.Postpone.Show(e.Ctx, m.ID, "guess", fmt.Sprintf("198.18.%d.%d", i/200, i%200))
		wantCode(t, err, core.EInvalidPostponeCode)
	}
	if _, err := e.Postpone.Show(e.Ctx, m.ID, m.PostponeCode, "192.0.2.50"); err != nil {
		t.Fatalf("the author after 100 guessers: %v", err)
	}
	// One client on many messages: unknown ids count too.
	other := "203.0.113.9"
	for range core.LimitPostponeClient.Max {
		_, err := e.Postpone.Show(e.Ctx, core.NewID(), "x", other)
		wantCode(t, err, core.EInvalidPostponeCode)
	}
	_, err = e.Postpone.Show(e.Ctx, core.NewID(), "x", other)
	wantCode(t, err, core.ETooManyRequests)
	e.Clock.Add(core.LimitPostponeClient.Window)
	if _, err := e.Postpone.Postpone(e.Ctx, m.ID, m.PostponeCode, guesser); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

func TestPausedAndDeletedMessagesAreNeverSent(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.mustUser(t, "ada@example.com", "")
	paused := e.mustMessage(t, u.ID, core.Interval1M)
	off := false
	if _, err := e.Messages.Update(e.As(u.ID), paused.ID, core.MessageUpdate{IsActive: &off}); err != nil {
		t.Fatal(err)
	}
	e.Clock.Set(paused.SendDate.AddDate(1, 0, 0))
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
	if got := e.find(t, paused.ID); got.DisplayStatus() != core.StatusPaused {
		t.Fatalf("status %s", got.DisplayStatus())
	}
}

func TestMonthEndAndTimeZones(t *testing.T) {
	ny := core.LoadLocation("America/New_York")
	// Jan 31, 23:30 in New York is already Feb 1 in UTC.
	e := MustDeliveryEnv(t, time.Date(2026, 1, 31, 23, 30, 0, 0, ny))
	e.Delivery.Reminders = nil
	u := e.mustUser(t, "ada@example.com", "America/New_York")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	if want := time.Date(2026, 2, 28, 23, 30, 0, 0, ny); !m.SendDate.Equal(want) {
		t.Fatalf("Jan 31 + 1 month = %v, want %v (clamped to February's end in the author's zone)", m.SendDate.In(ny), want)
	}
	e.Clock.Set(m.SendDate.Add(-time.Second))
	e.pass(t, core.PassResult{})
	e.Clock.Set(m.SendDate)
	e.pass(t, core.PassResult{Delivered: 1})
	p, _ := e.nextEmail(t, "charles@example.com")
	if !strings.Contains(p.Text, "Saturday, 31 January 2026 at 23:30 EST") {
		t.Fatalf("written date not in the author's zone:\n%s", p.Text)
	}

	// Across a DST change the wall-clock time is kept: Berlin, 1 March 10:00
	// CET -> 1 April 10:00 CEST, one hour less in UTC.
	berlin := core.LoadLocation("Europe/Berlin")
	e2 := MustDeliveryEnv(t, time.Date(2026, 3, 1, 10, 0, 0, 0, berlin))
	u2 := e2.mustUser(t, "ada@example.com", "Europe/Berlin")
	m2 := e2.mustMessage(t, u2.ID, core.Interval1M)
	if want := time.Date(2026, 4, 1, 10, 0, 0, 0, berlin); !m2.SendDate.Equal(want) {
		t.Fatalf("DST: %v, want %v", m2.SendDate.In(berlin), want)
	}
	// The same day in Berlin is a no-op, even when it is another day in UTC.
	e2.Clock.Set(time.Date(2026, 3, 1, 23, 30, 0, 0, berlin)) // 22:30 UTC
	sameDay, err := e2.Messages.Postpone(e2.As(u2.ID), m2.ID)
	if err != nil || !sameDay.SendDate.Equal(m2.SendDate) {
		t.Fatalf("same-day postpone moved the date: %v %v", sameDay.SendDate, err)
	}
	e2.Clock.Set(time.Date(2026, 3, 2, 0, 30, 0, 0, berlin)) // still Mar 1 in UTC
	moved, err := e2.Messages.Postpone(e2.As(u2.ID), m2.ID)
	if err != nil || !moved.SendDate.Equal(time.Date(2026, 4, 2, 0, 30, 0, 0, berlin)) {
		t.Fatalf("next-day postpone: %v %v", moved.SendDate.In(berlin), err)
	}
}

func TestReminderTooLateIsSkipped(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.mustUser(t, "ada@example.com", "")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	// The scheduler was down from before the reminder until after sendDate:
	// the delivery goes, the stale reminder does not.
	e.Clock.Set(m.SendDate.Add(time.Hour))
	e.pass(t, core.PassResult{Delivered: 1})
	e.nextEmail(t, "charles@example.com")
	e.NoMoreEmail(t)
}

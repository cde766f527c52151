package core_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/mailer/smtptest"
	"github.com/sendlater/sendlater/webhook"
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
	m, err := e.DB.FindMessageByID(e.Ctx, id)
	if err != nil {
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
	if got := e.find(t, m.ID); got.Status != core.StatusReminded || got.RemindersSent != 1 || !got.RemindAt.IsZero() {
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

func TestPostponeCodeGuessingIsLimited(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.mustUser(t, "ada@example.com", "")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	for i := range core.PostponeFailuresPerMessage {
		_, err := e.Postpone.Show(e.Ctx, m.ID, "guess"+string(rune('a'+i)), "198.51.100."+string(rune('0'+i)))
		wantCode(t, err, core.EInvalidPostponeCode)
	}
	// The message is locked even for the right code, from anywhere.
	_, err := e.Postpone.Postpone(e.Ctx, m.ID, m.PostponeCode, "203.0.113.1")
	if ce := wantCode(t, err, core.ETooManyRequests); ce.RetryAfter <= 0 {
		t.Fatal("no Retry-After")
	}
	// Per client: unknown ids count too.
	for range core.PostponeFailuresPerClient {
		_, err := e.Postpone.Show(e.Ctx, core.NewID(), "x", "203.0.113.9")
		wantCode(t, err, core.EInvalidPostponeCode)
	}
	_, err = e.Postpone.Show(e.Ctx, core.NewID(), "x", "203.0.113.9")
	wantCode(t, err, core.ETooManyRequests)
	e.Clock.Add(core.PostponeFailureWindow)
	if _, err := e.Postpone.Postpone(e.Ctx, m.ID, m.PostponeCode, "203.0.113.1"); err != nil {
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

// racingStore changes a message right after the pass claimed it, as an
// author or operator acting between the claim and the send would.
type racingStore struct {
	core.DeliveryStore
	change func(id string)
}

func (r *racingStore) ClaimDeliveries(ctx context.Context, now time.Time, limit int, claim func(m *core.Message) bool) ([]*core.Message, error) {
	ms, err := r.DeliveryStore.ClaimDeliveries(ctx, now, limit, claim)
	for _, m := range ms {
		r.change(m.ID)
	}
	return ms, err
}

func TestChangesBetweenClaimAndSendAreHonoured(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(m *core.Message, now time.Time)
	}{
		{"paused", func(m *core.Message, _ time.Time) { m.IsActive = false }},
		{"postponed", func(m *core.Message, now time.Time) { m.SendDate = now.AddDate(0, 1, 0) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := MustDeliveryEnv(t, march1)
			e.Delivery.Reminders = nil
			u := e.mustUser(t, "ada@example.com", "")
			m := e.mustMessage(t, u.ID, core.Interval1M)
			e.Delivery.Store = &racingStore{DeliveryStore: e.DB, change: func(id string) {
				if _, err := e.DB.UpdateMessage(e.Ctx, id, func(m *core.Message) error {
					tc.change(m, e.Clock.Now())
					return nil
				}); err != nil {
					t.Error(err)
				}
			}}
			e.Clock.Set(m.SendDate)
			res := e.pass(t, core.PassResult{})
			if res.Skipped != 1 {
				t.Fatalf("skipped %d", res.Skipped)
			}
			e.NoMoreEmail(t)
			got := e.find(t, m.ID)
			if got.Status != core.StatusScheduled || !got.LeaseUntil.IsZero() {
				t.Fatalf("the claim was not released: %s lease %v", got.Status, got.LeaseUntil)
			}
		})
	}
}

func TestTemporaryFailuresAreRetriedThenFailedAndTheAuthorTold(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.Delivery.Reminders = nil
	u := e.mustUser(t, "ada@example.com", "")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	e.Clock.Set(m.SendDate)
	start := m.SendDate

	var messageIDs []string
	for i, delay := range core.RetryDelays {
		e.SMTP.FailNextData(1, 451, "try again later")
		e.pass(t, core.PassResult{Retried: 1})
		got := e.find(t, m.ID)
		if got.Attempts != i+1 || !got.NextAttemptAt.Equal(e.Clock.Now().Add(delay)) || got.Status != core.StatusScheduled {
			t.Fatalf("after failure %d: attempts %d next %v status %s", i+1, got.Attempts, got.NextAttemptAt, got.Status)
		}
		messageIDs = append(messageIDs, got.EmailMessageID)
		e.Clock.Add(delay - time.Second)
		e.pass(t, core.PassResult{}) // not before the backoff
		e.Clock.Add(time.Second)
	}
	if elapsed := e.Clock.Now().Sub(start); elapsed < 80*time.Hour || elapsed > 81*time.Hour {
		t.Fatalf("retried for %v, want about 3 days and 8 hours", elapsed)
	}
	for _, id := range messageIDs {
		if id != messageIDs[0] {
			t.Fatalf("Message-ID changed between retries: %v", messageIDs)
		}
	}
	e.SMTP.FailNextData(1, 451, "still down")
	e.pass(t, core.PassResult{Failed: 1})
	got := e.find(t, m.ID)
	if got.Status != core.StatusFailed || !strings.Contains(got.LastError, "still down") || !got.DueAt.IsZero() {
		t.Fatalf("after the last try: %s %q due %v", got.Status, got.LastError, got.DueAt)
	}
	p, _ := e.nextEmail(t, "ada@example.com")
	if !strings.Contains(p.Subject, "could not be delivered") || !strings.Contains(p.Text, "charles@example.com") {
		t.Fatalf("failure email %q:\n%s", p.Subject, p.Text)
	}
	e.NoMoreEmail(t)
}

func TestATemporaryFailureThenDelivery(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.Delivery.Reminders = nil
	u := e.mustUser(t, "ada@example.com", "")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	e.Clock.Set(m.SendDate)
	e.SMTP.FailNext(1, 421, "busy")
	e.pass(t, core.PassResult{Retried: 1})
	e.Clock.Add(time.Minute)
	e.pass(t, core.PassResult{Delivered: 1})
	e.nextEmail(t, "charles@example.com")
	if got := e.find(t, m.ID); got.Status != core.StatusDelivered || got.LastError != "" {
		t.Fatalf("%s %q", got.Status, got.LastError)
	}
}

func TestPermanentRefusalByTheServerFails(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.Delivery.Reminders = nil
	u := e.mustUser(t, "ada@example.com", "")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	e.Clock.Set(m.SendDate)
	e.SMTP.FailNext(1, 550, "no such user")
	e.pass(t, core.PassResult{Failed: 1})
	p, _ := e.nextEmail(t, "ada@example.com")
	if !strings.Contains(p.Text, "no such user") {
		t.Fatalf("failure email:\n%s", p.Text)
	}
}

func TestRecipientRefusal(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.Delivery.Reminders = nil
	u := e.mustUser(t, "ada@example.com", "")
	first := e.mustMessage(t, u.ID, core.Interval1M)
	e.Clock.Set(first.SendDate)
	e.pass(t, core.PassResult{Delivered: 1})
	p, _ := e.nextEmail(t, "charles@example.com")

	// The recipient follows the one-click link of the first delivery.
	link := strings.Trim(p.Header.Get("List-Unsubscribe"), "<>")
	token := strings.TrimPrefix(link, baseURL+"/unsubscribe/")
	if !strings.Contains(p.Text, link) {
		t.Fatal("the footer lacks the refusal link")
	}
	addr, err := e.Delivery.Refusals.Address(token)
	if err != nil || addr != "charles@example.com" {
		t.Fatalf("token opens to %q, %v", addr, err)
	}
	if _, err := e.Delivery.Refusals.Address(token[:len(token)-2] + "AA"); err == nil {
		t.Fatal("a forged token opened")
	}
	if err := e.DB.RefuseAddress(e.Ctx, addr, e.Clock.Now()); err != nil {
		t.Fatal(err)
	}

	// A pro author's second message to the same address is refused.
	if _, err := e.DB.UpdateUser(e.Ctx, u.ID, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = "plan:pro", "active"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	second := e.mustMessage(t, u.ID, core.Interval1M)
	e.Clock.Set(second.SendDate)
	e.pass(t, core.PassResult{Failed: 1})
	got := e.find(t, second.ID)
	if got.Status != core.StatusFailed || !strings.Contains(got.LastError, "refused") {
		t.Fatalf("%s %q", got.Status, got.LastError)
	}
	p, _ = e.nextEmail(t, "ada@example.com")
	if !strings.Contains(p.Text, "refused") {
		t.Fatalf("the author was not told why:\n%s", p.Text)
	}
	e.NoMoreEmail(t)
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

func TestStoppedPassLosesNothing(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.Delivery.Reminders = nil
	u := e.mustUser(t, "ada@example.com", "")
	if _, err := e.DB.UpdateUser(e.Ctx, u.ID, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = "plan:pro", "active"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	const n = 40
	var last *core.Message
	for range n {
		last = e.mustMessage(t, u.ID, core.Interval1M)
	}
	e.Clock.Set(last.SendDate)
	e.SMTP.SetDelay(20 * time.Millisecond)
	ctx, cancel := context.WithCancel(e.Ctx)
	go func() {
		e.SMTP.WaitFor(3, 5*time.Second)
		cancel()
	}()
	res, err := e.Delivery.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Delivered >= n {
		t.Fatalf("the pass did not stop: %v", res)
	}
	// Nothing is left claimed: the next pass, at once, sends the rest.
	e.SMTP.SetDelay(0)
	res2, err := e.Delivery.Run(e.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	ms, _, _ := e.DB.ListMessages(e.Ctx, core.MessageFilter{Owner: u.ID})
	for _, m := range ms {
		if m.Status != core.StatusDelivered {
			t.Fatalf("message %s is %s after a stop and a pass (%v, %v)", m.ID, m.Status, res, res2)
		}
	}
	if got := len(e.SMTP.Messages()); got < n || got > n+e.Delivery.Concurrency {
		t.Fatalf("received %d emails for %d messages", got, n)
	}
}

func TestBusinessWebhookIsSignedAndRetried(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.Delivery.Reminders = nil
	e.Delivery.Webhooks = webhook.NewClient(true, 2*time.Second) // the test server is on loopback
	type hit struct {
		body []byte
		sig  string
	}
	hits := make(chan hit, 10)
	fail := atomic.Int32{}
	fail.Store(1)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hits <- hit{b, r.Header.Get(core.WebhookSignatureHeader)}
		if fail.Add(-1) >= 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(hook.Close)

	u := e.mustUser(t, "ada@example.com", "")
	// Only the business plan may set a webhook or make its secret.
	secrets := e.WebhookSecrets
	_, err := secrets.Rotate(e.As(u.ID))
	wantCode(t, err, core.EFeatureNotIncluded)
	_, err = e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "t", Name: "n", Recipient: "charles@example.com", Body: "b", WebhookURL: hook.URL})
	wantCode(t, err, core.EFeatureNotIncluded)
	if _, err := e.DB.UpdateUser(e.Ctx, u.ID, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = "plan:business", "active"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	secret, err := secrets.Rotate(e.As(u.ID))
	if err != nil || len(secret) < 40 {
		t.Fatalf("secret %q %v", secret, err)
	}
	m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "t", Name: "n", Recipient: "charles@example.com", Body: "b", WebhookURL: hook.URL})
	if err != nil {
		t.Fatal(err)
	}

	e.Clock.Set(m.SendDate)
	res := e.pass(t, core.PassResult{Delivered: 1})
	if res.Webhooks != 0 {
		t.Fatalf("webhook succeeded against a failing endpoint: %v", res)
	}
	first := <-hits // 503: retried after a minute
	e.Clock.Add(time.Minute)
	res = e.pass(t, core.PassResult{})
	if res.Webhooks != 1 {
		t.Fatalf("retry: %v", res)
	}
	second := <-hits
	var p core.WebhookPayload
	if err := json.Unmarshal(second.body, &p); err != nil || p.MessageID != m.ID || p.Recipient != "charles@example.com" ||
		p.DeliveredAt != m.SendDate.UnixMilli() || p.Attempt != 2 || p.Event != "message.delivered" {
		t.Fatalf("payload %s (%v)", second.body, err)
	}
	if second.sig != core.SignWebhook(secret, second.body) || first.sig != core.SignWebhook(secret, first.body) {
		t.Fatalf("signature %q", second.sig)
	}
	e.Clock.Add(time.Hour)
	if res = e.pass(t, core.PassResult{}); res.Webhooks != 0 {
		t.Fatal("a webhook was called again after success")
	}
}

// The author's notice of a failed delivery is queued with the failure: a
// mail server that refuses it for a while only delays it.
func TestTheFailureNoticeWaitsForTheMailServer(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.Delivery.Reminders = nil
	u := e.mustUser(t, "ada@example.com", "")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	e.Clock.Set(m.SendDate)
	e.SMTP.FailNext(1, 550, "no such user")         // the delivery, for good
	e.SMTP.FailNextData(1, 451, "mail system busy") // then the notice, for now
	e.pass(t, core.PassResult{Failed: 1})
	e.NoMoreEmail(t)

	e.Clock.Add(core.RetryDelays[0])
	e.pass(t, core.PassResult{})
	p, _ := e.nextEmail(t, "ada@example.com")
	if !strings.Contains(p.Subject, "could not be delivered") || !strings.Contains(p.Text, "no such user") {
		t.Fatalf("failure email %q:\n%s", p.Subject, p.Text)
	}
	e.Clock.Add(time.Hour)
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
}

package core_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/mailer/smtptest"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/webhook"
)

// These tests run the delivery pass over a real bbolt store, the real email
// templates and SMTP transport, against the test SMTP server, and move a
// ManualClock through the months.

type deliveryEnv struct {
	d        *core.Delivery
	links    *core.PostponeLinks
	messages *core.MessageService
	db       *bolt.DB
	clock    *core.ManualClock
	ctx      context.Context
	mailbox
}

var refusalSecret = []byte("a refusal token secret, 32 bytes")

func MustDeliveryEnv(tb testing.TB, start time.Time) *deliveryEnv {
	tb.Helper()
	db, err := bolt.Open(filepath.Join(tb.TempDir(), "sendlater.db"), bolt.Options{
		Key: []byte("k3y-0f-32-bytes-for-aes-256-gcm!"), NoSync: true,
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := db.Check(); err != nil {
			tb.Errorf("store check: %v", err)
		}
		db.Close()
	})
	srv := smtptest.Start(tb)
	m, err := mailer.NewSMTP(mailer.SMTPConfig{
		Host: srv.Host(), Port: srv.Port(), TLS: mailer.TLSNone,
		From: core.Address{Name: "Sendlater", Address: "noreply@sendlater.test"}, Timeout: 5 * time.Second,
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { m.Close() })
	emails, err := mailer.NewTemplates("Sendlater", baseURL)
	if err != nil {
		tb.Fatal(err)
	}
	clock := core.NewManualClock(start)
	return &deliveryEnv{
		d: &core.Delivery{
			Messages: db, Users: db, Store: db, Mailer: m, Emails: emails, Clock: clock,
			BaseURL: baseURL, Reminders: []time.Duration{core.ReminderLeadTime}, Concurrency: 4,
			Refusals: core.NewRefusalTokens(refusalSecret), Log: core.NewPassLog(10),
			Logger: slog.New(slog.DiscardHandler),
		},
		links:    core.NewPostponeLinks(db, db, clock),
		messages: &core.MessageService{Messages: db, Users: db, Clock: clock},
		db:       db, mailbox: mailbox{smtp: srv}, clock: clock, ctx: context.Background(),
	}
}

func (e *deliveryEnv) mustUser(tb testing.TB, email, zone string) *core.User {
	tb.Helper()
	now := e.clock.Now()
	u := &core.User{Email: email, Name: "Ada Lovelace", Timezone: zone, CreatedAt: now, UpdatedAt: now}
	if err := e.db.CreateUser(e.ctx, u); err != nil {
		tb.Fatal(err)
	}
	return u
}

func (e *deliveryEnv) mustMessage(tb testing.TB, owner string, iv core.Interval) *core.Message {
	tb.Helper()
	m, err := e.messages.Create(e.ctx, owner, core.MessageInput{
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
	got, err := e.d.Run(e.ctx)
	if err != nil {
		tb.Fatalf("pass: %v", err)
	}
	if got.Delivered != want.Delivered || got.Reminded != want.Reminded || got.Retried != want.Retried ||
		got.Failed != want.Failed || len(got.Errors) > 0 {
		tb.Fatalf("pass at %v: %v %v, want %v", e.clock.Now(), got, got.Errors, want)
	}
	return got
}

func (e *deliveryEnv) nextEmail(tb testing.TB, to string) (*smtptest.Parsed, smtptest.Message) {
	tb.Helper()
	return e.next(tb, to)
}

func (e *deliveryEnv) find(tb testing.TB, id string) *core.Message {
	tb.Helper()
	m, err := e.db.FindMessageByID(e.ctx, id)
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
	e.d.Reminders = nil // this test is about the delivery only

	e.clock.Set(m.SendDate.Add(-time.Second))
	e.pass(t, core.PassResult{})
	e.noMoreEmail(t)

	e.clock.Set(m.SendDate)
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
	e.clock.Add(24 * time.Hour)
	e.pass(t, core.PassResult{})
	e.noMoreEmail(t)
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

	e.clock.Set(remindAt.Add(-time.Minute))
	e.pass(t, core.PassResult{})
	e.clock.Set(remindAt)
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
	e.clock.Add(time.Hour)
	e.pass(t, core.PassResult{}) // once per sendDate
	e.noMoreEmail(t)

	// Follow the link: the page shows, changing nothing; the button postpones.
	id, code := reminderLink(t, p)
	view, err := e.links.Show(e.ctx, id, code, "192.0.2.7")
	if err != nil || view.Title != m.Title || !view.SendDate.Equal(m.SendDate) || view.Interval != core.Interval1M {
		t.Fatalf("show: %+v %v", view, err)
	}
	if got := e.find(t, m.ID); !got.SendDate.Equal(m.SendDate) {
		t.Fatal("showing the link postponed")
	}
	_, err = e.links.Postpone(e.ctx, id, "wrongcode1", "192.0.2.7")
	wantCode(t, err, core.EInvalidPostponeCode)
	newDate, err := e.links.Postpone(e.ctx, id, code, "192.0.2.7")
	if err != nil {
		t.Fatal(err)
	}
	if want := core.AddMonths(e.clock.Now(), 1, core.LoadLocation("Europe/Berlin")); !newDate.Equal(want) {
		t.Fatalf("postponed to %v, want %v", newDate, want)
	}
	got := e.find(t, m.ID)
	if got.Status != core.StatusScheduled || got.RemindersSent != 0 || !got.RemindAt.Equal(newDate.Add(-core.ReminderLeadTime)) {
		t.Fatalf("after postpone: %s %d remindAt %v", got.Status, got.RemindersSent, got.RemindAt)
	}
	// Postponing again the same day changes nothing.
	again, err := e.links.Postpone(e.ctx, id, code, "192.0.2.7")
	if err != nil || !again.Equal(newDate) {
		t.Fatalf("same-day postpone: %v %v", again, err)
	}

	// The old date passes quietly; the new reminder and delivery come.
	e.clock.Set(m.SendDate.Add(time.Hour))
	e.pass(t, core.PassResult{})
	e.noMoreEmail(t)
	e.clock.Set(newDate.Add(-core.ReminderLeadTime))
	e.pass(t, core.PassResult{Reminded: 1})
	e.nextEmail(t, "ada@example.com")
	e.clock.Set(newDate)
	e.pass(t, core.PassResult{Delivered: 1})
	e.nextEmail(t, "charles@example.com")
}

func TestPostponeCodeGuessingIsLimited(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.mustUser(t, "ada@example.com", "")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	for i := range core.PostponeFailuresPerMessage {
		_, err := e.links.Show(e.ctx, m.ID, "guess"+string(rune('a'+i)), "198.51.100."+string(rune('0'+i)))
		wantCode(t, err, core.EInvalidPostponeCode)
	}
	// The message is locked even for the right code, from anywhere.
	_, err := e.links.Postpone(e.ctx, m.ID, m.PostponeCode, "203.0.113.1")
	if ce := wantCode(t, err, core.ETooManyRequests); ce.RetryAfter <= 0 {
		t.Fatal("no Retry-After")
	}
	// Per client: unknown ids count too.
	for range core.PostponeFailuresPerClient {
		_, err := e.links.Show(e.ctx, core.NewID(), "x", "203.0.113.9")
		wantCode(t, err, core.EInvalidPostponeCode)
	}
	_, err = e.links.Show(e.ctx, core.NewID(), "x", "203.0.113.9")
	wantCode(t, err, core.ETooManyRequests)
	e.clock.Add(core.PostponeFailureWindow)
	if _, err := e.links.Postpone(e.ctx, m.ID, m.PostponeCode, "203.0.113.1"); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

func TestPausedAndDeletedMessagesAreNeverSent(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.mustUser(t, "ada@example.com", "")
	paused := e.mustMessage(t, u.ID, core.Interval1M)
	off := false
	if _, err := e.messages.Update(e.ctx, u.ID, paused.ID, core.MessageUpdate{IsActive: &off}); err != nil {
		t.Fatal(err)
	}
	e.clock.Set(paused.SendDate.AddDate(1, 0, 0))
	e.pass(t, core.PassResult{})
	e.noMoreEmail(t)
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
			e.d.Reminders = nil
			u := e.mustUser(t, "ada@example.com", "")
			m := e.mustMessage(t, u.ID, core.Interval1M)
			e.d.Store = &racingStore{DeliveryStore: e.db, change: func(id string) {
				if _, err := e.db.UpdateMessage(e.ctx, id, func(m *core.Message) error {
					tc.change(m, e.clock.Now())
					return nil
				}); err != nil {
					t.Error(err)
				}
			}}
			e.clock.Set(m.SendDate)
			res := e.pass(t, core.PassResult{})
			if res.Skipped != 1 {
				t.Fatalf("skipped %d", res.Skipped)
			}
			e.noMoreEmail(t)
			got := e.find(t, m.ID)
			if got.Status != core.StatusScheduled || !got.LeaseUntil.IsZero() {
				t.Fatalf("the claim was not released: %s lease %v", got.Status, got.LeaseUntil)
			}
		})
	}
}

func TestTemporaryFailuresAreRetriedThenFailedAndTheAuthorTold(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.d.Reminders = nil
	u := e.mustUser(t, "ada@example.com", "")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	e.clock.Set(m.SendDate)
	start := m.SendDate

	var messageIDs []string
	for i, delay := range core.RetryDelays {
		e.smtp.FailNextData(1, 451, "try again later")
		e.pass(t, core.PassResult{Retried: 1})
		got := e.find(t, m.ID)
		if got.Attempts != i+1 || !got.NextAttemptAt.Equal(e.clock.Now().Add(delay)) || got.Status != core.StatusScheduled {
			t.Fatalf("after failure %d: attempts %d next %v status %s", i+1, got.Attempts, got.NextAttemptAt, got.Status)
		}
		messageIDs = append(messageIDs, got.EmailMessageID)
		e.clock.Add(delay - time.Second)
		e.pass(t, core.PassResult{}) // not before the backoff
		e.clock.Add(time.Second)
	}
	if elapsed := e.clock.Now().Sub(start); elapsed < 80*time.Hour || elapsed > 81*time.Hour {
		t.Fatalf("retried for %v, want about 3 days and 8 hours", elapsed)
	}
	for _, id := range messageIDs {
		if id != messageIDs[0] {
			t.Fatalf("Message-ID changed between retries: %v", messageIDs)
		}
	}
	e.smtp.FailNextData(1, 451, "still down")
	e.pass(t, core.PassResult{Failed: 1})
	got := e.find(t, m.ID)
	if got.Status != core.StatusFailed || !strings.Contains(got.LastError, "still down") || !got.DueAt.IsZero() {
		t.Fatalf("after the last try: %s %q due %v", got.Status, got.LastError, got.DueAt)
	}
	p, _ := e.nextEmail(t, "ada@example.com")
	if !strings.Contains(p.Subject, "could not be delivered") || !strings.Contains(p.Text, "charles@example.com") {
		t.Fatalf("failure email %q:\n%s", p.Subject, p.Text)
	}
	e.noMoreEmail(t)
}

func TestATemporaryFailureThenDelivery(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.d.Reminders = nil
	u := e.mustUser(t, "ada@example.com", "")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	e.clock.Set(m.SendDate)
	e.smtp.FailNext(1, 421, "busy")
	e.pass(t, core.PassResult{Retried: 1})
	e.clock.Add(time.Minute)
	e.pass(t, core.PassResult{Delivered: 1})
	e.nextEmail(t, "charles@example.com")
	if got := e.find(t, m.ID); got.Status != core.StatusDelivered || got.LastError != "" {
		t.Fatalf("%s %q", got.Status, got.LastError)
	}
}

func TestPermanentRefusalByTheServerFails(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.d.Reminders = nil
	u := e.mustUser(t, "ada@example.com", "")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	e.clock.Set(m.SendDate)
	e.smtp.FailNext(1, 550, "no such user")
	e.pass(t, core.PassResult{Failed: 1})
	p, _ := e.nextEmail(t, "ada@example.com")
	if !strings.Contains(p.Text, "no such user") {
		t.Fatalf("failure email:\n%s", p.Text)
	}
}

func TestRecipientRefusal(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.d.Reminders = nil
	u := e.mustUser(t, "ada@example.com", "")
	first := e.mustMessage(t, u.ID, core.Interval1M)
	e.clock.Set(first.SendDate)
	e.pass(t, core.PassResult{Delivered: 1})
	p, _ := e.nextEmail(t, "charles@example.com")

	// The recipient follows the one-click link of the first delivery.
	link := strings.Trim(p.Header.Get("List-Unsubscribe"), "<>")
	token := strings.TrimPrefix(link, baseURL+"/unsubscribe/")
	if !strings.Contains(p.Text, link) {
		t.Fatal("the footer lacks the refusal link")
	}
	addr, err := e.d.Refusals.Address(token)
	if err != nil || addr != "charles@example.com" {
		t.Fatalf("token opens to %q, %v", addr, err)
	}
	if _, err := e.d.Refusals.Address(token[:len(token)-2] + "AA"); err == nil {
		t.Fatal("a forged token opened")
	}
	if err := e.db.RefuseAddress(e.ctx, addr, e.clock.Now()); err != nil {
		t.Fatal(err)
	}

	// A pro author's second message to the same address is refused.
	if _, err := e.db.UpdateUser(e.ctx, u.ID, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = "plan:pro", "active"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	second := e.mustMessage(t, u.ID, core.Interval1M)
	e.clock.Set(second.SendDate)
	e.pass(t, core.PassResult{Failed: 1})
	got := e.find(t, second.ID)
	if got.Status != core.StatusFailed || !strings.Contains(got.LastError, "refused") {
		t.Fatalf("%s %q", got.Status, got.LastError)
	}
	p, _ = e.nextEmail(t, "ada@example.com")
	if !strings.Contains(p.Text, "refused") {
		t.Fatalf("the author was not told why:\n%s", p.Text)
	}
	e.noMoreEmail(t)
}

func TestMonthEndAndTimeZones(t *testing.T) {
	ny := core.LoadLocation("America/New_York")
	// Jan 31, 23:30 in New York is already Feb 1 in UTC.
	e := MustDeliveryEnv(t, time.Date(2026, 1, 31, 23, 30, 0, 0, ny))
	e.d.Reminders = nil
	u := e.mustUser(t, "ada@example.com", "America/New_York")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	if want := time.Date(2026, 2, 28, 23, 30, 0, 0, ny); !m.SendDate.Equal(want) {
		t.Fatalf("Jan 31 + 1 month = %v, want %v (clamped to February's end in the author's zone)", m.SendDate.In(ny), want)
	}
	e.clock.Set(m.SendDate.Add(-time.Second))
	e.pass(t, core.PassResult{})
	e.clock.Set(m.SendDate)
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
	e2.clock.Set(time.Date(2026, 3, 1, 23, 30, 0, 0, berlin)) // 22:30 UTC
	sameDay, err := e2.messages.Postpone(e2.ctx, u2.ID, m2.ID)
	if err != nil || !sameDay.SendDate.Equal(m2.SendDate) {
		t.Fatalf("same-day postpone moved the date: %v %v", sameDay.SendDate, err)
	}
	e2.clock.Set(time.Date(2026, 3, 2, 0, 30, 0, 0, berlin)) // still Mar 1 in UTC
	moved, err := e2.messages.Postpone(e2.ctx, u2.ID, m2.ID)
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
	e.clock.Set(m.SendDate.Add(time.Hour))
	e.pass(t, core.PassResult{Delivered: 1})
	e.nextEmail(t, "charles@example.com")
	e.noMoreEmail(t)
}

func TestStoppedPassLosesNothing(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.d.Reminders = nil
	u := e.mustUser(t, "ada@example.com", "")
	if _, err := e.db.UpdateUser(e.ctx, u.ID, func(u *core.User) error {
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
	e.clock.Set(last.SendDate)
	e.smtp.SetDelay(20 * time.Millisecond)
	ctx, cancel := context.WithCancel(e.ctx)
	go func() {
		e.smtp.WaitFor(3, 5*time.Second)
		cancel()
	}()
	res, err := e.d.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Delivered >= n {
		t.Fatalf("the pass did not stop: %v", res)
	}
	// Nothing is left claimed: the next pass, at once, sends the rest.
	e.smtp.SetDelay(0)
	res2, err := e.d.Run(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	ms, _, _ := e.db.ListMessages(e.ctx, core.MessageFilter{Owner: u.ID})
	for _, m := range ms {
		if m.Status != core.StatusDelivered {
			t.Fatalf("message %s is %s after a stop and a pass (%v, %v)", m.ID, m.Status, res, res2)
		}
	}
	if got := len(e.smtp.Messages()); got < n || got > n+e.d.Concurrency {
		t.Fatalf("received %d emails for %d messages", got, n)
	}
}

func TestBusinessWebhookIsSignedAndRetried(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.d.Reminders = nil
	e.d.Webhooks = webhook.NewClient(true, 2*time.Second) // the test server is on loopback
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
	secrets := &core.WebhookSecrets{Users: e.db, Store: e.db}
	_, err := secrets.Rotate(e.ctx, u.ID)
	wantCode(t, err, core.EFeatureNotIncluded)
	_, err = e.messages.Create(e.ctx, u.ID, core.MessageInput{Title: "t", Name: "n", Recipient: "charles@example.com", Body: "b", WebhookURL: hook.URL})
	wantCode(t, err, core.EFeatureNotIncluded)
	if _, err := e.db.UpdateUser(e.ctx, u.ID, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = "plan:business", "active"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	secret, err := secrets.Rotate(e.ctx, u.ID)
	if err != nil || len(secret) < 40 {
		t.Fatalf("secret %q %v", secret, err)
	}
	m, err := e.messages.Create(e.ctx, u.ID, core.MessageInput{Title: "t", Name: "n", Recipient: "charles@example.com", Body: "b", WebhookURL: hook.URL})
	if err != nil {
		t.Fatal(err)
	}

	e.clock.Set(m.SendDate)
	res := e.pass(t, core.PassResult{Delivered: 1})
	if res.Webhooks != 0 {
		t.Fatalf("webhook succeeded against a failing endpoint: %v", res)
	}
	first := <-hits // 503: retried after a minute
	e.clock.Add(time.Minute)
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
	e.clock.Add(time.Hour)
	if res = e.pass(t, core.PassResult{}); res.Webhooks != 0 {
		t.Fatal("a webhook was called again after success")
	}
}

// The author's notice of a failed delivery is queued with the failure: a
// mail server that refuses it for a while only delays it.
func TestTheFailureNoticeWaitsForTheMailServer(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.d.Reminders = nil
	u := e.mustUser(t, "ada@example.com", "")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	e.clock.Set(m.SendDate)
	e.smtp.FailNext(1, 550, "no such user")         // the delivery, for good
	e.smtp.FailNextData(1, 451, "mail system busy") // then the notice, for now
	e.pass(t, core.PassResult{Failed: 1})
	e.noMoreEmail(t)

	e.clock.Add(core.RetryDelays[0])
	e.pass(t, core.PassResult{})
	p, _ := e.nextEmail(t, "ada@example.com")
	if !strings.Contains(p.Subject, "could not be delivered") || !strings.Contains(p.Text, "no such user") {
		t.Fatalf("failure email %q:\n%s", p.Subject, p.Text)
	}
	e.clock.Add(time.Hour)
	e.pass(t, core.PassResult{})
	e.noMoreEmail(t)
}

package core_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

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

// When the author's failure notice is refused too, the failure stays
// visible: the outbox keeps the notice (failed for good, counted), the
// operator's tools show it, and the daily summary tells the operator, once
// a day.
func TestAFailureNobodyWasToldIsVisible(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.Delivery.Reminders = nil
	u := e.mustUser(t, "ada@example.com", "")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	e.SMTP.FailNext(2, 550, "5.1.1 mailbox unavailable") // the delivery, then the notice
	e.Clock.Set(m.SendDate)
	e.pass(t, core.PassResult{Failed: 1})
	if got := e.find(t, m.ID); got.Status != core.StatusFailed || !strings.Contains(got.LastError, "mailbox unavailable") {
		t.Fatalf("message %s %q", got.Status, got.LastError)
	}
	if pending, failed, err := e.DB.CountOutbox(e.Ctx); err != nil || pending != 0 || failed != 1 {
		t.Fatalf("outbox: %d pending, %d failed, %v", pending, failed, err)
	}
	notice, err := e.Admin.MessageOutbox(e.Ctx, m.ID)
	if err != nil || notice.Kind != core.OutboxFailureNotice || notice.FailedAt.IsZero() || !strings.Contains(notice.LastError, "550") {
		t.Fatalf("the notice: %+v %v", notice, err)
	}

	sum := &core.Summary{Store: e.DB, Outbox: e.Outbox, Emails: e.Emails, Limits: e.Limits, Clock: e.Clock,
		To: core.Address{Address: "ops@sendlater.test"}}
	e.Clock.Add(time.Hour)
	d, err := sum.Send(e.Ctx)
	if err != nil || d.Failed != 1 || d.Items[0].MessageID != m.ID || d.Items[0].Owner != u.ID || d.Items[0].Recipient != "" {
		t.Fatalf("summary %+v %v", d, err)
	}
	p, _ := e.Next(t, "ops@sendlater.test")
	if !strings.Contains(p.Subject, "1 failed for good") || !strings.Contains(p.Text, m.ID) ||
		!strings.Contains(p.Text, "mailbox unavailable") || strings.Contains(p.Text, "ada@example.com") {
		t.Fatalf("summary email %q:\n%s", p.Subject, p.Text)
	}
	// One a day, however many processes ask.
	if d, err := sum.Send(e.Ctx); d != nil || err != nil {
		t.Fatalf("a second summary the same day: %+v %v", d, err)
	}
	e.NoMoreEmail(t)
	e.Clock.Add(24 * time.Hour)
	if d, err := sum.Send(e.Ctx); err != nil || d == nil || d.Failed != 0 {
		t.Fatalf("the next day: %+v %v", d, err)
	}
	e.NoMoreEmail(t) // nothing new failed: the log only
}

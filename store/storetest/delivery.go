package storetest

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// The delivery pass's store methods (core.DeliveryStore). Run skips these
// when the backend sets no Delivery store.

func needsDelivery(fn func(t *testing.T, s Stores)) func(t *testing.T, s Stores) {
	return func(t *testing.T, s Stores) {
		if s.Delivery == nil {
			t.Skip("the backend has no delivery store")
		}
		fn(t, s)
	}
}

// claimSending is a claim as the pass makes it: every message offered is
// taken under a lease.
func claimSending(lease time.Time) func(m *core.Message) bool {
	return func(m *core.Message) bool {
		m.Status, m.LeaseUntil = core.StatusSending, lease
		return true
	}
}

func testClaimDeliveries(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	a := MustCreateMessage(t, s, u.ID, core.Interval1M)
	s.Clock.Add(time.Second)
	b := MustCreateMessage(t, s, u.ID, core.Interval1M)
	s.Clock.Add(time.Second)
	c := MustCreateMessage(t, s, u.ID, core.Interval6M)

	// Nothing due: claim is never called.
	got, err := s.Delivery.ClaimDeliveries(ctx, a.SendDate.Add(-time.Second), 10, func(*core.Message) bool {
		t.Fatal("claim called with nothing due")
		return false
	})
	must(t, err)
	wantIDs(t, "claimed before sendDate", got)

	// Due: offered earliest first, up to the limit; a refused offer is not written.
	now := b.SendDate
	lease := now.Add(10 * time.Minute)
	var offered []string
	got, err = s.Delivery.ClaimDeliveries(ctx, now, 1, func(m *core.Message) bool {
		offered = append(offered, m.ID)
		if m.ID == a.ID {
			return false
		}
		return claimSending(lease)(m)
	})
	must(t, err)
	wantIDs(t, "claimed", got, b.ID)
	if len(offered) != 2 || offered[0] != a.ID || offered[1] != b.ID {
		t.Fatalf("offered %v, want a then b", offered)
	}
	stored, err := s.Messages.FindMessageByID(ctx, b.ID)
	must(t, err)
	if stored.Status != core.StatusSending || !stored.LeaseUntil.Equal(lease) || !stored.DueAt.Equal(lease) {
		t.Fatalf("claimed message stored as %s lease %v due %v", stored.Status, stored.LeaseUntil, stored.DueAt)
	}
	untouched, err := s.Messages.FindMessageByID(ctx, a.ID)
	must(t, err)
	wantMessage(t, untouched, a)

	// The claim moved b's due entry to its lease; c is not due yet.
	wantDue(t, s, now, a.ID)
	wantDue(t, s, lease, a.ID, b.ID)
	if !c.SendDate.After(lease) {
		t.Fatal("fixture: c should be due later")
	}
}

func testClaimReminders(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	m := MustCreateMessage(t, s, u.ID, core.Interval1M)
	remind := m.SendDate.Add(-s.Reminders[0])
	got, err := s.Delivery.ClaimReminders(ctx, remind.Add(-time.Second), 10, claimSending(remind))
	must(t, err)
	wantIDs(t, "reminders claimed early", got)

	// A reminder lease moves the reminder entry to the lease's end.
	lease := remind.Add(time.Minute)
	got, err = s.Delivery.ClaimReminders(ctx, remind, 10, func(m *core.Message) bool {
		m.LeaseUntil = lease
		return true
	})
	must(t, err)
	wantIDs(t, "reminders claimed", got, m.ID)
	wantReminders(t, s, remind)
	wantReminders(t, s, lease, m.ID)
	wantDue(t, s, m.SendDate, m.ID)
}

func testSettleMessage(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	m := MustCreateMessage(t, s, u.ID, core.Interval1M)
	now := m.SendDate

	// An error aborts both the message and the outbox item.
	_, err := s.Delivery.SettleMessage(ctx, m.ID, func(x *core.Message) ([]*core.OutboxItem, error) {
		x.Status = core.StatusDelivered
		return []*core.OutboxItem{{ID: x.ID, MessageID: x.ID, Owner: x.Owner, URL: "https://hooks.example/x", NextAttemptAt: now}}, errAbort
	})
	if !errors.Is(err, errAbort) {
		t.Fatalf("SettleMessage error = %v, want the callback's", err)
	}
	got, err := s.Messages.FindMessageByID(ctx, m.ID)
	must(t, err)
	wantMessage(t, got, m)
	calls, err := s.Delivery.ClaimOutbox(ctx, now, now.Add(time.Minute), 10)
	must(t, err)
	if len(calls) != 0 {
		t.Fatalf("an aborted settlement left %d outbox items", len(calls))
	}

	// Delivered with a webhook call: both written, out of the due index.
	settled, err := s.Delivery.SettleMessage(ctx, m.ID, func(x *core.Message) ([]*core.OutboxItem, error) {
		x.Status, x.DeliveredAt = core.StatusDelivered, now
		return []*core.OutboxItem{{ID: x.ID, MessageID: x.ID, Owner: x.Owner, URL: "https://hooks.example/x",
			Recipient: x.Recipient, DeliveredAt: now, NextAttemptAt: now}}, nil
	})
	must(t, err)
	got, err = s.Messages.FindMessageByID(ctx, m.ID)
	must(t, err)
	wantMessage(t, got, settled)
	wantDue(t, s, now.AddDate(1, 0, 0))

	_, err = s.Delivery.SettleMessage(ctx, "nope", func(*core.Message) ([]*core.OutboxItem, error) { return nil, nil })
	wantCode(t, err, core.EMessageNotFound)

	// The call: leased, then due again when the lease ends, then done.
	lease := now.Add(time.Minute)
	calls, err = s.Delivery.ClaimOutbox(ctx, now, lease, 10)
	must(t, err)
	if len(calls) != 1 || calls[0].ID != m.ID || calls[0].MessageID != m.ID || calls[0].Recipient != m.Recipient || !calls[0].NextAttemptAt.Equal(lease) {
		t.Fatalf("claimed calls %+v", calls)
	}
	again, err := s.Delivery.ClaimOutbox(ctx, now, lease, 10)
	must(t, err)
	if len(again) != 0 {
		t.Fatal("a leased webhook call was claimed twice")
	}
	retry := calls[0]
	retry.Attempts, retry.NextAttemptAt, retry.LastError = 1, now.Add(time.Hour), "503 from hooks.example"
	must(t, s.Delivery.SettleOutbox(ctx, retry, false))
	if again, _ = s.Delivery.ClaimOutbox(ctx, lease, lease, 10); len(again) != 0 {
		t.Fatal("a call was claimed before its retry time")
	}
	again, err = s.Delivery.ClaimOutbox(ctx, now.Add(time.Hour), now.Add(2*time.Hour), 10)
	must(t, err)
	if len(again) != 1 || again[0].Attempts != 1 || again[0].LastError != "503 from hooks.example" {
		t.Fatalf("retried call %+v", again)
	}
	must(t, s.Delivery.SettleOutbox(ctx, again[0], true))
	if again, _ = s.Delivery.ClaimOutbox(ctx, now.AddDate(1, 0, 0), now.AddDate(1, 0, 0), 10); len(again) != 0 {
		t.Fatal("a finished call came back")
	}
	_, err = s.Delivery.FindOutboxItem(ctx, m.ID)
	wantCode(t, err, core.ENotFound)
}

// testOutbox: identity emails, sealed whole, and items that failed for
// good, kept out of the due index for the operator.
func testOutbox(t *testing.T, s Stores) {
	now := s.Clock.Now()
	email := &core.Email{To: []core.Address{{Name: "Ada", Address: "ada@example.com"}}, Subject: "Reset your password",
		Text: "https://sendlater.test/firebase-action?mode=resetPassword&oobCode=SECRET"}
	a := &core.OutboxItem{ID: core.NewID(), Kind: core.OutboxEmail, Recipient: "ada@example.com", Email: email, NextAttemptAt: now}
	b := &core.OutboxItem{ID: core.NewID(), Kind: core.OutboxPasswordReset, Recipient: "bob@example.com", NextAttemptAt: now.Add(time.Second)}
	must(t, s.Delivery.AddOutboxItem(ctx, a))
	must(t, s.Delivery.AddOutboxItem(ctx, b))
	wantOutboxCounts(t, s, 2, 0)
	got, err := s.Delivery.FindOutboxItem(ctx, a.ID)
	must(t, err)
	if !reflect.DeepEqual(got, a) {
		t.Fatalf("FindOutboxItem = %+v, want %+v", got, a)
	}
	claimed, err := s.Delivery.ClaimOutbox(ctx, now.Add(time.Second), now.Add(time.Minute), 10)
	must(t, err)
	if len(claimed) != 2 || claimed[0].ID != a.ID || claimed[1].ID != b.ID || !reflect.DeepEqual(claimed[0].Email, email) {
		t.Fatalf("claimed %+v", claimed)
	}
	// a failed for good: kept without its email, never due again.
	failed := claimed[0]
	failed.FailedAt, failed.NextAttemptAt, failed.Email, failed.LastError = now, time.Time{}, nil, "550 no such user"
	must(t, s.Delivery.SettleOutbox(ctx, failed, false))
	wantOutboxCounts(t, s, 1, 1)
	if again, _ := s.Delivery.ClaimOutbox(ctx, now.AddDate(1, 0, 0), now.AddDate(1, 0, 1), 10); len(again) != 1 || again[0].ID != b.ID {
		t.Fatalf("claimed after the failure: %+v", again)
	}
	list, err := s.Delivery.FailedOutbox(ctx, now, 10)
	must(t, err)
	if len(list) != 1 || list[0].ID != a.ID || list[0].LastError != "550 no such user" || list[0].Email != nil || !list[0].FailedAt.Equal(now) {
		t.Fatalf("FailedOutbox = %+v", list)
	}
	if list, _ = s.Delivery.FailedOutbox(ctx, now.Add(time.Second), 10); len(list) != 0 {
		t.Fatalf("FailedOutbox since later = %+v", list)
	}
	must(t, s.Delivery.SettleOutbox(ctx, b, true))
	wantOutboxCounts(t, s, 0, 1)
	_, err = s.Delivery.FindOutboxItem(ctx, "nope")
	wantCode(t, err, core.ENotFound)
}

func wantOutboxCounts(tb testing.TB, s Stores, pending, failed int) {
	tb.Helper()
	p, f, err := s.Delivery.CountOutbox(ctx)
	must(tb, err)
	if p != pending || f != failed {
		tb.Fatalf("CountOutbox = %d pending, %d failed; want %d, %d", p, f, pending, failed)
	}
}

func testRefusals(t *testing.T, s Stores) {
	refused, err := s.Delivery.AddressRefused(ctx, "grace@example.com")
	must(t, err)
	if refused {
		t.Fatal("refused before any refusal")
	}
	must(t, s.Delivery.RefuseAddress(ctx, "Grace@Example.com", s.Clock.Now()))
	must(t, s.Delivery.RefuseAddress(ctx, "grace@example.com", s.Clock.Now())) // twice is fine
	for _, addr := range []string{"grace@example.com", " GRACE@example.COM "} {
		refused, err = s.Delivery.AddressRefused(ctx, addr)
		must(t, err)
		if !refused {
			t.Fatalf("%q not refused", addr)
		}
	}
	refused, err = s.Delivery.AddressRefused(ctx, "ada@example.com")
	must(t, err)
	if refused {
		t.Fatal("another address refused")
	}
}

// testReadForSend: what a send reads before it starts, in one go.
func testReadForSend(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	m := MustCreateMessage(t, s, u.ID, core.Interval1M)
	must(t, s.Delivery.RefuseAddress(ctx, "Grace@Example.com", s.Clock.Now()))
	got, author, refused, err := s.Delivery.ReadForSend(ctx, m.ID, u.ID, []string{"ada@example.com", "grace@example.com", " GRACE@example.COM "})
	must(t, err)
	wantMessage(t, got, m)
	if author.ID != u.ID || author.Email != u.Email {
		t.Fatalf("author %+v, want %+v", author, u)
	}
	if !reflect.DeepEqual(refused, []bool{false, true, true}) {
		t.Fatalf("refused %v, want [false true true]", refused)
	}
	if _, _, refused, err = s.Delivery.ReadForSend(ctx, m.ID, u.ID, nil); err != nil || len(refused) != 0 {
		t.Fatalf("without addresses: %v %v", refused, err)
	}
	_, _, _, err = s.Delivery.ReadForSend(ctx, "nope", u.ID, nil)
	wantCode(t, err, core.EMessageNotFound)
	_, _, _, err = s.Delivery.ReadForSend(ctx, m.ID, "nobody", nil)
	wantCode(t, err, core.EUserNotFound)
}

func testWebhookSecrets(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	secret, err := s.Delivery.WebhookSecret(ctx, u.ID)
	must(t, err)
	if secret != "" {
		t.Fatalf("secret before one was made: %q", secret)
	}
	must(t, s.Delivery.SetWebhookSecret(ctx, u.ID, "first"))
	must(t, s.Delivery.SetWebhookSecret(ctx, u.ID, "second"))
	if secret, err = s.Delivery.WebhookSecret(ctx, u.ID); err != nil || secret != "second" {
		t.Fatalf("secret %q, %v; want the rotated one", secret, err)
	}
	wantCode(t, s.Delivery.SetWebhookSecret(ctx, "ghost", "x"), core.EUserNotFound)

	must(t, s.Users.DeleteUser(ctx, u.ID))
	if secret, err = s.Delivery.WebhookSecret(ctx, u.ID); err != nil || secret != "" {
		t.Fatalf("secret %q, %v after the user was deleted", secret, err)
	}
}

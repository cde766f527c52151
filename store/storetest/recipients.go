package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// testRecipients: a message's recipients, each with the delivery of their
// own email, are kept as written; a settlement writes one outbox item per
// recipient with it.
func testRecipients(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	m := core.NewMessage(u.ID, core.MessageInput{
		Title: "For all three", Body: "Dear all,\nthe body.",
		Recipients: []core.RecipientInput{
			{Name: "Grace", Address: "grace@example.com"},
			{Name: "Alan", Address: "alan@example.org"},
			{Name: "Ünïcödé Ada", Address: "ada.l@example.net"},
		},
	}, s.Clock.Now(), time.UTC)
	must(t, s.Messages.CreateMessage(ctx, m, allow))
	got, err := s.Messages.FindMessageByID(ctx, m.ID)
	must(t, err)
	wantMessage(t, got, m)
	if len(got.Recipients) != 3 || got.Name != "Grace" || got.Recipient != "grace@example.com" {
		t.Fatalf("stored recipients %+v (first %q <%s>)", got.Recipients, got.Name, got.Recipient)
	}

	// The delivery state of each recipient, and two outbox items with it.
	now := m.SendDate
	settled, err := s.Delivery.SettleMessage(ctx, m.ID, func(x *core.Message) ([]*core.OutboxItem, error) {
		rs := append([]core.Recipient(nil), x.Recipients...)
		rs[0].Status, rs[0].SentAt, rs[0].EmailMessageID = core.RecipientSent, now, "a@example.test"
		rs[1].Attempts, rs[1].NextAttemptAt, rs[1].LastError, rs[1].EmailMessageID = 1, now.Add(time.Minute), "421 try later", "b@example.test"
		rs[2].Status, rs[2].LastError = core.RecipientFailed, "550 no such user"
		x.Recipients = rs
		return []*core.OutboxItem{
			{ID: x.ID, MessageID: x.ID, Owner: x.Owner, URL: "https://hooks.example/x", Recipient: rs[0].Address, DeliveredAt: now, NextAttemptAt: now},
			{ID: x.ID + ".2", Kind: core.OutboxFailureNotice, MessageID: x.ID, Owner: x.Owner, Recipient: rs[2].Address, NextAttemptAt: now},
		}, nil
	})
	must(t, err)
	got, err = s.Messages.FindMessageByID(ctx, m.ID)
	must(t, err)
	wantMessage(t, got, settled)
	for _, id := range []string{m.ID, m.ID + ".2"} {
		item, err := s.Delivery.FindOutboxItem(ctx, id)
		must(t, err)
		if item.MessageID != m.ID {
			t.Fatalf("outbox item %s follows %q", id, item.MessageID)
		}
	}

	// A message written without a list reads with none: RecipientList
	// makes its one recipient.
	old := NewMessage(s, u.ID, core.Interval1M)
	old.Recipients = nil
	must(t, s.Messages.CreateMessage(ctx, old, allow))
	got, err = s.Messages.FindMessageByID(ctx, old.ID)
	must(t, err)
	if len(got.Recipients) != 0 || len(got.RecipientList()) != 1 || got.RecipientList()[0].Address != old.Recipient {
		t.Fatalf("a message without a list reads %+v", got.Recipients)
	}
}

// testMessageEvents: a message's events are written with it, in order,
// sealed, and go with it.
func testMessageEvents(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	m := NewMessage(s, u.ID, core.Interval1M)
	now := s.Clock.Now()
	m.Events = []core.MessageEvent{{At: now, Kind: core.EventCreated, Actor: core.ActorDashboard}}
	must(t, s.Messages.CreateMessage(ctx, m, allow))
	if len(m.Events) != 0 {
		t.Fatalf("CreateMessage left %d events to write", len(m.Events))
	}
	other := MustCreateMessage(t, s, u.ID, core.Interval1M)
	_, err := s.Delivery.SettleMessage(ctx, m.ID, func(x *core.Message) ([]*core.OutboxItem, error) {
		x.Events = append(x.Events,
			core.MessageEvent{At: now.Add(time.Minute), Kind: core.EventSent, Recipient: "grace@example.com"},
			core.MessageEvent{At: now.Add(time.Minute), Kind: core.EventRetrying, Recipient: "alan@example.org",
				Detail: "451 alan@example.org: try later", NextAttemptAt: now.Add(2 * time.Minute)})
		return nil, nil
	})
	must(t, err)
	// An aborted write appends nothing.
	_, err = s.Messages.UpdateMessage(ctx, m.ID, func(x *core.Message) error {
		x.Events = append(x.Events, core.MessageEvent{At: now, Kind: core.EventEdited})
		return errAbort
	})
	if !errors.Is(err, errAbort) {
		t.Fatalf("UpdateMessage error = %v", err)
	}
	got, err := s.Messages.ListMessageEvents(ctx, m.ID)
	must(t, err)
	if len(got) != 3 || got[0].Kind != core.EventCreated || got[0].Actor != core.ActorDashboard ||
		got[1].Kind != core.EventSent || got[1].Recipient != "grace@example.com" ||
		got[2].Detail != "451 alan@example.org: try later" || !got[2].NextAttemptAt.Equal(now.Add(2*time.Minute)) ||
		!got[2].At.Equal(now.Add(time.Minute)) || got[2].MessageID != m.ID {
		t.Fatalf("events %+v", got)
	}
	if none, err := s.Messages.ListMessageEvents(ctx, other.ID); err != nil || len(none) != 0 {
		t.Fatalf("another message's events: %+v %v", none, err)
	}
	must(t, s.Messages.DeleteMessage(ctx, m.ID))
	if gone, err := s.Messages.ListMessageEvents(ctx, m.ID); err != nil || len(gone) != 0 {
		t.Fatalf("a deleted message's events: %+v %v", gone, err)
	}
}

package storetest

import (
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// testBounceMarks: a recipient's bounce mark is a record of its own beside
// its message (issue 31): a bounce writes the mark, its event and the
// author's email without writing the message; marks are found in any case
// of the address, survive the message's own writes, go when an edit
// removes their address (and do not come back with it), and go with the
// message and its user.
func testBounceMarks(t *testing.T, s Stores) {
	now := s.Clock.Now()
	u := MustCreateUser(t, s, "ada@example.com")
	m := MustCreateMessage(t, s, u.ID, core.Interval1M)
	two := []core.RecipientInput{{Name: "Bob", Address: "Bob@Example.org"}, {Name: "Cy", Address: "cy@example.org"}}
	_, err := s.Messages.UpdateMessage(ctx, m.ID, func(m *core.Message) error {
		m.Apply(core.MessageUpdate{Recipients: &two}, now, time.UTC)
		return nil
	})
	must(t, err)
	marks := func(ids ...string) []*core.BounceMark {
		t.Helper()
		l, err := s.Messages.ListBounceMarks(ctx, ids)
		must(t, err)
		return l
	}
	joined := func() []core.Recipient {
		t.Helper()
		got, err := s.Messages.FindMessageByID(ctx, m.ID)
		must(t, err)
		must(t, core.JoinBounceMarks(ctx, s.Messages, got))
		return got.RecipientList()
	}
	record := func(w *core.BounceWrite) {
		t.Helper()
		must(t, s.Messages.RecordBounce(ctx, m.ID, func(got *core.Message) (*core.BounceWrite, error) {
			if got.ID != m.ID || len(got.RecipientList()) != 2 {
				t.Fatalf("RecordBounce read %+v", got)
			}
			return w, nil
		}))
	}
	if len(marks(m.ID)) != 0 {
		t.Fatal("a new message has marks")
	}
	record(nil) // nothing to write
	record(&core.BounceWrite{Address: "bob@example.org", Soft: true})
	record(&core.BounceWrite{Address: "BOB@example.org", Soft: true})
	if l := marks(m.ID); len(l) != 1 || l[0].SoftBounces != 2 || !l[0].Bounce.At.IsZero() || l[0].MessageID != m.ID {
		t.Fatalf("after two soft bounces: %+v", l)
	}
	bounce := core.RecipientBounce{At: now, Email: core.BounceNotice, Status: "5.1.1", Reason: "550 5.1.1 No such user"}
	item := &core.OutboxItem{ID: core.NewID(), Kind: core.OutboxEmail, Owner: u.ID, MessageID: m.ID, Recipient: "ada@example.com",
		Email: &core.Email{From: core.Address{Address: "app@example.com"}, To: []core.Address{{Address: "ada@example.com"}},
			Subject: "Bob's address returned your notice", Text: "Change it."}, NextAttemptAt: now}
	record(&core.BounceWrite{Address: "Bob@Example.org", Hard: &bounce, Outbox: []*core.OutboxItem{item},
		Event: &core.MessageEvent{At: now, Kind: core.EventBounced, Recipient: "Bob@Example.org", Detail: bounce.Reason}})
	record(&core.BounceWrite{Address: "cy@example.org",
		Event: &core.MessageEvent{At: now, Kind: core.EventComplained, Recipient: "cy@example.org", Detail: "spam"}})
	rs := joined()
	if !rs[0].Bouncing() || rs[0].Bounce.Reason != bounce.Reason || rs[0].Bounce.Status != "5.1.1" ||
		rs[0].Bounce.Email != core.BounceNotice || !rs[0].Bounce.At.Equal(now) || rs[0].SoftBounces != 2 {
		t.Fatalf("bob %+v", rs[0])
	}
	if rs[1].Bouncing() || rs[1].SoftBounces != 0 || len(marks(m.ID)) != 1 {
		t.Fatalf("cy %+v (a complaint writes no mark)", rs[1])
	}
	events, err := s.Messages.ListMessageEvents(ctx, m.ID)
	must(t, err)
	var kinds []core.EventKind
	for _, e := range events {
		kinds = append(kinds, e.Kind)
	}
	if n := len(events); n < 2 || events[n-2].Kind != core.EventBounced || events[n-2].Detail != bounce.Reason ||
		events[n-2].Recipient != "Bob@Example.org" || events[n-1].Kind != core.EventComplained {
		t.Fatalf("events %v", kinds)
	}
	if s.Delivery != nil {
		got, err := s.Delivery.FindOutboxItem(ctx, item.ID)
		must(t, err)
		if got.Email == nil || got.Email.Subject != item.Email.Subject {
			t.Fatalf("outbox item %+v", got)
		}
	}
	// A second hard bounce replaces the first and keeps the count.
	later := core.RecipientBounce{At: now.Add(time.Hour), Email: core.BounceDelivery, Status: "5.2.1", Reason: "mailbox disabled"}
	record(&core.BounceWrite{Address: "bob@example.org", Hard: &later})
	if r := joined()[0]; r.Bounce.Reason != later.Reason || r.Bounce.Email != core.BounceDelivery || r.SoftBounces != 2 {
		t.Fatalf("after a second hard bounce %+v", r)
	}
	// The message's own writes (a delivery's, an edit of its title) keep
	// the marks: they are not in its record.
	if s.Delivery != nil {
		_, err = s.Delivery.SettleMessage(ctx, m.ID, func(m *core.Message) ([]*core.OutboxItem, error) {
			m.Attempts++
			return nil, nil
		})
		must(t, err)
	}
	title := "A new title"
	_, err = s.Messages.UpdateMessage(ctx, m.ID, func(m *core.Message) error {
		m.Apply(core.MessageUpdate{Title: &title}, now, time.UTC)
		return nil
	})
	must(t, err)
	if !joined()[0].Bouncing() {
		t.Fatal("a write of the message lost the mark")
	}
	// Reordering keeps the mark with its address; editing the address
	// clears it, and it does not come back with the old address.
	swapped := []core.RecipientInput{two[1], two[0]}
	_, err = s.Messages.UpdateMessage(ctx, m.ID, func(m *core.Message) error {
		m.Apply(core.MessageUpdate{Recipients: &swapped}, now, time.UTC)
		return nil
	})
	must(t, err)
	if rs := joined(); rs[0].Bouncing() || !rs[1].Bouncing() {
		t.Fatalf("after reordering %+v", rs)
	}
	for _, list := range [][]core.RecipientInput{
		{{Name: "Bob", Address: "bob@example.net"}, two[1]},
		two,
	} {
		_, err = s.Messages.UpdateMessage(ctx, m.ID, func(m *core.Message) error {
			m.Apply(core.MessageUpdate{Recipients: &list}, now, time.UTC)
			return nil
		})
		must(t, err)
		if rs := joined(); rs[0].Bouncing() || rs[0].SoftBounces != 0 || len(marks(m.ID)) != 0 {
			t.Fatalf("after editing the address %+v", rs[0])
		}
	}
	// A bounce that read the message before an edit took its address away
	// writes its mark after the edit (PostgreSQL reads without a lock): the
	// mark is of no recipient, and when the address comes back it is new,
	// so it starts clean.
	record(&core.BounceWrite{Address: "dee@example.org", Hard: &bounce})
	back := []core.RecipientInput{two[0], {Name: "Dee", Address: "Dee@example.org"}}
	_, err = s.Messages.UpdateMessage(ctx, m.ID, func(m *core.Message) error {
		m.Apply(core.MessageUpdate{Recipients: &back}, now, time.UTC)
		return nil
	})
	must(t, err)
	if rs := joined(); rs[1].Bouncing() || len(marks(m.ID)) != 0 {
		t.Fatalf("an address added again kept a mark of before: %+v %+v", rs[1], marks(m.ID))
	}
	_, err = s.Messages.UpdateMessage(ctx, m.ID, func(m *core.Message) error {
		m.Apply(core.MessageUpdate{Recipients: &two}, now, time.UTC)
		return nil
	})
	must(t, err)
	// A message gone: nothing is written, and its marks go with it.
	record(&core.BounceWrite{Address: "bob@example.org", Soft: true})
	other := MustCreateMessage(t, s, u.ID, core.Interval1M)
	must(t, s.Messages.RecordBounce(ctx, other.ID, func(m *core.Message) (*core.BounceWrite, error) {
		return &core.BounceWrite{Address: m.Recipient, Hard: &bounce}, nil
	}))
	if len(marks(m.ID, other.ID)) != 2 {
		t.Fatalf("marks %+v", marks(m.ID, other.ID))
	}
	must(t, s.Messages.DeleteMessage(ctx, m.ID))
	if l := marks(m.ID, other.ID); len(l) != 1 || l[0].MessageID != other.ID {
		t.Fatalf("after deleting the message: %+v", l)
	}
	err = s.Messages.RecordBounce(ctx, m.ID, func(*core.Message) (*core.BounceWrite, error) {
		t.Fatal("fn ran for a message gone")
		return nil, nil
	})
	wantCode(t, err, core.EMessageNotFound)
	must(t, s.Users.DeleteUser(ctx, u.ID))
	if l := marks(other.ID); len(l) != 0 {
		t.Fatalf("after deleting the user: %+v", l)
	}
}

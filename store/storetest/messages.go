package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

func testMessages(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	m := MustCreateMessage(t, s, u.ID, core.Interval6M)
	if !m.DueAt.Equal(m.SendDate) || !m.RemindAt.Equal(m.SendDate.Add(-s.Reminders[0])) {
		t.Fatalf("CreateMessage did not reschedule: due %v remind %v, sendDate %v", m.DueAt, m.RemindAt, m.SendDate)
	}
	got, err := s.Messages.FindMessageByID(ctx, m.ID)
	must(t, err)
	wantMessage(t, got, m)

	s.Clock.Add(time.Hour)
	up, err := s.Messages.UpdateMessage(ctx, m.ID, func(x *core.Message) error {
		body, title := "A new body, with ünïcödé and\nnew lines.", "New title"
		x.Apply(core.MessageUpdate{Body: &body, Title: &title}, s.Clock.Now(), time.UTC)
		x.LastError = "550 grace@example.com: no such user"
		x.Featured = true
		return nil
	})
	must(t, err)
	got, err = s.Messages.FindMessageByID(ctx, m.ID)
	must(t, err)
	wantMessage(t, got, up)
	if got.Body != "A new body, with ünïcödé and\nnew lines." || got.Title != "New title" || !got.UpdatedAt.Equal(s.Clock.Now()) {
		t.Fatalf("after UpdateMessage: %+v", got)
	}

	_, err = s.Messages.FindMessageByID(ctx, "nope")
	wantCode(t, err, core.EMessageNotFound)
	_, err = s.Messages.UpdateMessage(ctx, "nope", func(*core.Message) error { return nil })
	wantCode(t, err, core.EMessageNotFound)
	wantCode(t, s.Messages.DeleteMessage(ctx, "nope"), core.EMessageNotFound)

	must(t, s.Messages.DeleteMessage(ctx, m.ID))
	_, err = s.Messages.FindMessageByID(ctx, m.ID)
	wantCode(t, err, core.EMessageNotFound)
	wantCode(t, s.Messages.DeleteMessage(ctx, m.ID), core.EMessageNotFound)
	n, err := s.Messages.CountMessages(ctx, u.ID)
	must(t, err)
	if n != 0 {
		t.Fatalf("CountMessages after delete = %d", n)
	}

	// A second create with the same id does not overwrite the first.
	m2 := MustCreateMessage(t, s, u.ID, core.Interval1M)
	dup := NewMessage(s, u.ID, core.Interval1M)
	dup.ID = m2.ID
	if err := s.Messages.CreateMessage(ctx, dup, allow); err == nil {
		t.Fatal("CreateMessage with an existing id succeeded")
	}
	got, err = s.Messages.FindMessageByID(ctx, m2.ID)
	must(t, err)
	wantMessage(t, got, m2)
}

func testMessageOwnerMissing(t *testing.T, s Stores) {
	m := NewMessage(s, "ghost", core.Interval1M)
	called := false
	err := s.Messages.CreateMessage(ctx, m, func(*core.User, bool) error { called = true; return nil })
	wantCode(t, err, core.EUserNotFound)
	if called {
		t.Fatal("check ran for a missing owner")
	}
	_, err = s.Messages.FindMessageByID(ctx, m.ID)
	wantCode(t, err, core.EMessageNotFound)
}

func testMessageUpdateAborts(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	m := MustCreateMessage(t, s, u.ID, core.Interval1M)
	_, err := s.Messages.UpdateMessage(ctx, m.ID, func(x *core.Message) error {
		x.Body, x.IsActive, x.SendDate = "changed", false, x.SendDate.Add(48*time.Hour)
		return errAbort
	})
	if !errors.Is(err, errAbort) {
		t.Fatalf("UpdateMessage error = %v, want the callback's", err)
	}
	got, err := s.Messages.FindMessageByID(ctx, m.ID)
	must(t, err)
	wantMessage(t, got, m)
	due, err := s.Messages.DueMessages(ctx, m.SendDate, 0)
	must(t, err)
	wantIDs(t, "due after an aborted update", due, m.ID)
}

// A cursor (the message a page ends with) pages an owner's list in its
// order, ties of createdAt by id, and holds while messages come and go.
func testListMessagesAfter(t *testing.T, s Stores) {
	a := MustCreateUser(t, s, "ada@example.com")
	for i := range 7 {
		if i%3 != 2 { // some created in the same instant
			s.Clock.Add(time.Minute)
		}
		MustCreateMessage(t, s, a.ID, core.Interval1M)
	}
	whole, total, err := s.Messages.ListMessages(ctx, core.MessageFilter{Owner: a.ID})
	must(t, err)
	var walked []string
	var after *core.MessageCursor
	for {
		page, n, err := s.Messages.ListMessages(ctx, core.MessageFilter{Owner: a.ID, After: after, Limit: 3})
		must(t, err)
		if n != total {
			t.Fatalf("paged total = %d, want %d", n, total)
		}
		if len(page) == 0 {
			break
		}
		walked = append(walked, ids(page)...)
		last := page[len(page)-1]
		after = &core.MessageCursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	wantIDs(t, "walked by cursor", whole, walked...)
	// A deleted cursor message still places the page; a new message goes
	// to the first page, not the next.
	cursor := whole[2]
	must(t, s.Messages.DeleteMessage(ctx, cursor.ID))
	s.Clock.Add(time.Hour)
	MustCreateMessage(t, s, a.ID, core.Interval1M)
	got, _, err := s.Messages.ListMessages(ctx, core.MessageFilter{Owner: a.ID, After: &core.MessageCursor{CreatedAt: cursor.CreatedAt, ID: cursor.ID}})
	must(t, err)
	wantIDs(t, "after a deleted cursor", got, ids(whole[3:])...)
}

func testListMessages(t *testing.T, s Stores) {
	a := MustCreateUser(t, s, "ada@example.com")
	b := MustCreateUser(t, s, "bob@example.com")
	var as, all []string // newest first
	for i := range 10 {
		s.Clock.Add(time.Minute)
		owner := a.ID
		if i%3 == 2 {
			owner = b.ID
		}
		m := MustCreateMessage(t, s, owner, core.Interval1M)
		if owner == a.ID {
			as = append([]string{m.ID}, as...)
		}
		all = append([]string{m.ID}, all...)
	}
	got, total, err := s.Messages.ListMessages(ctx, core.MessageFilter{Owner: a.ID})
	must(t, err)
	wantIDs(t, "owner's messages", got, as...)
	if total != len(as) {
		t.Fatalf("total = %d, want %d", total, len(as))
	}
	got, total, err = s.Messages.ListMessages(ctx, core.MessageFilter{Owner: a.ID, Offset: 2, Limit: 3})
	must(t, err)
	wantIDs(t, "page 2+3", got, as[2:5]...)
	if total != len(as) {
		t.Fatalf("paged total = %d, want %d", total, len(as))
	}
	got, total, err = s.Messages.ListMessages(ctx, core.MessageFilter{Owner: a.ID, Offset: 50, Limit: 3})
	must(t, err)
	if len(got) != 0 || total != len(as) {
		t.Fatalf("page past the end = %v, total %d", ids(got), total)
	}
	got, total, err = s.Messages.ListMessages(ctx, core.MessageFilter{Owner: "nobody"})
	must(t, err)
	if len(got) != 0 || total != 0 {
		t.Fatalf("unknown owner = %v, total %d", ids(got), total)
	}
	got, total, err = s.Messages.ListMessages(ctx, core.MessageFilter{})
	must(t, err)
	wantIDs(t, "all messages", got, all...)
	if total != len(all) {
		t.Fatalf("total of all = %d, want %d", total, len(all))
	}
	got, _, err = s.Messages.ListMessages(ctx, core.MessageFilter{Offset: 1, Limit: 2})
	must(t, err)
	wantIDs(t, "all, paged", got, all[1:3]...)

	for owner, want := range map[string]int{a.ID: len(as), b.ID: len(all) - len(as), "nobody": 0} {
		n, err := s.Messages.CountMessages(ctx, owner)
		must(t, err)
		if n != want {
			t.Fatalf("CountMessages(%s) = %d, want %d", owner, n, want)
		}
	}
}

// testPlanLimitAtomic races creates for a user whose check allows a message
// only while they hold none: exactly one may win.
func testPlanLimitAtomic(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	limited := func(owner *core.User, hasMessages bool) error {
		if owner.ID != u.ID {
			return errors.New("check got the wrong owner")
		}
		if !core.MayAddMessage(core.PlanStarter, false, hasMessages) {
			return core.Errorf(core.EPlanLimit, "Upgrade your plan to add more messages.")
		}
		return nil
	}
	const n = 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			m := NewMessage(s, u.ID, core.Interval1M)
			<-start
			errs[i] = s.Messages.CreateMessage(ctx, m, limited)
		})
	}
	close(start)
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch core.ErrorCode(err) {
		case "":
			won++
		case core.EPlanLimit:
		default:
			t.Fatalf("CreateMessage: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d creates succeeded, want exactly 1", won)
	}
	count, err := s.Messages.CountMessages(ctx, u.ID)
	must(t, err)
	if count != 1 {
		t.Fatalf("CountMessages = %d, want 1", count)
	}
}

func testCreateCheckAborts(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	m := NewMessage(s, u.ID, core.Interval1M)
	err := s.Messages.CreateMessage(ctx, m, func(owner *core.User, hasMessages bool) error {
		if hasMessages || owner.Email != u.Email {
			t.Errorf("check got owner %q hasMessages %v", owner.Email, hasMessages)
		}
		return errAbort
	})
	if !errors.Is(err, errAbort) {
		t.Fatalf("CreateMessage error = %v, want the check's", err)
	}
	_, err = s.Messages.FindMessageByID(ctx, m.ID)
	wantCode(t, err, core.EMessageNotFound)
	due, err := s.Messages.DueMessages(ctx, m.SendDate.AddDate(1, 0, 0), 0)
	must(t, err)
	if len(due) != 0 {
		t.Fatalf("a refused message is due: %v", ids(due))
	}
}

// A message made with an idempotency key is found by it; the owner cannot
// make a second with the same key until the first is deleted; another
// owner can.
func testIdempotencyKey(t *testing.T, s Stores) {
	a := MustCreateUser(t, s, "ada@example.com")
	b := MustCreateUser(t, s, "bob@example.com")
	_, err := s.Messages.FindMessageByIdempotencyKey(ctx, a.ID, "k1")
	wantCode(t, err, core.EMessageNotFound)
	m := NewMessage(s, a.ID, core.Interval1M)
	m.IdempotencyKey = "k1"
	must(t, s.Messages.CreateMessage(ctx, m, allow))
	got, err := s.Messages.FindMessageByIdempotencyKey(ctx, a.ID, "k1")
	must(t, err)
	wantMessage(t, got, m)
	again := NewMessage(s, a.ID, core.Interval1M)
	again.IdempotencyKey = "k1"
	wantCode(t, s.Messages.CreateMessage(ctx, again, allow), core.EIdempotencyKeyUsed)
	_, err = s.Messages.FindMessageByID(ctx, again.ID)
	wantCode(t, err, core.EMessageNotFound)
	other := NewMessage(s, b.ID, core.Interval1M)
	other.IdempotencyKey = "k1"
	must(t, s.Messages.CreateMessage(ctx, other, allow))
	_, err = s.Messages.FindMessageByIdempotencyKey(ctx, a.ID, "k")
	wantCode(t, err, core.EMessageNotFound)
	_, err = s.Messages.FindMessageByIdempotencyKey(ctx, a.ID, "")
	wantCode(t, err, core.EMessageNotFound)
	// An update keeps the key; a delete frees it.
	_, err = s.Messages.UpdateMessage(ctx, m.ID, func(m *core.Message) error { m.Title = "changed"; return nil })
	must(t, err)
	if got, err := s.Messages.FindMessageByIdempotencyKey(ctx, a.ID, "k1"); err != nil || got.ID != m.ID {
		t.Fatalf("after an update: %v %v", got, err)
	}
	must(t, s.Messages.DeleteMessage(ctx, m.ID))
	_, err = s.Messages.FindMessageByIdempotencyKey(ctx, a.ID, "k1")
	wantCode(t, err, core.EMessageNotFound)
	must(t, s.Messages.CreateMessage(ctx, again, allow))
}

package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/storetest"
)

// Two stores on one database stand for two processes: every kind of message
// write made through either reaches the watchers of the other, within a
// second, and only the owner's; a rolled-back write tells nobody.
func TestWatchMessagesAcrossProcesses(t *testing.T) {
	url := pgtest.URL(t)
	a := mustOpen(t, url)
	b := mustOpen(t, url)
	s := stores(b)
	s.Clock = core.NewManualClock(storetest.Epoch)
	alice := storetest.MustCreateUser(t, s, "alice@example.com")
	bob := storetest.MustCreateUser(t, s, "bob@example.com")

	wctx, stopAll := context.WithCancel(ctx)
	defer stopAll()
	changes, cancel := a.WatchMessages(wctx, alice.ID)
	defer cancel()
	bobChanges, bobCancel := a.WatchMessages(wctx, bob.ID)
	defer bobCancel()

	signalled := func(ch <-chan struct{}, within time.Duration) bool {
		select {
		case <-ch:
			return true
		case <-time.After(within):
			return false
		}
	}
	wantSignal := func(what string) {
		t.Helper()
		if !signalled(changes, time.Second) {
			t.Fatalf("%s: no signal within 1s", what)
		}
		if signalled(bobChanges, 0) {
			t.Fatalf("%s: another owner's watcher was told", what)
		}
	}
	quiet := func(what string) {
		t.Helper()
		if signalled(changes, 200*time.Millisecond) {
			t.Fatalf("%s signalled", what)
		}
	}

	in := core.MessageInput{Title: "t", Name: "n", Recipient: "r@example.com", Body: "b"}
	m := core.NewMessage(alice.ID, in, storetest.Epoch, time.UTC)
	must(t, b.CreateMessage(ctx, m, nil))
	wantSignal("create in the other process")

	_, err := b.UpdateMessage(ctx, m.ID, func(m *core.Message) error { m.Title = "t2"; return nil })
	must(t, err)
	wantSignal("update")

	_, err = a.UpdateMessage(ctx, m.ID, func(m *core.Message) error { m.Title = "t3"; return nil })
	must(t, err)
	wantSignal("update in the same process")

	refused := core.NewMessage(alice.ID, in, storetest.Epoch, time.UTC)
	err = b.CreateMessage(ctx, refused, func(*core.User, bool) error { return core.Errorf(core.EPlanLimit, "no") })
	wantCode(t, err, core.EPlanLimit)
	quiet("a refused create")

	// A burst of changes signals; its notifications arrive one by one, so
	// a watcher that takes a signal meanwhile may get another (the hub's
	// coalescing is store/watch's test).
	for range 5 {
		_, err := b.UpdateMessage(ctx, m.ID, func(m *core.Message) error { m.Body += "."; return nil })
		must(t, err)
	}
	wantSignal("burst")
	for signalled(changes, 300*time.Millisecond) {
	}

	// The delivery pass's writes tell too.
	claimed, err := b.ClaimDeliveries(ctx, m.SendDate, 10, func(m *core.Message) bool {
		m.Status, m.LeaseUntil = core.StatusSending, m.SendDate.Add(time.Minute)
		return true
	})
	must(t, err)
	if len(claimed) != 1 {
		t.Fatalf("claimed %d", len(claimed))
	}
	wantSignal("claim")
	_, err = b.SettleMessage(ctx, m.ID, func(m *core.Message) ([]*core.OutboxItem, error) {
		m.Status, m.DeliveredAt = core.StatusDelivered, m.SendDate
		return nil, nil
	})
	must(t, err)
	wantSignal("settle")

	must(t, b.DeleteMessage(ctx, m.ID))
	wantSignal("delete")

	m2 := core.NewMessage(alice.ID, in, storetest.Epoch, time.UTC)
	must(t, b.CreateMessage(ctx, m2, nil))
	wantSignal("second create")
	must(t, b.DeleteUser(ctx, alice.ID))
	wantSignal("account deletion")

	// Cancelled watches are forgotten; so are those whose context ended.
	cancel()
	bm := core.NewMessage(bob.ID, in, storetest.Epoch, time.UTC)
	must(t, b.CreateMessage(ctx, bm, nil))
	if !signalled(bobChanges, time.Second) {
		t.Fatal("bob's watcher was not told")
	}
	stopAll()
	time.Sleep(10 * time.Millisecond)
	_, err = b.UpdateMessage(ctx, bm.ID, func(m *core.Message) error { m.Title = "x"; return nil })
	must(t, err)
	if signalled(bobChanges, 200*time.Millisecond) {
		t.Fatal("a watch whose context ended was told")
	}
}

// Stores in two schemas of one database are two installations: neither
// hears the other's changes.
func TestWatchMessagesSchemasApart(t *testing.T) {
	a, b := mustOpen(t, pgtest.URL(t)), mustOpen(t, pgtest.URL(t))
	clock := core.NewManualClock(storetest.Epoch)
	sa, sb := stores(a), stores(b)
	sa.Clock, sb.Clock = clock, clock
	u := &core.User{ID: "same-id", Email: "ada@example.com"}
	must(t, a.CreateUser(ctx, u))
	must(t, b.CreateUser(ctx, u))
	changes, cancel := a.WatchMessages(ctx, u.ID)
	defer cancel()
	storetest.MustCreateMessage(t, sb, u.ID, core.Interval1M)
	select {
	case <-changes:
		t.Fatal("a change in another schema was heard")
	case <-time.After(300 * time.Millisecond):
	}
	storetest.MustCreateMessage(t, sa, u.ID, core.Interval1M)
	select {
	case <-changes:
	case <-time.After(time.Second):
		t.Fatal("a change in the store's own schema was not heard")
	}
}

func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := core.ErrorCode(err); got != code {
		tb.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

// A cut of the LISTEN connection alone loses no change: the listener
// connects again at once and then signals every watcher, so a change
// committed while it was cut off (its notification lost) reaches the
// watcher within a few seconds, as does a change after.
func TestWatchAfterListenerCut(t *testing.T) {
	url := pgtest.URL(t)
	p := pgtest.StartProxy(t, url)
	a := mustOpen(t, p.URL)
	b := mustOpen(t, url) // another process, past the proxy
	s := stores(b)
	s.Clock = core.NewManualClock(storetest.Epoch)
	u := storetest.MustCreateUser(t, s, "ann@example.com")
	changes, cancel := a.WatchMessages(ctx, u.ID)
	defer cancel()
	wantSignal := func(what string) {
		t.Helper()
		select {
		case <-changes:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no signal within 5s", what)
		}
	}
	listener := func(app string) bool { return strings.HasPrefix(app, "sendlater listener") }
	if n := p.Cut(listener); n != 1 {
		t.Fatalf("%d listening connections cut, want 1", n)
	}
	storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)
	wantSignal("a change during the cut")
	for len(changes) > 0 { // a signal of the reconnection and one of the change may come apart
		<-changes
	}
	time.Sleep(100 * time.Millisecond)
	for len(changes) > 0 {
		<-changes
	}
	storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)
	wantSignal("a change after the cut")
}

package bolt_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/storetest"
)

// Every kind of message write tells the owner's watchers after the commit,
// and only them; a rolled-back write tells nobody.
func TestWatchMessages(t *testing.T) {
	db := MustOpen(t, filepath.Join(t.TempDir(), "sendlater.db"))
	s := stores(db)
	s.Clock = core.NewManualClock(storetest.Epoch)
	alice := storetest.MustCreateUser(t, s, "alice@example.com")
	bob := storetest.MustCreateUser(t, s, "bob@example.com")

	wctx, stopAll := context.WithCancel(ctx)
	defer stopAll()
	changes, cancel := db.WatchMessages(wctx, alice.ID)
	defer cancel()
	bobChanges, bobCancel := db.WatchMessages(wctx, bob.ID)
	defer bobCancel()

	signalled := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		case <-time.After(200 * time.Millisecond):
			return false
		}
	}
	wantSignal := func(what string) {
		t.Helper()
		if !signalled(changes) {
			t.Fatalf("%s: no signal", what)
		}
		select {
		case <-bobChanges:
			t.Fatalf("%s: another owner's watcher was told", what)
		default:
		}
	}

	in := core.MessageInput{Title: "t", Name: "n", Recipient: "r@example.com", Body: "b"}
	m := core.NewMessage(alice.ID, in, storetest.Epoch, time.UTC)
	must(t, db.CreateMessage(ctx, m, nil))
	wantSignal("create")

	_, err := db.UpdateMessage(ctx, m.ID, func(m *core.Message) error { m.Title = "t2"; return nil })
	must(t, err)
	wantSignal("update")

	refused := core.NewMessage(alice.ID, in, storetest.Epoch, time.UTC)
	err = db.CreateMessage(ctx, refused, func(*core.User, bool) error { return core.Errorf(core.EPlanLimit, "no") })
	wantCode(t, err, core.EPlanLimit)
	if signalled(changes) {
		t.Fatal("a refused create signalled")
	}

	// A burst of changes is one signal until it is taken.
	for range 5 {
		_, err := db.UpdateMessage(ctx, m.ID, func(m *core.Message) error { m.Body += "."; return nil })
		must(t, err)
	}
	wantSignal("burst")
	if signalled(changes) {
		t.Fatal("a burst signalled more than once")
	}

	must(t, db.DeleteMessage(ctx, m.ID))
	wantSignal("delete")

	m2 := core.NewMessage(alice.ID, in, storetest.Epoch, time.UTC)
	must(t, db.CreateMessage(ctx, m2, nil))
	wantSignal("second create")
	must(t, db.DeleteUser(ctx, alice.ID))
	wantSignal("account deletion")

	// Cancelled watches are forgotten; so are those whose context ended.
	cancel()
	bm := core.NewMessage(bob.ID, in, storetest.Epoch, time.UTC)
	must(t, db.CreateMessage(ctx, bm, nil))
	if !signalled(bobChanges) {
		t.Fatal("bob's watcher was not told")
	}
	stopAll()
	time.Sleep(10 * time.Millisecond)
	_, err = db.UpdateMessage(ctx, bm.ID, func(m *core.Message) error { m.Title = "x"; return nil })
	must(t, err)
	if signalled(bobChanges) {
		t.Fatal("a watch whose context ended was told")
	}
}

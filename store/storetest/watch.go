package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// needsWatcher skips a test for a backend run without its watcher.
func needsWatcher(fn func(t *testing.T, s Stores)) func(t *testing.T, s Stores) {
	return func(t *testing.T, s Stores) {
		if s.Watcher == nil {
			t.Skip("the backend's watcher is not under test")
		}
		fn(t, s)
	}
}

// signalled fails unless ch receives within a second after what.
func signalled(tb testing.TB, ch <-chan struct{}, what string) {
	tb.Helper()
	select {
	case <-ch:
	case <-time.After(time.Second):
		tb.Fatalf("no signal within a second after %s", what)
	}
}

// quiet fails if ch receives within 200 ms after what.
func quiet(tb testing.TB, ch <-chan struct{}, what string) {
	tb.Helper()
	select {
	case <-ch:
		tb.Fatalf("a signal after %s", what)
	case <-time.After(200 * time.Millisecond):
	}
}

// The owner's watchers hear of a change to the owner's user record as of
// one to their messages (the live list shows the plan); other users'
// changes, and a change that aborts, are not theirs.
func testWatchUser(t *testing.T, s Stores) {
	ada := MustCreateUser(t, s, "ada@example.com")
	grace := MustCreateUser(t, s, "grace@example.com")
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, stop := s.Watcher.WatchMessages(ctx, ada.ID)
	defer stop()

	MustCreateMessage(t, s, ada.ID, core.Interval1M)
	signalled(t, ch, "a message of ada's")
	_, err := s.Users.UpdateUser(ctx, ada.ID, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = "price_pro", "active"
		return nil
	})
	must(t, err)
	signalled(t, ch, "ada's plan changed")

	_, err = s.Users.UpdateUser(ctx, grace.ID, func(u *core.User) error {
		u.Name = "Grace Hopper"
		return nil
	})
	must(t, err)
	_, err = s.Users.UpdateUser(ctx, ada.ID, func(u *core.User) error {
		return core.Errorf(core.EConflict, "aborted")
	})
	wantCode(t, err, core.EConflict)
	quiet(t, ch, "grace's change and ada's aborted one")
}

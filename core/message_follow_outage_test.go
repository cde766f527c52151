package core_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
)

// A live list outlives a cut of every connection of its PostgreSQL store
// (the LISTEN connection among them) and an outage with identity checks
// failing meanwhile: a change made while the store was cut off reaches it
// within a few seconds of the database answering again, and so does a
// change made after. None of it ends the list.
func TestFollowSurvivesConnectionCuts(t *testing.T) {
	url := pgtest.URL(t)
	p := pgtest.StartProxy(t, url)
	e := testenv.New(t, testenv.Config{Backend: testenv.Postgres, PostgresURL: p.URL})
	e.Messages.Recheck = 100 * time.Millisecond // so that checks fail during the outage
	// direct writes past the proxy, while the store behind it is cut off.
	direct, err := postgres.Open(e.Ctx, url, postgres.Options{Key: testenv.Key})
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	u := e.MustUser(t, "ann@example.com", "", core.PlanPro)
	ctx, stop := context.WithCancel(e.As(u.ID))
	defer stop()
	lists, err := e.Messages.Follow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// awaitList waits until a list holds n messages.
	awaitList := func(what string, n int, within time.Duration) {
		t.Helper()
		deadline := time.After(within)
		for {
			select {
			case l, ok := <-lists:
				if !ok || l.Err != nil {
					t.Fatalf("%s: the live list ended: %v", what, l.Err)
				}
				if len(l.Messages) == n {
					return
				}
			case <-deadline:
				t.Fatalf("%s: no list of %d messages within %s", what, n, within)
			}
		}
	}
	create := func() {
		t.Helper()
		m := core.NewMessage(u.ID, core.MessageInput{Title: "t", Name: "n", Recipient: "r@example.com", Body: "b"},
			e.Clock.Now(), time.UTC)
		if err := direct.CreateMessage(e.Ctx, m, nil); err != nil {
			t.Fatal(err)
		}
	}
	awaitList("at first", 0, 5*time.Second)

	// Every connection cut (the network dropped them), new ones made at
	// once: a change right after the cut, then one after the reconnection.
	p.Cut(nil)
	create()
	awaitList("a change during a cut", 1, 5*time.Second)
	create()
	awaitList("a change after the cut", 2, 5*time.Second)

	// The database away for a while: identity checks fail meanwhile.
	p.Down()
	create()
	time.Sleep(time.Second)
	p.Up()
	awaitList("a change during the outage", 3, 10*time.Second)
	create()
	awaitList("a change after the outage", 4, 5*time.Second)
}

// flakyMessages is a message store whose lists fail with
// service/unavailable while down is set, as a store cut off would.
type flakyMessages struct {
	core.MessageStore
	down atomic.Bool
}

func (f *flakyMessages) ListMessages(ctx context.Context, filter core.MessageFilter) ([]*core.Message, int, error) {
	if f.down.Load() {
		return nil, 0, core.Errorf(core.EUnavailable, "The database cannot be reached at the moment. Please try again shortly.")
	}
	return f.MessageStore.ListMessages(ctx, filter)
}

// The rule on both backends: a list the store cannot give is tried again
// and sent once it can; only an outage longer than Outage ends the live
// list, with the store's error.
func TestFollowWaitsOutAnUnavailableStore(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		flaky := &flakyMessages{MessageStore: e.Store}
		e.Messages.Messages = flaky
		e.Messages.Outage = 2 * time.Second
		u := e.MustUser(t, "ann@example.com", "", core.PlanPro)
		ctx, stop := context.WithCancel(e.As(u.ID))
		defer stop()
		lists, err := e.Messages.Follow(ctx)
		if err != nil {
			t.Fatal(err)
		}
		next := func(what string) (core.MessageList, bool) {
			t.Helper()
			select {
			case l, ok := <-lists:
				return l, ok
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: nothing within 5s", what)
				return core.MessageList{}, false
			}
		}
		if l, _ := next("the first list"); l.Err != nil || len(l.Messages) != 0 {
			t.Fatalf("the first list: %+v", l)
		}
		flaky.down.Store(true)
		m := core.NewMessage(u.ID, core.MessageInput{Title: "t", Name: "n", Recipient: "r@example.com", Body: "b"},
			e.Clock.Now(), time.UTC)
		if err := e.Store.CreateMessage(e.Ctx, m, nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond) // tries fail meanwhile
		flaky.down.Store(false)
		if l, _ := next("after the outage"); l.Err != nil || len(l.Messages) != 1 {
			t.Fatalf("after the outage: %+v", l)
		}
		flaky.down.Store(true)
		if _, err := e.Store.UpdateMessage(e.Ctx, m.ID, func(m *core.Message) error { m.Title = "t2"; return nil }); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		l, _ := next("a long outage")
		if core.ErrorCode(l.Err) != core.EUnavailable || time.Since(start) < 1900*time.Millisecond {
			t.Fatalf("a long outage: %+v after %s", l, time.Since(start))
		}
		if _, ok := next("the end"); ok {
			t.Fatal("the live list went on after its error")
		}
	})
}

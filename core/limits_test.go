package core_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

func TestLimiterSlidingWindow(t *testing.T) {
	e := testenv.New(t, testenv.Config{})
	l := core.Limit{Name: "test", Max: 3, Window: 15 * time.Minute}
	wait := func(key string) time.Duration {
		t.Helper()
		w, err := e.Limits.Wait(e.Ctx, l, key)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	record := func(key string) {
		t.Helper()
		if _, err := e.Limits.Record(e.Ctx, l, key); err != nil {
			t.Fatal(err)
		}
	}
	record("k")
	e.Clock.Add(5 * time.Minute)
	record("k")
	if w := wait("k"); w != 0 {
		t.Fatalf("blocked after 2 of 3: %v", w)
	}
	e.Clock.Add(5 * time.Minute)
	record("k")
	if w := wait("k"); w != 5*time.Minute {
		t.Fatalf("wait %v after 3 of 3, want 5m (the first event leaves the window)", w)
	}
	if w := wait("other"); w != 0 {
		t.Fatalf("another key is blocked: %v", w)
	}
	e.Clock.Add(5 * time.Minute)
	if w := wait("k"); w != 0 {
		t.Fatalf("still blocked once the first event left the window: %v", w)
	}
	// A fourth event within 15 minutes of the second blocks again: at most 3
	// in any window.
	record("k")
	if w := wait("k"); w != 5*time.Minute {
		t.Fatalf("wait %v after a fourth event, want 5m", w)
	}
	if err := e.Limits.Clear(e.Ctx, l, "k"); err != nil {
		t.Fatal(err)
	}
	if w := wait("k"); w != 0 {
		t.Fatalf("blocked after clear: %v", w)
	}
}

func TestLimiterTakeRecordsNothingOverALimit(t *testing.T) {
	e := testenv.New(t, testenv.Config{})
	hour := core.Limit{Name: "hour", Max: 2, Window: time.Hour}
	day := core.Limit{Name: "day", Max: 3, Window: 24 * time.Hour}
	take := func() time.Duration {
		t.Helper()
		w, err := e.Limits.Take(e.Ctx, core.LimitTake{Limit: hour, Key: "k"}, core.LimitTake{Limit: day, Key: "k"})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	for range 2 {
		if w := take(); w != 0 {
			t.Fatalf("refused within the limits: %v", w)
		}
	}
	if w := take(); w != time.Hour {
		t.Fatalf("third in the hour: wait %v, want 1h", w)
	}
	e.Clock.Add(time.Hour)
	if w := take(); w != 0 {
		t.Fatalf("refused in the next hour: %v", w)
	}
	e.Clock.Add(time.Hour)
	// The day's limit: three taken, the refused one did not count.
	if w := take(); w != 22*time.Hour {
		t.Fatalf("fourth in the day: wait %v, want 22h", w)
	}
}

// keyRecorder is a LimitStore that remembers the keys it was given.
type keyRecorder struct {
	core.LimitStore
	keys []string
}

func (r *keyRecorder) HitLimit(ctx context.Context, key string, e core.LimitEvent, now time.Time) ([]core.LimitEvent, error) {
	r.keys = append(r.keys, key)
	return r.LimitStore.HitLimit(ctx, key, e, now)
}

func TestLimiterKeepsNoAddressInClear(t *testing.T) {
	e := testenv.New(t, testenv.Config{})
	rec := &keyRecorder{LimitStore: e.DB}
	l := &core.Limiter{Store: rec, Clock: e.Clock, Key: testenv.LimitKey}
	for _, k := range []string{"ann@example.com", "192.0.2.1"} {
		if _, err := l.Record(e.Ctx, core.LimitSignInClient, k); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range rec.keys {
		if strings.Contains(k, "ann") || strings.Contains(k, "192.0.2") || !strings.HasPrefix(k, "signin-client:") {
			t.Fatalf("stored key %q", k)
		}
	}
	if rec.keys[0] == rec.keys[1] {
		t.Fatal("two keys hashed alike")
	}
}

// Of many calls of Once on one key at once, exactly one is first; after
// it releases its event, the next call is first again, and after the
// window too.
func TestLimiterOnceIsFirstOnce(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		l := core.Limit{Name: "once-test", Max: 1, Window: time.Hour}
		firsts := make(chan string, 16)
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				id, first, err := e.Limits.Once(e.Ctx, l, "k")
				if err != nil {
					t.Error(err)
				}
				if first {
					firsts <- id
				}
			})
		}
		wg.Wait()
		close(firsts)
		var ids []string
		for id := range firsts {
			ids = append(ids, id)
		}
		if len(ids) != 1 {
			t.Fatalf("%d calls were first", len(ids))
		}
		if _, first, _ := e.Limits.Once(e.Ctx, l, "k"); first {
			t.Fatal("first again while the first's event holds")
		}
		if err := e.Limits.Release(e.Ctx, l, "k", ids[0]); err != nil {
			t.Fatal(err)
		}
		id, first, err := e.Limits.Once(e.Ctx, l, "k")
		if err != nil || !first {
			t.Fatalf("not first after the release: %v", err)
		}
		e.Clock.Add(time.Hour + time.Second)
		if _, first, _ := e.Limits.Once(e.Ctx, l, "k"); !first {
			t.Fatalf("not first after the window (the event %s expired)", id)
		}
	})
}

package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

func needsLimits(fn func(t *testing.T, s Stores)) func(t *testing.T, s Stores) {
	return func(t *testing.T, s Stores) {
		if s.Limits == nil {
			t.Skip("the backend keeps no limit events")
		}
		fn(t, s)
	}
}

// wantEvents fails unless got holds the events of ids, in that order, with
// their times.
func wantEvents(tb testing.TB, what string, got []core.LimitEvent, want ...core.LimitEvent) {
	tb.Helper()
	if got == nil {
		tb.Fatalf("%s: nil, want a list", what)
	}
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i].ID == want[i].ID && got[i].At.Equal(want[i].At) && got[i].Expires.Equal(want[i].Expires)
	}
	if !ok {
		tb.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func testLimitEvents(t *testing.T, s Stores) {
	t0 := s.Clock.Now()
	ev := func(id string, at, expires time.Duration) core.LimitEvent {
		return core.LimitEvent{ID: id, At: t0.Add(at), Expires: t0.Add(expires)}
	}
	hit := func(key string, e core.LimitEvent, now time.Time) []core.LimitEvent {
		t.Helper()
		got, err := s.Limits.HitLimit(ctx, key, e, now)
		must(t, err)
		return got
	}
	events := func(key string, now time.Time) []core.LimitEvent {
		t.Helper()
		got, err := s.Limits.LimitEvents(ctx, key, now)
		must(t, err)
		return got
	}
	a, b, c := ev("a", 0, 10*time.Minute), ev("b", time.Minute, 10*time.Minute), ev("c", time.Minute, 20*time.Minute)
	wantEvents(t, "first hit", hit("k", a, t0), a)
	// Oldest first, then by id.
	wantEvents(t, "second hit", hit("k", c, t0.Add(time.Minute)), a, c)
	wantEvents(t, "third hit", hit("k", b, t0.Add(time.Minute)), a, b, c)
	wantEvents(t, "another key", events("other", t0), []core.LimitEvent{}...)
	// The same id again replaces the event (a stream renews its slot).
	a2 := ev("a", 2*time.Minute, 30*time.Minute)
	wantEvents(t, "renewed", hit("k", a2, t0.Add(2*time.Minute)), b, c, a2)
	// Expired events no longer count, whether read or hit.
	wantEvents(t, "after 10 minutes", events("k", t0.Add(10*time.Minute)), c, a2)
	d := ev("d", 25*time.Minute, 26*time.Minute)
	wantEvents(t, "hit after 25 minutes", hit("k", d, t0.Add(25*time.Minute)), a2, d)

	must(t, s.Limits.ClearLimit(ctx, "k", "d", "nope"))
	wantEvents(t, "after clearing d", events("k", t0.Add(25*time.Minute)), a2)
	hit("other", a, t0)
	must(t, s.Limits.ClearLimit(ctx, "k"))
	wantEvents(t, "after clearing k", events("k", t0), []core.LimitEvent{}...)
	wantEvents(t, "the other key", events("other", t0), a)

	// The sweep forgets what expired, and only that.
	hit("k", b, t0)
	hit("k", c, t0)
	n, err := s.Limits.DeleteExpiredLimitEvents(ctx, t0.Add(10*time.Minute))
	must(t, err)
	if n != 2 { // a of "other" and b of "k"
		t.Fatalf("swept %d, want 2", n)
	}
	wantEvents(t, "after the sweep", events("k", t0), c)
}

func testLimitEventsConcurrent(t *testing.T, s Stores) {
	now := s.Clock.Now()
	const n = 20
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := s.Limits.HitLimit(ctx, "k", core.LimitEvent{ID: fmt.Sprint(i), At: now, Expires: now.Add(time.Hour)}, now)
			errs <- err
		}()
	}
	for range n {
		must(t, <-errs)
	}
	got, err := s.Limits.LimitEvents(ctx, "k", now)
	must(t, err)
	if len(got) != n {
		t.Fatalf("%d events after %d concurrent hits", len(got), n)
	}
}

// Concurrent takes under one limit never pass it together: of 20 at once
// on a limit of 3, exactly 3 are allowed and 3 events stay counted.
func testLimitTakeConcurrent(t *testing.T, s Stores) {
	lr := &core.Limiter{Store: s.Limits, Clock: s.Clock, Key: []byte("storetest limiter key")}
	l := core.Limit{Name: "storetest-take", Max: 3, Window: time.Hour}
	const n = 20
	allowed := make(chan bool, n)
	for range n {
		go func() {
			wait, err := lr.Take(ctx, core.LimitTake{Limit: l, Key: "ann@example.com"}, core.LimitTake{Limit: core.Limit{Name: "storetest-take-wide", Max: 100, Window: time.Hour}, Key: "ann"})
			if err != nil {
				t.Error(err)
			}
			allowed <- err == nil && wait == 0
		}()
	}
	got := 0
	for range n {
		if <-allowed {
			got++
		}
	}
	if got != l.Max {
		t.Fatalf("%d of %d concurrent takes allowed under a limit of %d", got, n, l.Max)
	}
	if c, err := lr.Count(ctx, l, "ann@example.com"); err != nil || c != l.Max {
		t.Fatalf("%d events counted after the race (%v), want %d", c, err, l.Max)
	}
	if c, err := lr.Count(ctx, core.Limit{Name: "storetest-take-wide", Max: 100, Window: time.Hour}, "ann"); err != nil || c != l.Max {
		t.Fatalf("the refused takes left %d events under the other limit (%v), want %d", c, err, l.Max)
	}
}

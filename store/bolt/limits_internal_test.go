package bolt

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// A flood of distinct keys or of events under one key costs bounded
// memory, and expired keys make room first.
func TestLimitEventsAreBounded(t *testing.T) {
	var s DB
	ctx := context.Background()
	t0 := time.Unix(1_700_000_000, 0)
	ev := func(id string, at time.Time) core.LimitEvent {
		return core.LimitEvent{ID: id, At: at, Expires: at.Add(time.Minute)}
	}
	for i := range maxLimitKeys - 1 {
		s.HitLimit(ctx, fmt.Sprint("old", i), ev("e", t0), t0)
	}
	later := t0.Add(2 * time.Minute)
	s.HitLimit(ctx, "attacked", ev("e", later), later)
	// The store is full: the next key makes room, the expired keys first.
	for i := range 1000 {
		s.HitLimit(ctx, fmt.Sprint("new", i), ev("e", later), later)
	}
	if got, _ := s.LimitEvents(ctx, "attacked", later); len(got) != 1 {
		t.Fatal("a live key was evicted before expired ones")
	}
	// A flood of live keys: arbitrary ones go, the count stays bounded.
	for i := range 2 * maxLimitKeys {
		s.HitLimit(ctx, fmt.Sprint("flood", i), ev("e", later), later)
	}
	if n := len(s.limits.keys); n > maxLimitKeys {
		t.Fatalf("%d keys held, at most %d", n, maxLimitKeys)
	}
	for i := range 3 * maxLimitEventsPerKey {
		s.HitLimit(ctx, "busy", ev(fmt.Sprint(i), later), later)
	}
	if n := len(s.limits.keys["busy"]); n != maxLimitEventsPerKey {
		t.Fatalf("%d events under one key, want the last %d", n, maxLimitEventsPerKey)
	}
}

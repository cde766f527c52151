package bolt

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/sendlater/sendlater/core"
)

// The events the limits count (core.LimitStore) live in this process's
// memory, not in the file: bbolt lets one process hold the store, so that
// process sees every attempt, and an event is far too short-lived to be
// worth an fsync. A restart forgets them (docs/security.md), except those
// of the webhook ids that refuse a replay (limits_durable.go).

// Bounds of the memory the events take, whatever a flood of distinct keys
// or of events under one key.
const (
	maxLimitKeys         = 200_000
	maxLimitEventsPerKey = 256 // more than any limit's Max; the oldest go first
)

type memLimits struct {
	mu   sync.Mutex
	keys map[string][]core.LimitEvent // unexpired when last touched, oldest first
}

var _ core.LimitStore = (*DB)(nil)

func compareEvents(a, b core.LimitEvent) int {
	if c := a.At.Compare(b.At); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// live drops the events expired at now.
func live(events []core.LimitEvent, now time.Time) []core.LimitEvent {
	return slices.DeleteFunc(events, func(e core.LimitEvent) bool { return !e.Expires.After(now) })
}

func (s *DB) HitLimit(ctx context.Context, key string, e core.LimitEvent, now time.Time) ([]core.LimitEvent, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if durableLimit(key) { // limits_durable.go
		return s.hitDurable(key, e, now)
	}
	l := &s.limits
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.keys == nil {
		l.keys = map[string][]core.LimitEvent{}
	}
	events, ok := l.keys[key]
	if !ok && len(l.keys) >= maxLimitKeys {
		l.evict(now)
	}
	events = slices.DeleteFunc(live(events, now), func(x core.LimitEvent) bool { return x.ID == e.ID })
	i, _ := slices.BinarySearchFunc(events, e, compareEvents)
	events = slices.Insert(events, i, e)
	if n := len(events); n > maxLimitEventsPerKey {
		events = slices.Delete(events, 0, n-maxLimitEventsPerKey)
	}
	events = live(events, now)
	if len(events) == 0 {
		delete(l.keys, key)
		return []core.LimitEvent{}, nil
	}
	l.keys[key] = events
	return slices.Clone(events), nil
}

func (s *DB) LimitEvents(ctx context.Context, key string, now time.Time) ([]core.LimitEvent, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if durableLimit(key) {
		return s.durableEvents(ctx, key, now)
	}
	l := &s.limits
	l.mu.Lock()
	defer l.mu.Unlock()
	events := live(l.keys[key], now)
	if len(events) == 0 {
		delete(l.keys, key)
		return []core.LimitEvent{}, nil
	}
	l.keys[key] = events
	return slices.Clone(events), nil
}

func (s *DB) ClearLimit(ctx context.Context, key string, ids ...string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if durableLimit(key) {
		return s.clearDurable(ctx, key, ids)
	}
	l := &s.limits
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(ids) == 0 {
		delete(l.keys, key)
		return nil
	}
	events := slices.DeleteFunc(l.keys[key], func(e core.LimitEvent) bool { return slices.Contains(ids, e.ID) })
	if len(events) == 0 {
		delete(l.keys, key)
	} else {
		l.keys[key] = events
	}
	return nil
}

func (s *DB) DeleteExpiredLimitEvents(ctx context.Context, now time.Time) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	n, err := s.sweepDurable(ctx, now)
	if err != nil {
		return 0, err
	}
	l := &s.limits
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, events := range l.keys {
		before := len(events)
		events = live(events, now)
		n += before - len(events)
		if len(events) == 0 {
			delete(l.keys, k)
		} else {
			l.keys[k] = events
		}
	}
	return n, nil
}

// evict makes room for a key: first every key whose events all expired,
// then an arbitrary tenth of the keys (a flood of distinct keys then costs
// those keys their counts, never unbounded memory).
func (l *memLimits) evict(now time.Time) {
	for k, events := range l.keys {
		if !slices.ContainsFunc(events, func(e core.LimitEvent) bool { return e.Expires.After(now) }) {
			delete(l.keys, k)
		}
	}
	for k := range l.keys {
		if len(l.keys) < maxLimitKeys-maxLimitKeys/10 {
			break
		}
		delete(l.keys, k)
	}
}

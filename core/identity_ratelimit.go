package core

import (
	"sync"
	"time"
)

// FailureLimiter counts events (failed sign-ins) per key in a sliding window
// and blocks a key that reached Max events within Window. It lives in memory
// and holds at most MaxKeys keys: when full it forgets the keys whose events
// all left the window, then arbitrary ones, so a flood of distinct keys costs
// bounded memory. Safe for concurrent use.
type FailureLimiter struct {
	Max     int
	Window  time.Duration
	MaxKeys int

	mu   sync.Mutex
	keys map[string][]time.Time // the last Max events, oldest first
}

// NewFailureLimiter returns a limiter of max events per window over at most
// maxKeys keys.
func NewFailureLimiter(max int, window time.Duration, maxKeys int) *FailureLimiter {
	return &FailureLimiter{Max: max, Window: window, MaxKeys: maxKeys, keys: map[string][]time.Time{}}
}

// Blocked reports how long key must wait at now before its next attempt, or
// 0 when it may go ahead.
func (l *FailureLimiter) Blocked(key string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	ev := l.keys[key]
	if len(ev) < l.Max {
		return 0
	}
	// The oldest of the last Max events leaves the window at free.
	if free := ev[0].Add(l.Window); free.After(now) {
		return free.Sub(now)
	}
	return 0
}

// Add records an event for key at now.
func (l *FailureLimiter) Add(key string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ev, ok := l.keys[key]
	if !ok && len(l.keys) >= l.MaxKeys {
		l.evict(now)
	}
	if len(ev) >= l.Max {
		ev = append(ev[:0], ev[1:]...)
	}
	l.keys[key] = append(ev, now)
}

// Reset forgets key's events (a successful sign-in).
func (l *FailureLimiter) Reset(key string) {
	l.mu.Lock()
	delete(l.keys, key)
	l.mu.Unlock()
}

// evict makes room for one key: first every key whose events are all outside
// the window, else an arbitrary tenth of the keys.
func (l *FailureLimiter) evict(now time.Time) {
	for k, ev := range l.keys {
		if !ev[len(ev)-1].Add(l.Window).After(now) {
			delete(l.keys, k)
		}
	}
	for k := range l.keys {
		if len(l.keys) < l.MaxKeys-l.MaxKeys/10 {
			break
		}
		delete(l.keys, k)
	}
}

// Len returns the number of keys held.
func (l *FailureLimiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.keys)
}

package core

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// UserGenerations is an optional part of a store: a generation per user,
// kept in memory, that moves after every committed write touching the
// user's record, messages or sessions, in the writing process before the
// write returns and, with many processes on one store (PostgreSQL), in every
// process that keeps anything under them (GenerationServer) before a write a
// client waits for returns. A store without it is read on every request.
//
// A reader that reads the generation before it reads the store may keep
// what it read under that generation and reuse it while the generation has
// not moved: whatever committed before the generation it sees was already
// committed when it read. The generation moves after the commit, never
// before, so data read under an old generation is never reused once a
// later write is visible, and no reader keeps old data under a new one.
type UserGenerations interface {
	UserGeneration(userID string) uint64
}

// GenerationServer is an optional part of a store whose processes learn of
// each other's writes through it (PostgreSQL): ServeGenerations makes this
// process one that keeps what it reads under the generations, and so one
// that every writer waits for until it heard of the write. Only a serving
// process calls it; in any other, the generations never repeat (nothing is
// kept).
type GenerationServer interface {
	ServeGenerations()
}

// GenerationCache keeps values read for a user under the generation read
// before them (UserGenerations), and gives one back only while that
// generation is still the user's. It holds at most Max values (zero:
// GenerationCacheMax); when full, a random quarter goes. Safe for
// concurrent use; a value is handed out as it was kept, so it must not be
// changed in place.
type GenerationCache[T any] struct {
	Max int

	mu sync.RWMutex
	m  map[string]generationEntry[T]
}

type generationEntry[T any] struct {
	gen uint64
	v   T
}

// GenerationCacheMax bounds a GenerationCache.
const GenerationCacheMax = 8192

// Get returns the value kept under key if it was kept under gen.
func (c *GenerationCache[T]) Get(key string, gen uint64) (T, bool) {
	c.mu.RLock()
	e, ok := c.m[key]
	c.mu.RUnlock()
	if !ok || e.gen != gen {
		var zero T
		return zero, false
	}
	return e.v, true
}

// GetBytes is Get of string(key), without making the string: a read's key
// put together per request is looked up as it is (a map read by
// string(b) copies nothing), and made a string only to be kept (Put).
func (c *GenerationCache[T]) GetBytes(key []byte, gen uint64) (T, bool) {
	c.mu.RLock()
	e, ok := c.m[string(key)]
	c.mu.RUnlock()
	if !ok || e.gen != gen {
		var zero T
		return zero, false
	}
	return e.v, true
}

// Put keeps v under key and gen, the generation read before v was read.
func (c *GenerationCache[T]) Put(key string, gen uint64, v T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]generationEntry[T])
	}
	limit := c.Max
	if limit <= 0 {
		limit = GenerationCacheMax
	}
	MakeRoom(c.m, limit)
	c.m[key] = generationEntry[T]{gen: gen, v: v}
}

// MakeRoom drops a random quarter of the bounded cache m when it holds max
// entries or more: memory stays bounded without keeping an order of use.
func MakeRoom[K comparable, V any](m map[K]V, max int) {
	if len(m) < max {
		return
	}
	n := 0
	for k := range m { // map order is random
		delete(m, k)
		if n++; n >= max/4 {
			break
		}
	}
}

// GenerationStripes are per-user generations in fixed memory: counters in
// stripes chosen by a hash of the user's id (two users sharing a stripe see
// each other's writes as changes, which costs a read, never a stale one).
// A counter only grows. The zero value is ready.
type GenerationStripes struct {
	stripes [generationStripes]atomic.Uint64
}

const generationStripes = 1024

var stripeSeed = maphash.MakeSeed()

// Of is userID's counter.
func (g *GenerationStripes) Of(userID string) *atomic.Uint64 {
	return &g.stripes[maphash.String(stripeSeed, userID)%generationStripes]
}

// MoveAll moves every user's generation: what was kept is read again.
func (g *GenerationStripes) MoveAll() {
	for i := range g.stripes {
		g.stripes[i].Add(1)
	}
}

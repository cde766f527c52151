package core

import "sync"

// UserGenerations is an optional part of a store: a generation per user,
// kept in memory, that moves after every committed write touching the
// user's record, messages or sessions. Only a store with one writing
// process can keep it (bbolt: the CLI writes through the server's admin
// socket); a store without it (PostgreSQL, whose replicas learn of each
// other's commits only later) is read on every request.
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

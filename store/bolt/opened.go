package bolt

import (
	"bytes"
	"slices"
	"sync"

	"github.com/sendlater/sendlater/core"
)

// opened keeps records as they were decoded (and their sealed fields
// opened) under their id, beside the exact bytes they were decoded from. A
// read that finds the same bytes under the same id in its transaction
// reuses the decoded record instead of decoding JSON and opening AES-GCM
// again (most of a list's and a sign-in check's CPU: docs/benchmarks.md,
// issue 14). It is never stale: every read still reads the committed
// record, and any change, a deletion included, changes or removes the bytes
// it is compared with; a revoked session or a disabled user fails on the
// very next request as before. It holds at most openedMax records; when
// full, a random quarter goes.
type opened[T any] struct {
	mu sync.RWMutex
	m  map[string]openedEntry[T]
}

type openedEntry[T any] struct {
	raw []byte
	v   T
}

const openedMax = 8192

// get returns the record decoded from raw under id, if kept.
func (c *opened[T]) get(id string, raw []byte) (T, bool) {
	c.mu.RLock()
	e, ok := c.m[id]
	c.mu.RUnlock()
	if !ok || !bytes.Equal(e.raw, raw) {
		var zero T
		return zero, false
	}
	return e.v, true
}

// put keeps v, decoded from raw under id (raw is copied: bbolt's bytes live
// only as long as their transaction).
func (c *opened[T]) put(id string, raw []byte, v T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]openedEntry[T])
	}
	core.MakeRoom(c.m, openedMax)
	c.m[id] = openedEntry[T]{raw: bytes.Clone(raw), v: v}
}

// openedRecords are the store's caches of decoded records. Each hands out
// a copy, so a caller that changes what it got changes nothing kept.
type openedRecords struct {
	messages opened[core.Message]
	users    opened[core.User]
	sessions opened[core.Session]
}

// message is decodeMessage's result for the bytes b under id, from the
// cache or decoded and kept.
func (s *DB) cachedMessage(id string, b []byte, decode func() (*core.Message, error)) (*core.Message, error) {
	if m, ok := s.opened.messages.get(id, b); ok {
		m.Recipients = slices.Clone(m.Recipients)
		return &m, nil
	}
	m, err := decode()
	if err != nil {
		return nil, err
	}
	kept := *m
	kept.Recipients = slices.Clone(m.Recipients)
	s.opened.messages.put(id, b, kept)
	return m, nil
}

func (s *DB) cachedUser(id string, b []byte, decode func() (*core.User, error)) (*core.User, error) {
	if u, ok := s.opened.users.get(id, b); ok {
		u.Providers = append([]string(nil), u.Providers...)
		return &u, nil
	}
	u, err := decode()
	if err != nil {
		return nil, err
	}
	kept := *u
	kept.Providers = append([]string(nil), u.Providers...)
	s.opened.users.put(id, b, kept)
	return u, nil
}

func (s *DB) cachedSession(id string, b []byte, decode func() (*core.Session, error)) (*core.Session, error) {
	if x, ok := s.opened.sessions.get(id, b); ok {
		x.RotatedHashes = append([]string(nil), x.RotatedHashes...)
		return &x, nil
	}
	x, err := decode()
	if err != nil {
		return nil, err
	}
	kept := *x
	kept.RotatedHashes = append([]string(nil), x.RotatedHashes...)
	s.opened.sessions.put(id, b, kept)
	return x, nil
}

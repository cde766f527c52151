package dnscheck

import (
	"container/list"
	"sync"
	"time"
)

// cache remembers answers up to a number of domains, each until it
// expires, dropping the least recently used first; and the pause of a
// resolver that did not answer.
type cache struct {
	mu          sync.Mutex
	max         int
	order       *list.List // of *entry, most recently used first
	byName      map[string]*list.Element
	pausedUntil time.Time
}

type entry struct {
	name     string
	receives bool
	expires  time.Time
}

func newCache(max int) *cache {
	return &cache{max: max, order: list.New(), byName: map[string]*list.Element{}}
}

func (c *cache) get(name string, now time.Time) (receives, found bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byName[name]
	if !ok {
		return false, false
	}
	e := el.Value.(*entry)
	if !now.Before(e.expires) {
		c.order.Remove(el)
		delete(c.byName, name)
		return false, false
	}
	c.order.MoveToFront(el)
	return e.receives, true
}

func (c *cache) put(name string, receives bool, expires time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byName[name]; ok {
		*el.Value.(*entry) = entry{name, receives, expires}
		c.order.MoveToFront(el)
		return
	}
	c.byName[name] = c.order.PushFront(&entry{name, receives, expires})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byName, last.Value.(*entry).name)
	}
}

func (c *cache) pause(until time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pausedUntil = until
}

func (c *cache) paused(now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return now.Before(c.pausedUntil)
}

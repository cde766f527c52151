// Package watch keeps the channels that listen to owners' messages: the
// half of core.MessageWatcher that every store shares. A store calls Notify
// once a change to an owner's messages has committed.
package watch

import (
	"context"
	"sync"
)

// Hub holds the watches of one store. The zero Hub is ready; safe for
// concurrent use.
type Hub struct {
	mu    sync.Mutex
	owner map[string]map[chan struct{}]struct{}
}

// Watch is core.MessageWatcher's WatchMessages: the channel receives a value
// after Notify(owner); the watch ends when ctx ends or cancel is called.
func (h *Hub) Watch(ctx context.Context, owner string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	if h.owner == nil {
		h.owner = map[string]map[chan struct{}]struct{}{}
	}
	set := h.owner[owner]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		h.owner[owner] = set
	}
	set[ch] = struct{}{}
	h.mu.Unlock()

	var once sync.Once
	var stop func() bool
	cancel := func() {
		once.Do(func() {
			stop()
			h.mu.Lock()
			delete(h.owner[owner], ch)
			if len(h.owner[owner]) == 0 {
				delete(h.owner, owner)
			}
			h.mu.Unlock()
		})
	}
	stop = context.AfterFunc(ctx, cancel)
	return ch, cancel
}

// Notify tells owner's watchers. A watcher that has not yet taken the last
// signal keeps it: a burst of changes is one signal.
func (h *Hub) Notify(owner string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.owner[owner] {
		signal(ch)
	}
}

// NotifyAll tells every watcher, as after a stretch in which changes may
// have been missed.
func (h *Hub) NotifyAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, set := range h.owner {
		for ch := range set {
			signal(ch)
		}
	}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

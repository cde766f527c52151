package bolt

import (
	"context"
	"sync"

	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

var _ core.MessageWatcher = (*DB)(nil)

// watchers holds the channels that listen to owners' messages.
type watchers struct {
	mu    sync.Mutex
	owner map[string]map[chan struct{}]struct{}
}

// WatchMessages implements core.MessageWatcher. Every write of a message goes
// through putMessage or deleteMessage, which tell the watchers of its owner
// once the transaction has committed.
func (s *DB) WatchMessages(ctx context.Context, owner string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	w := &s.watchers
	w.mu.Lock()
	if w.owner == nil {
		w.owner = map[string]map[chan struct{}]struct{}{}
	}
	set := w.owner[owner]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		w.owner[owner] = set
	}
	set[ch] = struct{}{}
	w.mu.Unlock()

	var once sync.Once
	var stop func() bool
	cancel := func() {
		once.Do(func() {
			stop()
			w.mu.Lock()
			delete(w.owner[owner], ch)
			if len(w.owner[owner]) == 0 {
				delete(w.owner, owner)
			}
			w.mu.Unlock()
		})
	}
	stop = context.AfterFunc(ctx, cancel)
	return ch, cancel
}

// changed tells owner's watchers about tx's changes when, and only when, tx
// commits. A watcher that has not yet taken the last signal keeps it: a burst
// of changes is one signal.
func (s *DB) changed(tx *bbolt.Tx, owner string) {
	tx.OnCommit(func() {
		w := &s.watchers
		w.mu.Lock()
		defer w.mu.Unlock()
		for ch := range w.owner[owner] {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	})
}

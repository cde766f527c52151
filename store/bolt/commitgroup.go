package bolt

import (
	"sync"

	"go.etcd.io/bbolt"
)

// commitGroup commits concurrent updates together without waiting: a call
// finding no commit in flight starts one at once; calls arriving meanwhile
// are committed together right after it. Unlike bbolt's Batch it adds no
// delay, so a pass's workers, each waiting for its outcome to be recorded,
// are not held up by a timer. A function that fails is retried alone, so
// its error is its own and the others commit; functions may therefore run
// more than once.
type commitGroup struct {
	mu      sync.Mutex
	pending []*groupCall
	running bool
}

type groupCall struct {
	fn   func(tx *bbolt.Tx) error
	done chan error
}

func (g *commitGroup) update(db *bbolt.DB, fn func(tx *bbolt.Tx) error) error {
	c := &groupCall{fn: fn, done: make(chan error, 1)}
	g.mu.Lock()
	g.pending = append(g.pending, c)
	if !g.running {
		g.running = true
		go g.run(db)
	}
	g.mu.Unlock()
	return <-c.done
}

func (g *commitGroup) run(db *bbolt.DB) {
	for {
		g.mu.Lock()
		calls := g.pending
		g.pending = nil
		if len(calls) == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		failed := -1
		err := db.Update(func(tx *bbolt.Tx) error {
			for i, c := range calls {
				if err := c.fn(tx); err != nil {
					failed = i
					return err
				}
			}
			return nil
		})
		if err == nil {
			for _, c := range calls {
				c.done <- nil
			}
			continue
		}
		if failed < 0 { // the commit itself failed
			for _, c := range calls {
				c.done <- err
			}
			continue
		}
		for _, c := range calls {
			c.done <- db.Update(c.fn)
		}
	}
}

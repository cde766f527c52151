package bolt

import (
	"slices"
	"sync"
	"time"

	"go.etcd.io/bbolt"
)

// commitGroup commits concurrent updates together: a call finding no
// commit in flight starts one; calls arriving meanwhile are committed
// together right after it. Before each commit the group gathers: it waits
// while calls keep joining, until none joined for the gap or the most
// passed, each the shortest of the pending calls' patience. Without it,
// callers that come back at once (a pass's workers, the inbound
// listener's connections, each waiting for its write to be durable) split
// into two halves that take turns, each commit holding half of them
// (issue 31: 2,000 bounce marks from 8 connections took 517 commits). A
// lone call waits its gap, small beside the fsync.
//
// The store has one group, so the delivery pass's settlements and the
// bounce marks arriving beside them share commits (one fsync, bbolt's one
// writer taken once): a mark rides the next settlement's commit rather
// than taking the writer from the pass for a commit of its own (issue 31).
//
// A function that fails is retried alone after the others commit
// together again without it, so its error is its own and the others
// commit; functions may therefore run more than once.
type commitGroup struct {
	mu      sync.Mutex
	pending []*groupCall
	running bool
	// company is signalled by every call that joins the pending ones.
	company chan struct{}
	// wait is the pending calls' gathering: the shortest gap and most of
	// their patience (zero while none is pending).
	wait patience
}

// patience is how long a call lets its group gather: until no call joined
// for gap, or most passed.
type patience struct{ gap, most time.Duration }

// settlePatience bounds the gathering of most calls: a call waits at most
// 2 ms more than it would without it, which an fsync (milliseconds)
// dwarfs.
var settlePatience = patience{gap: 200 * time.Microsecond, most: 2 * time.Millisecond}

type groupCall struct {
	fn   func(tx *bbolt.Tx) error
	done chan error
}

func (g *commitGroup) update(db *bbolt.DB, p patience, fn func(tx *bbolt.Tx) error) error {
	c := &groupCall{fn: fn, done: make(chan error, 1)}
	g.mu.Lock()
	if g.company == nil {
		g.company = make(chan struct{}, 1)
	}
	if len(g.pending) == 0 {
		g.wait = p
	} else {
		g.wait = patience{gap: min(g.wait.gap, p.gap), most: min(g.wait.most, p.most)}
	}
	g.pending = append(g.pending, c)
	if !g.running {
		g.running = true
		go g.run(db)
	}
	select {
	case g.company <- struct{}{}:
	default:
	}
	g.mu.Unlock()
	return <-c.done
}

// gather waits until no call joined for the pending calls' gap, or their
// most passed since it began.
func (g *commitGroup) gather() {
	select {
	case <-g.company: // the signal of the calls already pending
	default:
	}
	start := time.Now()
	g.mu.Lock()
	w := g.wait
	g.mu.Unlock()
	t := time.NewTimer(w.gap)
	defer t.Stop()
	for {
		select {
		case <-g.company:
			g.mu.Lock()
			w = g.wait // a call joined: its patience may be shorter
			g.mu.Unlock()
			left := w.most - time.Since(start)
			if left <= 0 {
				return
			}
			t.Reset(min(w.gap, left))
		case <-t.C:
			return
		}
	}
}

func (g *commitGroup) run(db *bbolt.DB) {
	for {
		g.gather()
		g.mu.Lock()
		calls := g.pending
		g.pending, g.wait = nil, patience{}
		if len(calls) == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		commit(db, calls)
	}
}

// commit runs calls in one transaction. When one fails, the others are
// committed together without it, and it alone afterwards.
func commit(db *bbolt.DB, calls []*groupCall) {
	var alone []*groupCall
	for len(calls) > 0 {
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
		if failed < 0 { // committed, or the commit itself failed
			for _, c := range calls {
				c.done <- err
			}
			break
		}
		alone = append(alone, calls[failed])
		calls = slices.Delete(calls, failed, failed+1)
	}
	for _, c := range alone {
		c.done <- db.Update(c.fn)
	}
}

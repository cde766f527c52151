package bolt

import (
	"sync"
	"time"

	"go.etcd.io/bbolt"
)

// commitGroup commits concurrent updates together: a call finding no
// commit in flight starts one; calls arriving meanwhile are committed
// together right after it. Before each commit the group gathers: it waits
// while calls keep joining, until none joined for gatherGap or gatherMax
// has passed. Without it, callers that come back at once (a pass's
// workers, the inbound listener's connections, each waiting for its write
// to be durable) split into two halves that take turns, each commit
// holding half of them (issue 31: 2,000 bounce marks from 8 connections
// took 517 commits). A lone call waits gatherGap, small beside the fsync.
// A function that fails is retried alone, so its error is its own and the
// others commit; functions may therefore run more than once.
type commitGroup struct {
	mu      sync.Mutex
	pending []*groupCall
	running bool
	// company is signalled by every call that joins the pending ones.
	company chan struct{}
	// gap and most replace gatherGap and gatherMax when set: the bounce
	// marks' group gathers longer (bounceGatherGap), so that DSNs arriving
	// one by one share fsyncs instead of taking the writer from the
	// deliveries once each.
	gap, most time.Duration
}

// gatherGap and gatherMax bound the gathering before a commit: a call
// waits at most gatherMax more than it would without it, which an fsync
// (milliseconds) dwarfs.
const (
	gatherGap = 200 * time.Microsecond
	gatherMax = 2 * time.Millisecond
)

type groupCall struct {
	fn   func(tx *bbolt.Tx) error
	done chan error
}

func (g *commitGroup) update(db *bbolt.DB, fn func(tx *bbolt.Tx) error) error {
	c := &groupCall{fn: fn, done: make(chan error, 1)}
	g.mu.Lock()
	if g.company == nil {
		g.company = make(chan struct{}, 1)
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

// gather waits until no call joined for gatherGap, or gatherMax passed.
func (g *commitGroup) gather() {
	select {
	case <-g.company: // the signal of the calls already pending
	default:
	}
	gap, most := gatherGap, gatherMax
	if g.gap > 0 {
		gap, most = g.gap, g.most
	}
	deadline := time.Now().Add(most)
	t := time.NewTimer(gap)
	defer t.Stop()
	for {
		select {
		case <-g.company:
			left := time.Until(deadline)
			if left <= 0 {
				return
			}
			t.Reset(min(gap, left))
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

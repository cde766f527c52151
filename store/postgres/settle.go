package postgres

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

// settleGroup records the outcomes of a process's concurrently finishing
// sends together: the pending calls are settled as a group, in one
// transaction (BEGIN with one locking read of all their rows, then every
// write and COMMIT: two round trips and one commit for the lot); calls
// arriving while a group is in flight form the next one, and a lone
// pending call first waits up to settleGather for another to join it
// (gather). Each call's fn checks its own row as it does alone; a call
// whose fn fails or whose message is gone fails alone and the others
// commit. When the
// transaction itself fails (a write refused, a deadlock, a lost
// connection), every call of the group is settled again alone, so each
// gets its own outcome; fn may therefore run more than once, as
// core.DeliveryStore allows.
type settleGroup struct {
	mu      sync.Mutex
	pending []*settleCall
	running bool
	// company is signalled by every call that joins the pending ones;
	// gather drops a signal left from before it waits, then waits for one
	// for up to gatherFor (zero: settleGather; the tests set it).
	company   chan struct{}
	gatherFor time.Duration
	// started is when the last group started (Unix nanoseconds): near.
	started atomic.Int64
}

// near reports whether a group started within passNear: a delivery pass
// is settling, whose groups bounces ride (bounceGroup).
func (g *settleGroup) near() bool {
	return time.Since(time.Unix(0, g.started.Load())) < passNear
}

type settleCall struct {
	id   string
	fn   func(m *core.Message) ([]*core.OutboxItem, error)
	m    *core.Message
	err  error
	done chan struct{}
}

// maxSettleGroup bounds a group: the locking read of its rows and the
// batch of its writes.
const maxSettleGroup = 64

// settleGather is how long a lone call waits for another to settle with
// before it is settled alone: a group of one costs a transaction and a
// commit of its own, and a busy pass finishes another send within a
// millisecond. A process delivering one message waits that much longer.
const settleGather = time.Millisecond

// settleTimeout bounds a group's transaction. It does not take a caller's
// ctx: the group is everyone's, and an outcome of a send that happened must
// be written even while the pass stops (core's settle gives 30 s too).
const settleTimeout = 30 * time.Second

// SettleMessage records a send's outcome and the outbox items it starts in
// one transaction, the message's row locked, together with the other
// outcomes of this process settled at the same moment (settleGroup).
func (s *DB) SettleMessage(ctx context.Context, id string, fn func(m *core.Message) ([]*core.OutboxItem, error)) (*core.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := &settleCall{id: id, fn: fn, done: make(chan struct{})}
	g := &s.settles
	g.mu.Lock()
	g.pending = append(g.pending, c)
	if !g.running {
		g.running = true
		go s.runSettles()
	}
	select {
	case g.company <- struct{}{}:
	default:
	}
	g.mu.Unlock()
	<-c.done
	return c.m, c.err
}

// runSettles settles the pending calls, a group at a time, until none is
// left. A message's second call waits for the next group, so that each
// group settles a row once.
func (s *DB) runSettles() {
	g := &s.settles
	for {
		g.mu.Lock()
		if len(g.pending) == 1 {
			g.gather()
		}
		var group, rest []*settleCall
		for _, c := range g.pending {
			if len(group) < maxSettleGroup && !slices.ContainsFunc(group, func(o *settleCall) bool { return o.id == c.id }) {
				group = append(group, c)
			} else {
				rest = append(rest, c)
			}
		}
		g.pending = rest
		if len(group) == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		g.started.Store(time.Now().UnixNano())
		// The bounces waiting for a group of their own ride this one: a
		// commit and two round trips fewer beside the pass (issue 31).
		riders := newBounceBatch(s.bounces.take(maxBounceGroup))
		ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
		if (len(group) == 1 && riders.empty()) || !s.settleTogether(ctx, group, riders) {
			for _, c := range group {
				c.m, c.err = s.settleAlone(ctx, c.id, c.fn)
			}
		}
		cancel()
		for _, c := range group {
			close(c.done)
		}
		for _, c := range riders.calls {
			close(c.done)
		}
	}
}

// settleTogether settles calls in one transaction and reports whether it
// committed; each call's m and err are then its outcome. The bounces of
// riders are recorded in the same transaction, read after the settled
// rows are locked and written after them, each with its outcome set as
// its own group's would be (bounceBatch).
func (s *DB) settleTogether(ctx context.Context, calls []*settleCall, riders *bounceBatch) bool {
	ids := make([]string, len(calls))
	for i, c := range calls {
		ids[i] = c.id
	}
	rows := make(map[string]*core.Message, len(calls))
	var owners []string
	err := s.readThenWrite(ctx, func(q *queued) {
		// PostgreSQL would plan the locking read anew for every group, as
		// it finds a plan for the ids at hand cheaper than a generic one;
		// both are the same seek of the primary key (explain_test.go). The
		// setting holds for the group's transaction, whose writes by
		// primary key use their generic plans anyway.
		q.Queue("set local plan_cache_mode = force_generic_plan")
		// In the order of their ids, as every group locks them: two groups
		// never wait for each other in a cycle.
		q.Queue("select "+messageColumns+" from messages where id = any($1) order by id for update", ids)
		riders.queueRead(q)
	}, func(r pgx.BatchResults) error {
		if _, err := r.Exec(); err != nil {
			return err
		}
		found, err := s.collectMessages(r.Query())
		for _, m := range found {
			rows[m.ID] = m
		}
		if err != nil {
			return err
		}
		return s.scanBounces(riders, r)
	}, func(q *queued) error {
		owners = owners[:0]
		for _, c := range calls {
			c.m, c.err = nil, nil
			m := rows[c.id]
			if m == nil {
				c.err = core.ErrMessageNotFound()
				continue
			}
			old := *m
			items, err := c.fn(m)
			if err == nil {
				err = m.CheckUpdate(c.id)
			}
			if err != nil {
				c.err = err
				continue
			}
			if err := s.putMessage(ctx, q, &old, m); err != nil {
				return err
			}
			for _, item := range items {
				if err := s.putOutboxItem(ctx, q, item); err != nil {
					return err
				}
			}
			c.m = m
			owners = append(owners, m.Owner)
		}
		s.queueBounces(ctx, q, riders)
		return nil
	})
	if err != nil {
		s.unsure(err, true, owners...)
		riders.failed(err)
		return false
	}
	s.changed(owners...)
	return true
}

// settleAlone is SettleMessage's transaction for one message.
func (s *DB) settleAlone(ctx context.Context, id string, fn func(m *core.Message) ([]*core.OutboxItem, error)) (*core.Message, error) {
	m, err := s.rewriteMessage(ctx, id, fn)
	if err != nil {
		return nil, err
	}
	s.changed(m.Owner)
	return m, nil
}

// rewriteMessage applies fn to the message, its row locked, and writes it
// back with the outbox items fn starts, in one transaction of two round
// trips: BEGIN and the locking read; the writes and COMMIT.
func (s *DB) rewriteMessage(ctx context.Context, id string, fn func(m *core.Message) ([]*core.OutboxItem, error)) (*core.Message, error) {
	var m *core.Message
	err := s.readThenWrite(ctx, func(q *queued) {
		q.Queue("select "+messageColumns+" from messages where id = $1 for update", id)
	}, func(r pgx.BatchResults) error {
		var err error
		m, err = s.scanMessage(r.QueryRow())
		return err
	}, func(q *queued) error {
		old := *m
		items, err := fn(m)
		if err != nil {
			return err
		}
		if err := m.CheckUpdate(id); err != nil {
			return err
		}
		if err := s.putMessage(ctx, q, &old, m); err != nil {
			return err
		}
		for _, item := range items {
			if err := s.putOutboxItem(ctx, q, item); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if m != nil {
			s.unsure(err, true, m.Owner)
		}
		return nil, err
	}
	return m, nil
}

// gather waits, with g.mu held on entry and on return, until another call
// is pending or settleGather has passed.
func (g *settleGroup) gather() {
	if g.company == nil {
		g.company = make(chan struct{}, 1)
	}
	select {
	case <-g.company: // a signal left from before this wait
	default:
	}
	company, wait := g.company, g.gatherFor
	if wait == 0 {
		wait = settleGather
	}
	g.mu.Unlock()
	t := time.NewTimer(wait)
	select {
	case <-company:
	case <-t.C:
	}
	t.Stop()
	g.mu.Lock()
}

package postgres

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

// bounceGroup records concurrent bounces together, as bbolt's commit
// group does (store/bolt/commitgroup.go): DSNs arrive one by one (500
// a second is one every 2 ms), and a transaction each is a commit, a WAL
// flush, each, beside the deliveries'. A group is one read of all its
// messages (BEGIN and the select), then every call's writes and COMMIT:
// two round trips and one commit for up to maxBounceGroup bounces.
//
// Each call's fn runs on its own copy of its message; a fn that fails or
// writes nothing ends only its caller, and a message missing at the read
// is its caller's not-found. When the transaction surely did not commit
// (a message deleted meanwhile fails the marks' foreign key; a deadlock;
// anything the server refused, or a failure before the COMMIT left:
// recordTogether), each call that had writes is recorded again alone by
// its caller (recordBounceAlone), so one bad call cannot fail the
// others; fn may therefore run twice, as core.BounceMarkStore allows.
// When the COMMIT's outcome is unknown (the connection lost after it
// left) every call that had writes gets that error: a rerun could apply
// a bounce twice (a soft count, an event, an email to the author).
//
// Not settleGroup's machinery: its calls lock and rewrite their rows, one
// call per message a group, and a lone settlement only waits for a
// second; bounces read without locking, share messages, and gather like
// bbolt's (gap and most). But beside a delivery pass (a settlement group
// started within passNear) the bounces ride its transactions, as on
// bbolt, rather than committing between them: a settlement group takes
// the pending bounces along once they are worth a ride (take: a
// rideCompany of them, or the oldest waited rideAfter), and the group's
// own gathering waits longer meanwhile (besideGap, besideMost), so that
// it seldom commits one of its own.
type bounceGroup struct {
	mu      sync.Mutex
	pending []*bounceCall
	running bool
	// company is signalled by every call that joins the pending ones.
	company chan struct{}
	// gap and most replace the gatherings' gaps and most when set, and
	// rideAfter (a negative one: none) replaces rideAfter (the tests).
	gap, most, rideAfter time.Duration
}

type bounceCall struct {
	ctx context.Context
	id  string
	fn  func(m *core.Message) (*core.BounceWrite, error)

	// Set by the group before done is closed: the call's error, the
	// owner of its message when it queued writes, and alone when it is
	// to be recorded again alone (the group did not commit).
	err   error
	owner string
	alone bool
	done  chan struct{}
	at    time.Time // when it was called
}

// The gathering, as bbolt's (store/bolt/bounces.go, where the figures
// that chose them are): until bounceGatherGap passes without a new call,
// or bounceGatherMax at most, before every group, a lone call's too. A
// lone call going at once instead (the calls arriving while it is in
// flight gathering for the next) made the groups of
// BenchmarkDeliveryBesideBounces/postgres about 8 bounces instead of 10,
// so more commits beside the deliveries, for 2 ms less wait of a lone DSN,
// which SMTP does not notice (docs/benchmarks-history.md#postgresqls-bounce-group-deliveries-beside-500-dsnss-issue-31-item-pgbounce).
const (
	bounceGatherGap = 2 * time.Millisecond
	bounceGatherMax = 10 * time.Millisecond
)

// Beside a delivery pass a settlement group commits every few
// milliseconds: bounces that rode each one as they came (one or two a
// group at 500 DSNs a second) put three statements into nearly every
// transaction the deliveries wait for. Ridden in companies of about ten,
// a group in every few, the database reads and inserts for ten at once,
// and the deliveries' critical path carries them a tenth as often;
// a DSN's reply waits about rideAfter longer, which SMTP does not notice
// (docs/benchmarks-history.md#issue-31-bounces-ride-in-companies).
const (
	rideCompany = 12                    // pending bounces worth a ride at once
	rideAfter   = 20 * time.Millisecond // the longest the oldest waits for company
	// The group's own gathering beside a pass: longer than rideAfter, so
	// that a settlement group usually takes the bounces first.
	besideGap  = 25 * time.Millisecond
	besideMost = 40 * time.Millisecond
	// passNear: a settlement group started this recently means a pass.
	passNear = 50 * time.Millisecond
)

// maxBounceGroup bounds a group: its read and the batch of its writes.
const maxBounceGroup = 64

// bounceTimeout bounds a group's transaction; it does not take a caller's
// ctx, as the group is everyone's.
const bounceTimeout = 30 * time.Second

// RecordBounce reads the message and writes what fn returns beside it,
// in one transaction with the bounces recorded at the same moment
// (bounceGroup): the message's row is not written.
func (s *DB) RecordBounce(ctx context.Context, id string, fn func(m *core.Message) (*core.BounceWrite, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c := &bounceCall{ctx: ctx, id: id, fn: fn, done: make(chan struct{}), at: time.Now()}
	g := &s.bounces
	g.mu.Lock()
	if g.company == nil {
		g.company = make(chan struct{}, 1)
	}
	g.pending = append(g.pending, c)
	if !g.running {
		g.running = true
		go s.runBounces()
	}
	select {
	case g.company <- struct{}{}:
	default:
	}
	g.mu.Unlock()
	<-c.done
	switch {
	case c.alone:
		return s.recordBounceAlone(ctx, id, fn)
	case c.err != nil:
		if c.owner != "" {
			s.unsure(c.err, true, c.owner)
		}
		return c.err
	case c.owner != "":
		// Changed, not moved: no client waits on a bounce to read its
		// mark on another replica (an MTA or a provider's webhook sent
		// it), so, as a delivery's settlement, it is announced with the
		// changes of the next 20 ms rather than in a round of its own
		// that every replica acknowledges before the reply (issue 31:
		// that round took a third of the database's CPU per DSN beside
		// the deliveries). This process reads it at once.
		s.changed(c.owner)
	}
	return nil
}

// runBounces records the pending calls, a group at a time, gathering
// before each, until none is left.
func (s *DB) runBounces() {
	g := &s.bounces
	for {
		g.gather(s.settles.near())
		g.mu.Lock()
		n := min(len(g.pending), maxBounceGroup)
		group := g.pending[:n:n]
		g.pending = slices.Clone(g.pending[n:])
		if n == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), bounceTimeout)
		s.recordTogether(ctx, group)
		cancel()
		for _, c := range group {
			close(c.done)
		}
	}
}

// gather waits, without g.mu, until no call joined for the gap, the most
// passed, or a whole group is pending; the longer gap and most beside a
// pass, when the calls are meant to ride a settlement group.
func (g *bounceGroup) gather(beside bool) {
	g.mu.Lock()
	company, gap, most := g.company, g.gap, g.most
	g.mu.Unlock()
	switch {
	case gap != 0:
	case beside:
		gap, most = besideGap, besideMost
	default:
		gap, most = bounceGatherGap, bounceGatherMax
	}
	select {
	case <-company: // the signal of the calls already pending
	default:
	}
	deadline := time.Now().Add(most)
	t := time.NewTimer(gap)
	defer t.Stop()
	for {
		select {
		case <-company:
			g.mu.Lock()
			full := len(g.pending) >= maxBounceGroup
			g.mu.Unlock()
			left := time.Until(deadline)
			if full || left <= 0 {
				return
			}
			t.Reset(min(gap, left))
		case <-t.C:
			return
		}
	}
}

// recordTogether records calls in one transaction, setting each call's
// outcome (bounceGroup).
func (s *DB) recordTogether(ctx context.Context, calls []*bounceCall) {
	b := newBounceBatch(calls)
	if b.empty() {
		return
	}
	err := s.readThenWrite(ctx, b.queueRead, func(r pgx.BatchResults) error { return s.scanBounces(b, r) }, func(q *queued) error {
		s.queueBounces(ctx, q, b)
		return nil
	})
	if err != nil {
		b.failed(err)
	}
}

// bounceBatch is a group of bounce calls' share of one transaction: the
// group's own (recordTogether) or a settlement group's, which it rides
// (settle.go): its read, then its writes, then each call's outcome. An
// empty batch (no call, or every caller gone) queues, scans and writes
// nothing.
type bounceBatch struct {
	calls []*bounceCall
	ids   []string
	rows  map[string]*core.Message
	read  bool // the read succeeded and the fns ran
	// writes are the calls' writes, queued together once every fn ran.
	writes bounceRows
}

func newBounceBatch(calls []*bounceCall) *bounceBatch {
	// In the order of their messages (arrival order within one): the
	// marks of two processes' groups are then written in one order, and
	// one message's bounces keep theirs.
	slices.SortStableFunc(calls, func(a, b *bounceCall) int { return cmp.Compare(a.id, b.id) })
	b := &bounceBatch{calls: calls}
	for _, c := range calls {
		if err := c.ctx.Err(); err != nil {
			c.err = err // its caller is gone: nothing is read for it
		} else if len(b.ids) == 0 || b.ids[len(b.ids)-1] != c.id {
			b.ids = append(b.ids, c.id)
		}
	}
	if len(b.ids) > 0 {
		b.rows = make(map[string]*core.Message, len(b.ids))
	}
	return b
}

// empty: no call is left to record (their callers are gone).
func (b *bounceBatch) empty() bool { return len(b.ids) == 0 }

func (b *bounceBatch) queueRead(q *queued) {
	if !b.empty() {
		q.Queue("select "+bounceReadColumns+" from messages where id = any($1)", b.ids)
	}
}

func (s *DB) scanBounces(b *bounceBatch, r pgx.BatchResults) error {
	if b.empty() {
		return nil
	}
	found, err := s.collectMessages(r.Query())
	for _, m := range found {
		b.rows[m.ID] = m
	}
	return err
}

// queueBounces runs the calls' fns and queues their writes in q.
func (s *DB) queueBounces(ctx context.Context, q *queued, b *bounceBatch) {
	if b.empty() {
		return
	}
	b.read = true
	for _, c := range b.calls {
		if c.err == nil {
			s.runCall(ctx, b, c, b.rows[c.id])
		}
	}
	b.writes.queue(q)
}

// failed sets the calls' outcomes when their transaction failed with err.
// Not committed, surely (wrapCommitErr: the server refused a statement, or
// the failure came before the COMMIT left): the calls whose writes were
// lost are recorded again alone. Else the outcome is unknown, and theirs
// is that error.
func (b *bounceBatch) failed(err error) {
	rerun := core.ErrorCode(err) != core.EOutcomeUnknown
	for _, c := range b.calls {
		switch {
		case c.owner != "" && rerun:
			c.alone, c.owner = true, ""
		case c.owner != "":
			c.err = err
		case !b.read && c.err == nil:
			c.alone = true // the read failed (before the COMMIT): no fn ran
		}
	}
}

// take removes up to n pending calls for a settlement group to carry,
// once they are worth a ride: rideCompany of them, or the oldest has
// waited rideAfter.
func (g *bounceGroup) take(n int) []*bounceCall {
	g.mu.Lock()
	defer g.mu.Unlock()
	after := rideAfter
	if g.rideAfter != 0 {
		after = max(g.rideAfter, 0)
	}
	if len(g.pending) == 0 || (len(g.pending) < rideCompany && time.Since(g.pending[0].at) < after) {
		return nil
	}
	n = min(n, len(g.pending))
	calls := g.pending[:n:n]
	g.pending = slices.Clone(g.pending[n:])
	return calls
}

// runCall runs c's fn on its own copy of m (nil: gone) and adds its
// writes to b's; a call whose fn fails, writes nothing or has a write
// that cannot be made ends with that outcome, leaving the others' writes.
func (s *DB) runCall(ctx context.Context, b *bounceBatch, c *bounceCall, m *core.Message) {
	if m == nil {
		c.err = core.ErrMessageNotFound()
		return
	}
	cp := *m
	cp.Recipients, cp.Events, cp.Warnings = slices.Clone(m.Recipients), slices.Clone(m.Events), slices.Clone(m.Warnings)
	w, err := c.fn(&cp)
	if err != nil || w == nil {
		c.err = err
		return
	}
	if err := b.writes.add(ctx, s, c.id, w); err != nil {
		c.err = err
		return
	}
	c.owner = m.Owner
}

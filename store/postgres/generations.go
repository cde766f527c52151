package postgres

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

var _ core.UserGenerations = (*DB)(nil)

// Per-user generations across processes (core.UserGenerations).
//
// A serving process (ServeGenerations) keeps what it read for a user under the user's
// generation and reuses it while the generation has not moved. Another
// replica's write reaches it only through the database, so:
//
//   - Every write of a user's record, messages or sessions moves the user's
//     generation in the writing process once committed (moved, changed) and
//     notifies the other processes on the gens channel, after the commit, in
//     a transaction of its own (notify.go); the same round trip reads which
//     replicas hold a live lease.
//   - Each replica's listener moves the generations it is told of, then
//     acknowledges on the acks channel (coalesced, never blocking it).
//   - A write a client waits for (an API request, the CLI) returns only once
//     every replica of that set acknowledged, or its lease, as read, has
//     passed: a replica that stopped hearing has stopped reusing by then.
//   - A replica reuses only while it is safe: its listener holds, and less
//     than lease - leaseMargin has passed, on its own monotonic clock, since
//     it sent the last renewal of its lease that succeeded. The renewal goes
//     over the LISTEN connection itself, so a replica that cannot hear
//     cannot renew. When the listener reconnects every generation moves
//     (changes may have gone unheard) before it is safe again.
//
// While not safe, UserGeneration returns a value never returned before, so
// nothing is reused and nothing read then is reused later.
type generations struct {
	stripes core.GenerationStripes
	unsafe  atomic.Uint64 // values for when not safe: the top bit set

	id      string // this process on both channels
	serving atomic.Bool
	// safeUntil is when reuse stops, in nanoseconds of mono; 0: not safe.
	safeUntil atomic.Int64

	seq atomic.Uint64 // this process's notifications

	ackMu   sync.Mutex
	acked   map[string]uint64 // the highest of our seqs each replica acknowledged
	ackWake chan struct{}     // closed and replaced on every acknowledgement
}

// The lease of a serving process: renewed every leaseRenew to now()+lease
// in the database's clock; reuse stops leaseMargin before it ends on the
// process's own.
const (
	lease       = 5 * time.Second
	leaseRenew  = time.Second
	leaseMargin = time.Second
)

var monoStart = time.Now()

// mono is the process's monotonic clock.
func mono() int64 { return int64(time.Since(monoStart)) }

// UserGeneration implements core.UserGenerations.
func (s *DB) UserGeneration(userID string) uint64 {
	g := &s.gens
	if until := g.safeUntil.Load(); until == 0 || mono() >= until {
		return 1<<63 | g.unsafe.Add(1)
	}
	return g.stripes.Of(userID).Load()
}

// ServeGenerations implements core.GenerationServer: it makes this process
// a replica that keeps what it reads under the users' generations. It
// starts the listener, which registers the process and renews its lease
// while it hears. Only `sendlater serve` calls it;
// other processes write (and wait for the replicas) without registering.
func (s *DB) ServeGenerations() {
	s.gens.serving.Store(true)
	s.listener.start(s)
}

// moveLocal moves the generations of users in this process.
func (g *generations) moveLocal(users []string) {
	for _, u := range users {
		g.stripes.Of(u).Add(1)
	}
}

// gensPayloads are the notifications of one batch on the gens channel:
// the writer, its sequence number, whether it is the batch's last (1) or
// not (0), and the users whose generations move. A replica acknowledges the
// last only: a batch's notifications arrive in order, so by then it moved
// every user of the batch.
func gensPayloads(writer string, seq uint64, users []string) []string {
	head := writer + " " + strconv.FormatUint(seq, 10)
	var out []string
	var b strings.Builder
	for _, u := range users {
		if b.Len() > 0 && b.Len()+1+len(u) > maxPayload {
			out = append(out, b.String())
			b.Reset()
		}
		if b.Len() == 0 {
			b.WriteString(head)
			b.WriteString(" 0")
		}
		b.WriteByte(' ')
		b.WriteString(u)
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	if n := len(out); n > 0 { // the last: " 0" after the head becomes " 1"
		out[n-1] = head + " 1" + out[n-1][len(head)+2:]
	}
	return out
}

// maxPayload keeps a notification under PostgreSQL's 8,000 bytes.
const maxPayload = 7000

// heardGens handles a gens notification: moves the generations and, in a
// serving process, for another process's, owes it an acknowledgement.
func (s *DB) heardGens(payload string, o owed) {
	fields := strings.Fields(payload)
	if len(fields) < 3 {
		return
	}
	s.gens.moveLocal(fields[3:])
	if fields[2] != "1" || fields[0] == s.gens.id || !s.gens.serving.Load() {
		return
	}
	seq, err := strconv.ParseUint(fields[1], 10, 64)
	if err != nil {
		return
	}
	o.add(fields[0], seq)
}

// heardAck handles an acknowledgement: "<writer> <seq> <replica>".
func (s *DB) heardAck(payload string) {
	fields := strings.Fields(payload)
	if len(fields) != 3 || fields[0] != s.gens.id {
		return
	}
	seq, err := strconv.ParseUint(fields[1], 10, 64)
	if err != nil {
		return
	}
	g := &s.gens
	g.ackMu.Lock()
	defer g.ackMu.Unlock()
	if g.acked == nil {
		g.acked = map[string]uint64{}
	}
	if seq > g.acked[fields[2]] {
		g.acked[fields[2]] = seq
	}
	if g.ackWake != nil {
		close(g.ackWake)
		g.ackWake = nil
	}
}

// liveReplica is a replica read with the remaining time of its lease.
type liveReplica struct {
	id   string
	left time.Duration
}

// waitAcks waits until every replica of live acknowledged seq or its lease
// passed (measured from read, when the lease was read).
func (g *generations) waitAcks(seq uint64, live []liveReplica, read time.Time) {
	for {
		g.ackMu.Lock()
		var next time.Time
		for _, r := range live {
			if g.acked[r.id] >= seq {
				continue
			}
			if end := read.Add(r.left); time.Now().Before(end) && (next.IsZero() || end.Before(next)) {
				next = end
			}
		}
		if next.IsZero() {
			g.ackMu.Unlock()
			return
		}
		if g.ackWake == nil {
			g.ackWake = make(chan struct{})
		}
		wake := g.ackWake
		g.ackMu.Unlock()
		t := time.NewTimer(time.Until(next))
		select {
		case <-wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// owed are the acknowledgements a replica's listener owes: the latest seq
// of each writer. The listener sends them itself, over its own connection,
// once it has handled every notification already received (sendAcks): a
// pool's connection could be busy with requests exactly when writers wait.
type owed map[string]uint64

func (o owed) add(writer string, seq uint64) {
	if seq > o[writer] {
		o[writer] = seq
	}
}

// sendAcks sends what is owed in one round trip over conn.
func (s *DB) sendAcks(ctx context.Context, conn *pgx.Conn, o owed) error {
	acks := make([]string, 0, len(o))
	for w, seq := range o {
		acks = append(acks, w+" "+strconv.FormatUint(seq, 10)+" "+s.gens.id)
	}
	clear(o)
	ctx, cancel := context.WithTimeout(ctx, leaseRenew)
	defer cancel()
	b := &pgx.Batch{}
	b.Queue("begin")
	b.Queue("set local synchronous_commit = off")
	b.Queue("select pg_notify($1, a) from unnest($2::text[]) a", s.listener.channel+ackSuffix, acks)
	b.Queue("commit")
	return conn.SendBatch(ctx, b).Close()
}

// The channels of a schema: the watchers' (listener.channel), and these
// suffixed to it.
const (
	gensSuffix = "_g"
	ackSuffix  = "_a"
)

// register inserts or renews this process's lease over conn (the LISTEN
// connection) and, when it succeeds, extends how long it is safe.
func (s *DB) register(ctx context.Context, conn *pgx.Conn) error {
	ctx, cancel := context.WithTimeout(ctx, leaseRenew)
	defer cancel()
	sent := mono()
	_, err := conn.Exec(ctx, `insert into replicas (id, lease_until) values ($1, now() + $2::interval)
		on conflict (id) do update set lease_until = excluded.lease_until`,
		s.gens.id, strconv.Itoa(int(lease/time.Millisecond))+" milliseconds")
	if err != nil {
		return err
	}
	s.gens.safeUntil.Store(sent + int64(lease-leaseMargin))
	return nil
}

// unregister ends this process's lease (a clean shutdown): writers stop
// waiting for it at once.
func (s *DB) unregister() {
	s.gens.safeUntil.Store(0)
	if !s.gens.serving.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.pool.Exec(ctx, "delete from replicas where id = $1", s.gens.id)
}

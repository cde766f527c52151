package postgres

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

// notifier tells the other processes what changed, after the writing
// transaction committed, in transactions of their own whose commit is not
// waited for (notifying inside the writing transaction would hold
// PostgreSQL's one notification lock until that transaction's commit is
// flushed, so every writer's commit would wait for the previous one's: a
// delivery pass made about 300 commits a second instead of thousands).
//
// A batch goes out in two steps: first the users whose generations moved,
// on the gens channel, waiting for every live replica to acknowledge
// (generations.go); then the owners whose messages changed, on the
// watchers' channel. So a browser told by the live list on one replica
// never reads the old list on another. Changes that arrive while a batch
// is out go together in the next; a batch nobody waits for (the delivery
// pass's) first gathers for notifyGather.
type notifier struct {
	mu      sync.Mutex
	users   map[string]bool // whose generations moved
	owners  map[string]bool // whose watchers are told
	waiters []chan struct{} // closed once the batch's replicas heard
	kick    chan struct{}   // a waiter arrived: stop gathering
	running bool
	idle    sync.WaitGroup // while a sender runs
	conn    *pgx.Conn      // the sender's own (sendConn)
}

// notifyGather is how long a change nobody waits for waits for others to
// be notified with it: a busy pass settles many messages a second, one
// notification each would cost the database a transaction each.
const notifyGather = 20 * time.Millisecond

// changed moves the generations of owners and tells their watchers, soon,
// without waiting: for the delivery pass's writes, which no client waits
// for. Call it once the change committed.
func (s *DB) changed(owners ...string) { s.note(nil, true, owners) }

// moved moves the generations of users (and, with watch, tells their
// watchers) and returns once every live replica heard of it, or could no
// longer have kept anything (generations.go): for a write a client waits
// for, so that its next request, on any replica, sees the write. Call it
// once the change committed.
func (s *DB) moved(ctx context.Context, watch bool, users ...string) {
	done := make(chan struct{})
	s.note(done, watch, users)
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// unsure announces the change of users when err leaves it possibly made
// (EOutcomeUnknown: the connection was lost after the COMMIT left), as
// changed does, without waiting: the database is likely away, and when
// it is back a reader must not keep what the change may have outdated.
func (s *DB) unsure(err error, watch bool, users ...string) {
	if core.ErrorCode(err) == core.EOutcomeUnknown {
		s.note(nil, watch, users)
	}
}

func (s *DB) note(done chan struct{}, watch bool, users []string) {
	s.gens.moveLocal(users)
	n := &s.notes
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.users == nil {
		n.users, n.owners, n.kick = map[string]bool{}, map[string]bool{}, make(chan struct{}, 1)
	}
	for _, u := range users {
		n.users[u] = true
		if watch {
			n.owners[u] = true
		}
	}
	if done != nil {
		n.waiters = append(n.waiters, done)
		select {
		case n.kick <- struct{}{}:
		default:
		}
	}
	if !n.running && len(n.users) > 0 {
		n.running = true
		n.idle.Add(1)
		go s.sendNotifications()
	}
}

// sendNotifications sends the pending batches until none is left.
func (s *DB) sendNotifications() {
	n := &s.notes
	defer n.idle.Done()
	for {
		n.mu.Lock()
		if len(n.waiters) == 0 {
			n.mu.Unlock()
			select {
			case <-time.After(notifyGather):
			case <-n.kick:
			}
			n.mu.Lock()
		}
		users, owners := keys(n.users), keys(n.owners)
		waiters := n.waiters
		clear(n.users)
		clear(n.owners)
		n.waiters = nil
		if len(users) == 0 {
			n.running = false
			n.mu.Unlock()
			return
		}
		n.mu.Unlock()
		s.barrier(users)
		for _, w := range waiters {
			close(w)
		}
		if len(owners) > 0 {
			s.notifyWatchers(owners)
		}
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// barrier tells every process that the generations of users moved and
// waits until every replica with a live lease acknowledged, or its lease,
// as read, passed. The notifications and the read of the live replicas are
// one round trip, after the writes committed: a replica registering later
// reads the writes anyway. While the database does not answer it tries
// again for a lease, then gives up: by then a replica that could not renew
// its lease reuses nothing (docs/deploy.md).
func (s *DB) barrier(users []string) {
	s.listener.start(s) // acknowledgements come back to it
	select {
	case <-s.listener.ready:
	case <-time.After(listenWait):
	}
	seq := s.gens.seq.Add(1)
	payloads := gensPayloads(s.gens.id, seq, users)
	giveUp := time.Now().Add(lease)
	for {
		b := &pgx.Batch{}
		b.Queue("begin")
		b.Queue("set local synchronous_commit = off")
		b.Queue("select pg_notify($1, p) from unnest($2::text[]) p", s.listener.channel+gensSuffix, payloads)
		b.Queue("select id, extract(epoch from lease_until - now())::float8 from replicas where lease_until > now() and id <> $1",
			s.gens.id)
		b.Queue("commit")
		live, err := s.sendBarrier(b)
		if err == nil {
			s.gens.waitAcks(seq, live, time.Now())
			return
		}
		if time.Now().After(giveUp) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *DB) sendBarrier(b *pgx.Batch) (live []liveReplica, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), lease)
	defer cancel()
	conn, err := s.sendConn(ctx)
	if err != nil {
		return nil, err
	}
	defer s.sent(&err)
	br := conn.SendBatch(ctx, b)
	defer br.Close()
	for range 3 { // begin, set, notify
		if _, err := br.Exec(); err != nil {
			return nil, err
		}
	}
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var r liveReplica
		var secs float64
		if err := rows.Scan(&r.id, &secs); err != nil {
			rows.Close()
			return nil, err
		}
		r.left = time.Duration(secs * float64(time.Second))
		live = append(live, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if _, err := br.Exec(); err != nil { // commit
		return nil, err
	}
	return live, br.Close()
}

// notifyWatchers tells every process's watchers of owners. Failures are
// dropped: the database is away, and the listeners, cut off as well, signal
// every watcher when they reconnect.
func (s *DB) notifyWatchers(owners []string) {
	// One round trip; a batch that fails drops the connection (sent).
	b := &pgx.Batch{}
	b.Queue("begin")
	b.Queue("set local synchronous_commit = off")
	b.Queue("select pg_notify($1, o) from unnest($2::text[]) o", s.listener.channel, owners)
	b.Queue("commit")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := s.sendConn(ctx)
	if err != nil {
		return
	}
	defer s.sent(&err)
	err = conn.SendBatch(ctx, b).Close()
}

// sendConn is the sender's own connection, made when first needed and made
// again after a failure: its round trips never wait behind requests for a
// connection of the pool, as writers wait for them.
func (s *DB) sendConn(ctx context.Context) (*pgx.Conn, error) {
	n := &s.notes
	if n.conn != nil {
		return n.conn, nil
	}
	c, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig)
	if err != nil {
		return nil, err
	}
	n.conn = c
	return c, nil
}

// sent drops the sender's connection after a failure: it may be inside a
// transaction, or gone.
func (s *DB) sent(err *error) {
	if *err != nil && s.notes.conn != nil {
		s.notes.conn.Close(context.Background())
		s.notes.conn = nil
	}
}

// closeConn closes the sender's connection once no sender runs.
func (n *notifier) closeConn() {
	n.wait()
	if n.conn != nil {
		n.conn.Close(context.Background())
		n.conn = nil
	}
}

// wait waits until the pending notifications are sent (or dropped).
func (n *notifier) wait() { n.idle.Wait() }

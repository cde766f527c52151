package postgres

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// notifier tells every process's message watchers which owners' messages
// changed: pg_notify on the schema's channel, sent after the writing
// transaction committed, in a transaction of its own whose commit is not
// waited for (a lost notification is no loss to durability). Notifying
// inside the writing transaction would hold PostgreSQL's one notification
// lock until that transaction's commit is flushed, so every writer's commit
// would wait for the previous one's: a delivery pass made about 300
// commits a second instead of thousands. Changes that arrive while a
// notification is being sent, or within notifyGather of the first, go out
// together in the next.
type notifier struct {
	mu      sync.Mutex
	pending map[string]bool
	running bool
	idle    sync.WaitGroup // while a sender runs
}

// notifyGather is how long a change waits for others to be notified with
// it: a busy pass settles many messages a second, one notification each
// would cost the database a transaction each.
const notifyGather = 20 * time.Millisecond

// changed notifies, soon, that the messages of owners changed. Call it once
// the change committed.
func (s *DB) changed(owners ...string) {
	n := &s.notes
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.pending == nil {
		n.pending = map[string]bool{}
	}
	for _, o := range owners {
		n.pending[o] = true
	}
	if !n.running && len(n.pending) > 0 {
		n.running = true
		n.idle.Add(1)
		go s.sendNotifications()
	}
}

// sendNotifications sends the pending notifications until none is left.
// Failures are dropped: the database is away, and the listeners, cut off
// as well, signal every watcher when they reconnect.
func (s *DB) sendNotifications() {
	n := &s.notes
	defer n.idle.Done()
	for {
		time.Sleep(notifyGather)
		n.mu.Lock()
		owners := make([]string, 0, len(n.pending))
		for o := range n.pending {
			owners = append(owners, o)
		}
		clear(n.pending)
		if len(owners) == 0 {
			n.running = false
			n.mu.Unlock()
			return
		}
		n.mu.Unlock()
		slices.Sort(owners)
		// One round trip; a batch that fails leaves its connection inside
		// the transaction, and the pool closes such a connection.
		b := &pgx.Batch{}
		b.Queue("begin")
		b.Queue("set local synchronous_commit = off")
		b.Queue("select pg_notify($1, o) from unnest($2::text[]) o", s.listener.channel, owners)
		b.Queue("commit")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		s.pool.SendBatch(ctx, b).Close()
		cancel()
	}
}

// wait waits until the pending notifications are sent (or dropped).
func (n *notifier) wait() { n.idle.Wait() }

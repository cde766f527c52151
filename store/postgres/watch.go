package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// WatchMessages implements core.MessageWatcher across processes: the
// process that changed an owner's messages notifies the schema's channel
// with the owner's id once the change committed (notify.go), and one
// connection of each store listens and tells the watchers there. The first watch starts
// the listener and waits (at most listenWait) until it listens, so a change
// committed after WatchMessages returns is seen. While the listener is cut
// off it reconnects, then signals every watcher: changes may have been
// missed.
func (s *DB) WatchMessages(ctx context.Context, owner string) (<-chan struct{}, func()) {
	ch, cancel := s.watchers.Watch(ctx, owner)
	s.listener.start(s)
	select {
	case <-s.listener.ready:
	case <-ctx.Done():
	case <-time.After(listenWait):
	}
	return ch, cancel
}

// listenWait bounds how long a first watch waits for the listener; after
// it, the watch works once the database answers.
const listenWait = 5 * time.Second

// listener holds the LISTEN connection of a store.
type listener struct {
	channel string // the schema's channel: sendlater_ and the md5 of its name

	once  sync.Once
	ready chan struct{} // closed once the first LISTEN holds
	ctx   context.Context
	quit  context.CancelFunc
	done  chan struct{}
}

func (l *listener) start(s *DB) {
	l.once.Do(func() {
		l.ready, l.done = make(chan struct{}), make(chan struct{})
		l.ctx, l.quit = context.WithCancel(context.Background())
		go l.run(s)
	})
}

// stop ends the listener, if it started, and waits for it.
func (l *listener) stop() {
	l.once.Do(func() {}) // a later start does nothing
	if l.quit != nil {
		l.quit()
		<-l.done
	}
}

// run listens until stopped, reconnecting with a growing pause (up to 5s)
// while the database is away.
func (l *listener) run(s *DB) {
	defer close(l.done)
	missed := false // whether changes may have gone unheard
	pause := 100 * time.Millisecond
	for l.ctx.Err() == nil {
		if l.listen(s, &missed) {
			pause = 100 * time.Millisecond
		}
		missed = true
		select {
		case <-l.ctx.Done():
		case <-time.After(pause):
		}
		pause = min(2*pause, 5*time.Second)
	}
}

// listen holds one connection until it fails, passing notifications to the
// watchers and the generations (generations.go) and, in a serving process,
// renewing its lease over it. It reports whether it got as far as
// listening.
func (l *listener) listen(s *DB, missed *bool) bool {
	defer s.gens.safeUntil.Store(0) // cut off: reuse nothing until heard again
	cfg := s.pool.Config().ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = "sendlater listener " + s.gens.id // pg_stat_activity tells it
	conn, err := pgx.ConnectConfig(l.ctx, cfg)
	if err != nil {
		return false
	}
	defer conn.Close(context.Background())
	for _, ch := range []string{l.channel, l.channel + gensSuffix, l.channel + ackSuffix} {
		if _, err := conn.Exec(l.ctx, "listen "+pgx.Identifier{ch}.Sanitize()); err != nil {
			return false
		}
	}
	// What was kept before may have changed unheard: read everything again.
	s.gens.stripes.MoveAll()
	select {
	case <-l.ready:
	default:
		close(l.ready)
	}
	if *missed {
		s.watchers.NotifyAll()
	}
	var renewed int64 = -1 << 62
	acks := owed{}
	for {
		wait := l.ctx
		var cancel context.CancelFunc = func() {}
		if s.gens.serving.Load() {
			if mono()-renewed >= int64(leaseRenew) {
				if err := s.register(l.ctx, conn); err != nil {
					return true
				}
				renewed = mono()
			}
			wait, cancel = context.WithTimeout(l.ctx, time.Duration(renewed+int64(leaseRenew)-mono()))
		}
		n, err := conn.WaitForNotification(wait)
		cancel()
		if err != nil {
			if l.ctx.Err() == nil && wait.Err() != nil && !conn.IsClosed() {
				continue // time to renew
			}
			return true
		}
		for n != nil {
			switch n.Channel {
			case l.channel:
				s.watchers.Notify(n.Payload)
			case l.channel + gensSuffix:
				s.heardGens(n.Payload, acks)
			case l.channel + ackSuffix:
				s.heardAck(n.Payload)
			}
			// The notifications already received come back at once with
			// a context that has ended; then the acknowledgements go,
			// together.
			n, _ = conn.WaitForNotification(ended)
		}
		if len(acks) > 0 {
			if err := s.sendAcks(l.ctx, conn, acks); err != nil {
				return true
			}
		}
	}
}

// ended is a context that has ended: WaitForNotification with it returns a
// notification already received, or at once nothing.
var ended = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

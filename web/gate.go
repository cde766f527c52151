package web

import (
	"context"
	"net/http"
	"runtime"
	"slices"
	"sync"

	"github.com/sendlater/sendlater/core"
)

// fairGate admits quick, CPU-bound reads (listing messages, the profile)
// one per processor at a time, and shares the slots fairly among those who
// wait: each waiter queues under its key (the signed-in user, else the
// client address), and a freed slot goes to the next key in turn, first
// come first served within a key. One user's flood of reads then waits
// behind itself, never in front of another user's read; and, with a queue
// instead of Go's scheduler (which runs the goroutine woken last first),
// the slowest replies stay close to the typical one (docs/benchmarks.md).
// Writes stay outside, or the store could not batch their commits, and so
// do streams and password hashing, which would hold a slot for long.
type fairGate struct {
	ipv6Prefix int // a client is its IPv6 network (core.ClientNetwork)

	mu     sync.Mutex
	free   int
	queues map[gateKey][]chan struct{} // the waiters of each key, in order
	turns  []gateKey                   // the keys with waiters, in turn order
}

// gateKey is whom a waiter queues for: a signed-in user (by id) or, when
// no one is signed in, a client address (its network for IPv6, as the
// limits count it: one /64 is one client, not 2^64). Two fields instead of
// one "user:"-prefixed string, so that a user never shares a queue with an
// address and a read makes no string to say whose it is.
type gateKey struct {
	user, client string
}

func newFairGate(ipv6Prefix int) *fairGate {
	return &fairGate{ipv6Prefix: ipv6Prefix, free: runtime.GOMAXPROCS(0), queues: map[gateKey][]chan struct{}{}}
}

// keyOf is whom r waits for: who acts (signed in), else the client.
func (g *fairGate) keyOf(r *http.Request) gateKey {
	if id := core.IdentityFrom(r.Context()); id != nil {
		return gateKey{user: id.UserID}
	}
	return gateKey{client: core.ClientNetwork(clientIP(r), g.ipv6Prefix)}
}

// acquire waits for a slot for key; false when ctx ended first.
func (g *fairGate) acquire(ctx context.Context, key gateKey) bool {
	g.mu.Lock()
	if g.free > 0 && len(g.turns) == 0 {
		g.free--
		g.mu.Unlock()
		return true
	}
	ch := make(chan struct{})
	if len(g.queues[key]) == 0 {
		g.turns = append(g.turns, key)
	}
	g.queues[key] = append(g.queues[key], ch)
	g.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
	}
	g.mu.Lock()
	q := g.queues[key]
	if i := slices.Index(q, ch); i >= 0 {
		g.queues[key] = slices.Delete(q, i, i+1)
		if len(g.queues[key]) == 0 {
			delete(g.queues, key)
			g.turns = slices.DeleteFunc(g.turns, func(k gateKey) bool { return k == key })
		}
		g.mu.Unlock()
		return false
	}
	g.mu.Unlock()
	g.release() // granted as ctx ended: pass the slot on
	return false
}

// release frees a slot: to the first waiter of the next key in turn, which
// goes to the back of the turns while it has more waiters.
func (g *fairGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.turns) == 0 {
		g.free++
		return
	}
	key := g.turns[0]
	g.turns = g.turns[1:]
	q := g.queues[key]
	ch := q[0]
	if q = q[1:]; len(q) > 0 {
		g.queues[key] = q
		g.turns = append(g.turns, key)
	} else {
		delete(g.queues, key)
	}
	close(ch)
}

// quick wraps h in the gate, keyed by keyOf.
func (g *fairGate) quick(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !g.acquire(r.Context(), g.keyOf(r)) {
			return
		}
		defer g.release()
		h(w, r)
	}
}

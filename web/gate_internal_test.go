package web

import (
	"context"
	"net"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// One key's flood of waiters does not keep another key's waiter out: the
// freed slot goes to the next key in turn.
func TestFairGateTakesTurns(t *testing.T) {
	g := &fairGate{free: 1, queues: map[gateKey][]chan struct{}{}}
	ctx := context.Background()
	g.acquire(ctx, gateKey{client: "busy"}) // the slot is taken
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	enter := func(key string) {
		defer wg.Done()
		g.acquire(ctx, gateKey{client: key})
		mu.Lock()
		order = append(order, key)
		mu.Unlock()
		g.release()
	}
	for range 100 {
		wg.Add(1)
		go enter("flood")
	}
	waitQueued(t, g, "flood", 100)
	wg.Add(1)
	go enter("other")
	waitQueued(t, g, "other", 1)
	g.release()
	wg.Wait()
	if i := indexOf(order, "other"); i > 1 {
		t.Fatalf("the other key came %dth after %d of the flood", i+1, i)
	}
	if g.free != 1 || len(g.turns) != 0 || len(g.queues) != 0 {
		t.Fatalf("gate left %d free, turns %v, queues %v", g.free, g.turns, g.queues)
	}
}

// A waiter whose request ends leaves the queue, and a slot granted as it
// ended passes on.
func TestFairGateWaiterGivesUp(t *testing.T) {
	g := &fairGate{free: 1, queues: map[gateKey][]chan struct{}{}}
	g.acquire(context.Background(), gateKey{client: "a"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan bool)
	go func() { done <- g.acquire(ctx, gateKey{client: "b"}) }()
	waitQueued(t, g, "b", 1)
	cancel()
	if <-done {
		t.Fatal("acquired after its context ended")
	}
	g.release()
	if g.free != 1 || len(g.turns) != 0 {
		t.Fatalf("free %d, turns %v", g.free, g.turns)
	}
}

func waitQueued(t *testing.T, g *fairGate, client string, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		g.mu.Lock()
		got := len(g.queues[gateKey{client: client}])
		g.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %s queued, want %d", got, client, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

// The gate shares its slots among clients as the limits count them: the
// addresses of one IPv6 /64 queue as one client, another /64 apart.
func TestFairGateKeysAnIPv6ClientByItsNetwork(t *testing.T) {
	g := newFairGate(0)
	key := func(ip string) gateKey {
		r := httptest.NewRequest("GET", "/api/plans", nil)
		r.RemoteAddr = net.JoinHostPort(ip, "40000")
		return g.keyOf(r)
	}
	if a, b := key("2001:db8:1:2::1"), key("2001:db8:1:2:ffff::9"); a != b {
		t.Fatalf("one /64 queues as %v and %v", a, b)
	}
	if a, b := key("2001:db8:1:2::1"), key("2001:db8:1:3::1"); a == b {
		t.Fatalf("two /64s queue as one, %v", a)
	}
	if a, b := key("203.0.113.9"), key("::ffff:203.0.113.9"); a != b {
		t.Fatalf("an IPv4-mapped address queues as %v, its IPv4 client as %v", b, a)
	}
}

package dnscheck_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/dnscheck"
	"github.com/sendlater/sendlater/dnscheck/dnstest"
)

// zone is the tests' DNS: domains that receive mail in each way the RFCs
// allow, and some that do not.
func zone(t *testing.T) *dnstest.Server {
	dns := dnstest.MustStart(t)
	dns.Add(t,
		"mx.example. 300 IN MX 10 mail.mx.example.",
		"nullmx.example. 300 IN MX 0 .",
		"a-only.example. 300 IN A 192.0.2.1",
		"aaaa-only.example. 300 IN AAAA 2001:db8::1",
		"txt-only.example. 300 IN TXT \"v=spf1 -all\"",
		"xn--bcher-kva.example. 300 IN MX 10 mail.example.",
	)
	return dns
}

// clock is a settable Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func mustChecker(t *testing.T, c dnscheck.Config) *dnscheck.Checker {
	t.Helper()
	ch, err := dnscheck.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func TestReceivesMail(t *testing.T) {
	dns := zone(t)
	ch := mustChecker(t, dnscheck.Config{Server: dns.Addr})
	for domain, want := range map[string]bool{
		"mx.example": true, "MX.Example.": true, "a-only.example": true, "aaaa-only.example": true,
		"bücher.example": true,
		"nullmx.example": false, "txt-only.example": false, "nowhere.example": false,
	} {
		got, err := ch.ReceivesMail(context.Background(), domain)
		if err != nil || got != want {
			t.Errorf("ReceivesMail(%q) = %v, %v; want %v", domain, got, err, want)
		}
	}
}

// Both answers are remembered until their TTL, the least recently used
// leaves a full cache first, and a failing answer is not remembered.
func TestCache(t *testing.T) {
	dns := zone(t)
	clk := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	ch := mustChecker(t, dnscheck.Config{Server: dns.Addr, TTL: time.Hour, NegativeTTL: time.Minute, MaxEntries: 2, Now: clk.Now})
	ctx := context.Background()
	lookups := func(domain string) int64 {
		t.Helper()
		before := dns.Queries()
		if _, err := ch.ReceivesMail(ctx, domain); err != nil {
			t.Fatal(err)
		}
		return dns.Queries() - before
	}
	if n := lookups("mx.example"); n != 1 {
		t.Fatalf("first lookup: %d queries", n)
	}
	if n := lookups("nowhere.example"); n != 1 {
		t.Fatalf("first negative lookup: %d queries", n)
	}
	if lookups("mx.example")+lookups("nowhere.example") != 0 {
		t.Fatal("a cached answer was asked again")
	}
	clk.Add(2 * time.Minute) // past the negative TTL only
	if lookups("nowhere.example") != 1 || lookups("mx.example") != 0 {
		t.Fatal("the TTLs were not kept")
	}
	lookups("nullmx.example") // a third domain: nowhere.example, least recently used, leaves
	if lookups("mx.example") != 0 || lookups("nowhere.example") != 1 {
		t.Fatal("the cache did not drop its least recently used entry")
	}

	dns.Fail("servfail.example")
	for range 2 {
		before := dns.Queries()
		if _, err := ch.ReceivesMail(ctx, "servfail.example"); err == nil || dns.Queries() == before {
			t.Fatal("a SERVFAIL was remembered or not an error")
		}
	}
	if _, err := ch.ReceivesMail(ctx, "a-only.example"); err != nil {
		t.Fatalf("a SERVFAIL paused the resolver: %v", err)
	}
}

// A resolver that does not answer costs one query timeout, then lookups
// answer at once until the pause ends.
func TestResolverDown(t *testing.T) {
	dns := zone(t)
	clk := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	ch := mustChecker(t, dnscheck.Config{Server: dns.Addr, QueryTimeout: 200 * time.Millisecond, Pause: time.Minute, Now: clk.Now})
	ctx := context.Background()
	dns.Silence(true)
	start := time.Now()
	if _, err := ch.ReceivesMail(ctx, "mx.example"); err == nil {
		t.Fatal("a silent resolver answered")
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("the lookup took %v with a 200ms timeout", took)
	}
	before := dns.Queries()
	start = time.Now()
	if _, err := ch.ReceivesMail(ctx, "a-only.example"); !errors.Is(err, dnscheck.ErrResolverDown) {
		t.Fatalf("during the pause: %v", err)
	}
	if time.Since(start) > 50*time.Millisecond || dns.Queries() != before {
		t.Fatal("a lookup during the pause asked the resolver")
	}
	dns.Silence(false)
	clk.Add(time.Minute)
	if ok, err := ch.ReceivesMail(ctx, "a-only.example"); err != nil || !ok {
		t.Fatalf("after the pause: %v, %v", ok, err)
	}
}

func TestNewRefusesABadServer(t *testing.T) {
	for _, s := range []string{"dns://1.1.1.1", "a b", ":53", "host:"} {
		if _, err := dnscheck.New(dnscheck.Config{Server: s}); err == nil {
			t.Errorf("server %q was accepted", s)
		}
	}
	for _, s := range []string{"", "1.1.1.1", "1.1.1.1:5353", "[::1]:53", "::1", "resolver.internal"} {
		if _, err := dnscheck.New(dnscheck.Config{Server: s}); err != nil {
			t.Errorf("server %q: %v", s, err)
		}
	}
}

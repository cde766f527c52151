package core_test

import (
	"fmt"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// A limit counts an IPv4 client by its address and an IPv6 client by its
// network: the /64 a subscriber is given, unless configured otherwise.
func TestClientNetwork(t *testing.T) {
	tests := []struct {
		address string
		prefix  int
		want    string
	}{
		{"203.0.113.9", 64, "203.0.113.9"},
		{"203.0.113.9", 128, "203.0.113.9"},
		{"::ffff:203.0.113.9", 64, "203.0.113.9"}, // IPv4-mapped: the IPv4 client
		{"::ffff:cb00:7109", 64, "203.0.113.9"},
		{"2001:db8:1:2:aaaa:bbbb:cccc:dddd", 64, "2001:db8:1:2::/64"},
		{"2001:DB8:1:2::1", 64, "2001:db8:1:2::/64"},
		{"2001:db8:1:2:aaaa:bbbb:cccc:dddd", 48, "2001:db8:1::/48"},
		{"2001:db8:1:2:aaaa:bbbb:cccc:dddd", 56, "2001:db8:1::/56"},
		{"2001:db8:1:2:aaaa:bbbb:cccc:dddd", 128, "2001:db8:1:2:aaaa:bbbb:cccc:dddd/128"},
		{"2001:db8:1:2:aaaa:bbbb:cccc:dddd", 0, "2001:db8:1:2::/64"},   // unset: the default
		{"2001:db8:1:2:aaaa:bbbb:cccc:dddd", 200, "2001:db8:1:2::/64"}, // out of range: the default
		{"2001:db8:1:2:aaaa:bbbb:cccc:dddd", 16, "2001:db8:1:2::/64"},
		{"fe80::1%eth0", 64, "fe80::/64"}, // no zone
		{"::1", 64, "::/64"},
		{"", 64, ""},
		{"not an address", 64, "not an address"},
		{"203.0.113.9:40000", 64, "203.0.113.9:40000"},
	}
	for _, tt := range tests {
		if got := core.ClientNetwork(tt.address, tt.prefix); got != tt.want {
			t.Errorf("ClientNetwork(%q, %d) = %q, want %q", tt.address, tt.prefix, got, tt.want)
		}
	}
}

// Limiter.Client keys with the configured prefix: addresses of one /64 are
// one client, of two /64s two, and with a /56 the two are one.
func TestLimiterCountsClientsByNetwork(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		limiterCountsClientsByNetwork(t, e)
	})
}

func limiterCountsClientsByNetwork(t *testing.T, e *testenv.Env) {
	for _, tt := range []struct {
		prefix int
		a, b   string
		same   bool
	}{
		{0, "2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff", true},
		{0, "2001:db8:1:2::1", "2001:db8:1:3::1", false},
		{56, "2001:db8:1:2::1", "2001:db8:1:3::1", true},
		{128, "2001:db8:1:2::1", "2001:db8:1:2::2", false},
		{64, "198.51.100.7", "::ffff:198.51.100.7", true},
		{64, "198.51.100.7", "198.51.100.8", false},
	} {
		l := *e.Limits
		l.IPv6Prefix = tt.prefix
		for range 2 {
			if _, err := l.Record(e.Ctx, core.LimitContactClient, l.Client(tt.a)); err != nil {
				t.Fatal(err)
			}
		}
		n, err := l.Count(e.Ctx, core.LimitContactClient, l.Client(tt.b))
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 2, false: 0}[tt.same]; n != want {
			t.Errorf("/%d: %s then %s counted %d, want %d", tt.prefix, tt.a, tt.b, n, want)
		}
		l.Clear(e.Ctx, core.LimitContactClient, l.Client(tt.a))
	}
}

// Wrong postpone codes from the addresses of one /64 count as one client's:
// the next address of it waits, even with the right code, while another
// /64 gets in.
func TestPostponeGuessesOfOneIPv6NetworkCountAsOne(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.mustUser(t, "ada@example.com", "")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	for i := range core.LimitPostponeMessageClient.Max {
		_, err := e.Postpone.Show(e.Ctx, m.ID, "guess", fmt.Sprintf("2001:db8:1:2::%x", i+1))
		wantCode(t, err, core.EInvalidPostponeCode)
	}
	_, err := e.Postpone.Postpone(e.Ctx, m.ID, m.PostponeCode, "2001:db8:1:2:ffff::1")
	wantCode(t, err, core.ETooManyRequests)
	if _, err := e.Postpone.Postpone(e.Ctx, m.ID, m.PostponeCode, "2001:db8:1:3::1"); err != nil {
		t.Fatalf("from another /64: %v", err)
	}
}

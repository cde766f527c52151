package web

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientAddress(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8")}
	tests := []struct {
		name, peer, forwarded string
		trusted               []netip.Prefix
		want                  string
	}{
		{"no proxies: the peer, whatever the header says", "127.0.0.1:5000", "203.0.113.9", nil, "127.0.0.1"},
		{"an untrusted peer cannot claim another address", "198.51.100.7:5000", "203.0.113.9", proxies, "198.51.100.7"},
		{"through a trusted proxy", "127.0.0.1:5000", "203.0.113.9", proxies, "203.0.113.9"},
		{"through two trusted proxies", "127.0.0.1:5000", "203.0.113.9, 10.1.2.3", proxies, "203.0.113.9"},
		{"a spoofed first hop is not believed", "127.0.0.1:5000", "192.0.2.1, 203.0.113.9", proxies, "203.0.113.9"},
		{"a malformed hop stops at the last trusted proxy", "127.0.0.1:5000", "garbage", proxies, "127.0.0.1"},
		{"no header", "127.0.0.1:5000", "", proxies, "127.0.0.1"},
		{"IPv6 peer", "[2001:db8::1]:443", "", proxies, "2001:db8::1"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tt.peer
		if tt.forwarded != "" {
			r.Header.Set("X-Forwarded-For", tt.forwarded)
		}
		if got := clientAddress(r, tt.trusted); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

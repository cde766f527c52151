package tracing_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/webhook"
)

const (
	proxyTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	proxySpan   = "00f067aa0ba902b7"
	traceparent = "00-" + proxyTrace + "-" + proxySpan + "-01"
)

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

// TestTraceparentFromTrustedProxy: a request whose direct peer is a
// trusted proxy continues the proxy's trace: its span is a child of the
// proxy's, sampled as the proxy said even when the ratio keeps none.
func TestTraceparentFromTrustedProxy(t *testing.T) {
	for _, ratio := range []float64{1, 0} {
		s := newTraced(t, options{backend: testenv.Bolt, ratio: ratio, proxies: loopback})
		if status, _ := s.request("GET", "/api/messages", nil, "traceparent", traceparent); status != http.StatusOK {
			t.Fatalf("list: %d", status)
		}
		req := s.tree().one(t, "GET /api/messages")
		if got := req.SpanContext.TraceID().String(); got != proxyTrace {
			t.Errorf("ratio %v: trace %s, want the proxy's %s", ratio, got, proxyTrace)
		}
		if got := req.Parent.SpanID().String(); got != proxySpan || !req.Parent.IsRemote() {
			t.Errorf("ratio %v: parent %s (remote %v), want the proxy's span %s", ratio, got, req.Parent.IsRemote(), proxySpan)
		}
	}
}

// TestTraceparentFromUntrustedClient: the same header from a client that
// is not a trusted proxy (none configured, or another network) starts a
// trace of our own, and cannot force a trace the ratio would not keep.
func TestTraceparentFromUntrustedClient(t *testing.T) {
	for _, proxies := range [][]netip.Prefix{nil, {netip.MustParsePrefix("10.0.0.0/8")}} {
		s := newTraced(t, options{backend: testenv.Bolt, ratio: 1, proxies: proxies})
		if status, _ := s.request("GET", "/api/messages", nil, "traceparent", traceparent); status != http.StatusOK {
			t.Fatalf("list: %d", status)
		}
		req := s.tree().one(t, "GET /api/messages")
		if req.SpanContext.TraceID().String() == proxyTrace || req.Parent.IsValid() {
			t.Errorf("proxies %v: the client's trace was continued (trace %s, parent %s)", proxies,
				req.SpanContext.TraceID(), req.Parent.SpanID())
		}

		none := newTraced(t, options{backend: testenv.Bolt, ratio: 0, proxies: proxies})
		if status, _ := none.request("GET", "/api/messages", nil, "traceparent", traceparent); status != http.StatusOK {
			t.Fatalf("list: %d", status)
		}
		if spans := none.spans.GetSpans(); len(spans) != 0 {
			t.Errorf("proxies %v: a client's sampled flag made %d spans at ratio 0", proxies, len(spans))
		}
	}
}

// hookPeer is a webhook receiver that keeps each call's traceparent.
type hookPeer struct {
	mu      sync.Mutex
	parents []string
}

func (h *hookPeer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.parents = append(h.parents, r.Header.Get("traceparent"))
	h.mu.Unlock()
}

// TestWebhookCarriesTraceparent: the business webhook a delivery calls
// carries the W3C traceparent of its span, in the pass's trace, so the
// receiver can continue it.
func TestWebhookCarriesTraceparent(t *testing.T) {
	peer := &hookPeer{}
	hooks := httptest.NewServer(peer)
	defer hooks.Close()
	s := newTraced(t, options{backend: testenv.Bolt, ratio: 1, webhooks: webhook.NewClient(true, 5*time.Second)})
	if status, _ := s.request("POST", "/api/messages", map[string]any{"title": "Hello", "name": "Bob",
		"recipient": "bob@example.com", "message": "Hi", "webhookUrl": hooks.URL + "/sent"}); status != http.StatusCreated {
		t.Fatalf("create: %d", status)
	}
	s.e.Clock.Add(40 * 24 * time.Hour)
	s.spans.Reset()
	res, err := s.e.Delivery.Run(context.Background())
	if err != nil || res.Delivered != 1 || res.Webhooks != 1 {
		t.Fatalf("pass: %+v, %v", res, err)
	}
	tr := s.tree()
	pass := tr.one(t, core.SpanDeliveryPass)
	post := tr.one(t, core.SpanWebhookPost)
	if post.SpanContext.TraceID() != pass.SpanContext.TraceID() {
		t.Errorf("the webhook's span is not in the pass's trace")
	}
	attrs(t, post, core.AttrOutcome, core.OutcomeSent, "url.scheme", "http")
	peer.mu.Lock()
	defer peer.mu.Unlock()
	want := "00-" + post.SpanContext.TraceID().String() + "-" + post.SpanContext.SpanID().String() + "-01"
	if len(peer.parents) != 1 || peer.parents[0] != want {
		t.Errorf("the receiver got traceparent %q, want %q", peer.parents, want)
	}
}

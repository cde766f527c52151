package web

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// tally is a core.Metrics that keeps what withRequest told it.
type tally struct {
	core.NoMetrics
	mu       sync.Mutex
	inFlight int
	requests []string // route method status
}

func (m *tally) InFlight(d int) { m.mu.Lock(); m.inFlight += d; m.mu.Unlock() }

func (m *tally) Request(route, method string, status int, _ time.Duration) {
	m.mu.Lock()
	m.requests = append(m.requests, route+" "+method+" "+http.StatusText(status))
	m.mu.Unlock()
}

// TestRequestMetrics: a request is counted under its route pattern, never
// its path, and a method of no standard as "other"; one whose handler
// panics is counted as the 500 it got; the in-flight count goes back to 0
// even when the handler aborts (http.ErrAbortHandler goes on up).
func TestRequestMetrics(t *testing.T) {
	m := &tally{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/messages/{id}", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/boom", func(w http.ResponseWriter, r *http.Request) { panic("boom") })
	mux.HandleFunc("/abort", func(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) })
	h := withRequest(slog.New(slog.DiscardHandler), m, nil, false, false, routed(mux))
	serve := func(method, path string) {
		defer func() { recover() }()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(method, path, nil))
	}
	serve("GET", "/api/messages/m-ada-123")
	serve("BREW", "/boom")
	serve("GET", "/abort")
	want := []string{"/api/messages/{id} GET OK", "/boom other Internal Server Error"}
	if len(m.requests) != len(want) || m.requests[0] != want[0] || m.requests[1] != want[1] {
		t.Errorf("requests counted: %q, want %q", m.requests, want)
	}
	if m.inFlight != 0 {
		t.Errorf("in flight after the requests: %d", m.inFlight)
	}
}

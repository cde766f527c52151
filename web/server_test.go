package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/web"
)

func startBare(t *testing.T, s *web.Server) string {
	t.Helper()
	if err := s.Open("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s.URL()
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestSPAAndAPIRouting(t *testing.T) {
	ui := fstest.MapFS{
		"index.html":         {Data: []byte("<!doctype html><div id=root></div>")},
		"assets/app-abc1.js": {Data: []byte("console.log(1)")},
		"favicon.svg":        {Data: []byte("<svg/>")},
	}
	url := startBare(t, &web.Server{UI: ui})

	resp, body := get(t, url+"/pricing")
	if resp.StatusCode != 200 || !strings.Contains(body, "id=root") || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("SPA route: %d %q %q", resp.StatusCode, body, resp.Header.Get("Cache-Control"))
	}
	resp, body = get(t, url+"/assets/app-abc1.js")
	if body != "console.log(1)" || !strings.Contains(resp.Header.Get("Cache-Control"), "max-age=31536000") {
		t.Fatalf("hashed asset: %q %q", body, resp.Header.Get("Cache-Control"))
	}
	resp, body = get(t, url+"/api/nothing/here")
	var env struct{ Status, Code, Message string }
	json.Unmarshal([]byte(body), &env)
	if resp.StatusCode != 404 || env.Status != "error" || env.Code != "request/not-found" ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("unknown API path: %d %s", resp.StatusCode, body)
	}
	for _, h := range []string{"X-Request-Id", "Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy"} {
		if resp.Header.Get(h) == "" {
			t.Errorf("missing header %s", h)
		}
	}
	if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Error("CSP must forbid framing")
	}
}

func TestUnbuiltUIIsExplained(t *testing.T) {
	url := startBare(t, &web.Server{})
	resp, body := get(t, url+"/")
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "make build") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

func TestHealth(t *testing.T) {
	var healthy atomic.Bool
	healthy.Store(true)
	url := startBare(t, &web.Server{Health: func(context.Context) error {
		if healthy.Load() {
			return nil
		}
		return io.ErrUnexpectedEOF
	}})
	if resp, body := get(t, url+"/healthz"); resp.StatusCode != 200 || !strings.Contains(body, `"ok"`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	healthy.Store(false)
	resp, body := get(t, url+"/healthz")
	if resp.StatusCode != 503 || strings.Contains(body, "EOF") {
		t.Fatalf("a failing store is a 503 without detail: %d %s", resp.StatusCode, body)
	}
}

// deliveryHealth is a fixed answer of the delivery's health.
type deliveryHealth struct {
	h   core.DeliveryHealth
	err error
}

func (d *deliveryHealth) DeliveryHealth(context.Context) (core.DeliveryHealth, error) {
	return d.h, d.err
}

func TestHealthReportsTheDelivery(t *testing.T) {
	last := time.UnixMilli(1767225600000)
	delivery := &deliveryHealth{h: core.DeliveryHealth{State: core.HealthOK, LastPass: last}}
	url := startBare(t, &web.Server{Health: func(context.Context) error { return nil }, Scheduler: delivery})
	var rep struct {
		Status, Store, Scheduler string
		LastPass                 int64
	}
	check := func(code int, status, scheduler string) {
		t.Helper()
		resp, body := get(t, url+"/healthz")
		if err := json.Unmarshal([]byte(body), &rep); err != nil || resp.StatusCode != code || rep.Status != status || rep.Scheduler != scheduler {
			t.Fatalf("healthz: %d %s, want %d status %s scheduler %s", resp.StatusCode, body, code, status, scheduler)
		}
	}
	check(200, "ok", "ok")
	if rep.LastPass != last.UnixMilli() {
		t.Fatalf("lastPass %d", rep.LastPass)
	}
	delivery.h.State = core.HealthStalled
	check(200, "degraded", "stalled")
	delivery.h.State = core.HealthOff
	check(200, "ok", "off")
	delivery.err = io.ErrUnexpectedEOF // the records could not be read
	check(503, "unavailable", "off")
}

// TestCloseLetsInFlightRequestsFinish: graceful shutdown waits for requests
// already being served.
func TestCloseLetsInFlightRequestsFinish(t *testing.T) {
	started := make(chan struct{})
	s := &web.Server{Health: func(context.Context) error {
		close(started)
		time.Sleep(300 * time.Millisecond)
		return nil
	}}
	if err := s.Open("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	result := make(chan int, 1)
	go func() {
		resp, err := http.Get(s.URL() + "/healthz")
		if err != nil {
			result <- 0
			return
		}
		resp.Body.Close()
		result <- resp.StatusCode
	}()
	<-started
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if code := <-result; code != 200 {
		t.Fatalf("the in-flight request got %d", code)
	}
	if _, err := http.Get(s.URL() + "/healthz"); err == nil {
		t.Fatal("the server still accepts requests after Close")
	}
}

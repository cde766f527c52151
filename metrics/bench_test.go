package metrics_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/metrics"
	"github.com/sendlater/sendlater/web"
)

// benchServer is the public server's handler over a store holding one
// author with 20 messages, counting into a Metrics when on; and the
// author's ID token.
func benchServer(b *testing.B, on bool) (http.Handler, string) {
	b.Helper()
	var m core.Metrics
	if on {
		m = metrics.New("bench")
	}
	e := testenv.New(b, testenv.Config{Metrics: m})
	tok, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "bench@example.com", Password: password}, core.Client{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := e.Store.UpdateUser(e.Ctx, tok.User.ID, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = core.PriceMap{}.PriceFor(core.PlanPro), "active"
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	for range 20 {
		if _, err := e.Messages.Create(e.As(tok.User.ID), core.MessageInput{Title: "For my sister", Name: "Ann",
			Recipient: "ann@example.com", Body: strings.Repeat("A letter for the future. ", 20), Interval: core.Interval12M}); err != nil {
			b.Fatal(err)
		}
	}
	srv := &web.Server{BaseURL: testenv.DefaultBaseURL, AppName: "Sendlater", Clock: e.Clock, Identities: e.Auth,
		Messages: e.Messages, Contact: e.Contact, Postpone: e.Postpone, Refusals: e.Refuse,
		WebhookSecrets: e.WebhookSecrets, Social: e.Social, Logger: discard(), Generations: e.DB}
	if on {
		srv.Metrics = m
	}
	return srv.Handler(), tok.IDToken
}

// BenchmarkList is one authenticated GET /api/messages (20 messages)
// without the network, with metrics off and on: what counting costs a
// request.
func BenchmarkList(b *testing.B) {
	for _, mode := range []string{"off", "on"} {
		b.Run(mode, func(b *testing.B) {
			h, token := benchServer(b, mode == "on")
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				req := httptest.NewRequest("GET", "/api/messages", nil)
				req.Header.Set("Authorization", "Bearer "+token)
				for pb.Next() {
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						b.Fatalf("%d %s", rec.Code, rec.Body)
					}
				}
			})
		})
	}
}

// BenchmarkCreate is one authenticated POST /api/messages without the
// network, with metrics off and on.
func BenchmarkCreate(b *testing.B) {
	body := []byte(`{"title":"Load test","name":"Ann","recipient":"ann@example.com","message":"` +
		strings.Repeat("A letter for the future. ", 20) + `","interval":"6M"}`)
	for _, mode := range []string{"off", "on"} {
		b.Run(mode, func(b *testing.B) {
			h, token := benchServer(b, mode == "on")
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				req := httptest.NewRequest("POST", "/api/messages", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusCreated {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
		})
	}
}

// BenchmarkCount is what one request costs the metrics: its count and
// latency, and the in-flight gauge up and down.
func BenchmarkCount(b *testing.B) {
	m := metrics.New("bench")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.InFlight(1)
			m.Request("/api/messages", "GET", 200, 50*time.Microsecond)
			m.InFlight(-1)
		}
	})
}

// BenchmarkGather is one scrape's gathering: the families of a process
// that answered a few routes, the Go runtime's and the process's. A
// scrape every second costs this once a second, whatever the traffic:
// spread over a slow route's requests it is more of each.
func BenchmarkGather(b *testing.B) {
	m := metrics.New("bench")
	for _, route := range []string{"/api/messages", "/api/messages/{id}", "/api/me", "/api/auth/signin"} {
		for _, status := range []int{200, 201, 404, 500} {
			m.Request(route, "GET", status, 50*time.Microsecond)
		}
	}
	m.StoreOp("read", time.Millisecond)
	m.StoreOp("write", time.Millisecond)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Registry().Gather(); err != nil {
			b.Fatal(err)
		}
	}
}

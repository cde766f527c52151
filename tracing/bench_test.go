package tracing_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/metrics"
	"github.com/sendlater/sendlater/tracing"
	"github.com/sendlater/sendlater/web"
)

// discardExporter takes the batches and drops them, as a collector would
// take them off the process's hands.
type discardExporter struct{}

func (discardExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardExporter) Shutdown(context.Context) error                             { return nil }

// benchServer is the public server's handler over a store holding one
// author with 20 messages, traced at ratio (batched to a discarding
// exporter) unless ratio is negative; and the author's ID token.
func benchServer(b *testing.B, ratio float64) (http.Handler, string) {
	return benchServerWith(b, ratio, nil)
}

// benchServerWith is benchServer counting into m too (nil: no metrics).
func benchServerWith(b *testing.B, ratio float64, m core.Metrics) (http.Handler, string) {
	return benchServerOTLP(b, ratio, m, false)
}

// benchServerOTLP is benchServerWith exporting over OTLP/HTTP (tracing.New)
// to a local collector that drops what it gets, when otlp is set.
func benchServerOTLP(b testing.TB, ratio float64, m core.Metrics, otlp bool) (http.Handler, string) {
	b.Helper()
	var tr core.Tracer
	if ratio >= 0 && otlp {
		sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/x-protobuf")
		}))
		b.Cleanup(sink.Close)
		t, err := tracing.New(context.Background(), tracing.Config{Endpoint: sink.URL, SampleRatio: ratio, Service: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { t.Shutdown(context.Background()) })
		tr = t
	} else if ratio >= 0 {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discardExporter{}), sdktrace.WithSampler(tracing.Sampler(ratio)))
		b.Cleanup(func() { tp.Shutdown(context.Background()) })
		tr = tracing.FromProvider(tp)
	}
	e := testenv.New(b, testenv.Config{Tracer: tr, Metrics: m})
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
		WebhookSecrets: e.WebhookSecrets, Social: e.Social, Logger: slog.New(slog.DiscardHandler), Generations: e.DB,
		Tracer: tr, Metrics: m}
	return srv.Handler(), tok.IDToken
}

// reportCPU reports the process's CPU time per op (cpu-ns/op) from now to
// the returned function's call: what a shared machine's other processes
// do not inflate, unlike ns/op.
func reportCPU(b *testing.B) func() {
	start := cpuNow()
	return func() {
		b.ReportMetric(float64((cpuNow()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkList is one authenticated GET /api/messages (20 messages)
// without the network: tracing off, on but sampling nothing, one in ten,
// and every request; observed: metrics on and tracing at one in ten;
// otlp0, otlp0.1, otlp1: tracing.New's tracer (serve's) to a local
// OTLP/HTTP collector at none, one in ten and every request; metrics:
// metrics alone.
func BenchmarkList(b *testing.B) {
	for _, mode := range []struct {
		name    string
		ratio   float64
		metrics bool
		otlp    bool // through tracing.New, as serve does
	}{{"off", -1, false, false}, {"ratio0", 0, false, false}, {"ratio0.1", 0.1, false, false}, {"ratio1", 1, false, false},
		{"observed", 0.1, true, false}, {"otlp0", 0, false, true}, {"otlp0.1", 0.1, false, true}, {"otlp1", 1, false, true},
		{"metrics", -1, true, false}} {
		b.Run(mode.name, func(b *testing.B) {
			var m core.Metrics
			if mode.metrics {
				m = metrics.New("bench")
			}
			h, token := benchServerOTLP(b, mode.ratio, m, mode.otlp)
			b.ReportAllocs()
			b.ResetTimer()
			defer reportCPU(b)()
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
// network, tracing off, at one in ten, and every request.
func BenchmarkCreate(b *testing.B) {
	body := []byte(`{"title":"Load test","name":"Ann","recipient":"ann@example.com","message":"` +
		strings.Repeat("A letter for the future. ", 20) + `","interval":"6M"}`)
	for _, mode := range []struct {
		name  string
		ratio float64
	}{{"off", -1}, {"ratio0.1", 0.1}, {"ratio1", 1}} {
		b.Run(mode.name, func(b *testing.B) {
			h, token := benchServer(b, mode.ratio)
			b.ReportAllocs()
			b.ResetTimer()
			defer reportCPU(b)()
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

// BenchmarkCreateObserved is POST /api/messages from 64 goroutines (the
// loadgen's connections; bbolt batches their writes) with metrics and
// tracing at 0.1 both off, then both on (otlp: exported over OTLP/HTTP to
// a local collector, not dropped in the process): in-process, so that the
// machine's other load changes cpu-ns/op of both alike.
func BenchmarkCreateObserved(b *testing.B) {
	body := []byte(`{"title":"Load test","name":"Ann","recipient":"ann@example.com","message":"` +
		strings.Repeat("A letter for the future. ", 20) + `","interval":"6M"}`)
	for _, mode := range []string{"off", "on", "otlp"} {
		ratio := -1.0
		var m core.Metrics
		if mode != "off" {
			ratio, m = 0.1, metrics.New("bench")
		}
		b.Run(mode, func(b *testing.B) {
			h, token := benchServerOTLP(b, ratio, m, mode == "otlp")
			b.ReportAllocs()
			b.SetParallelism(32)
			b.ResetTimer()
			defer reportCPU(b)()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
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
		})
	}
}

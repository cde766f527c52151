package tracing

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// batches records the batches it is given.
type batches struct {
	mu       sync.Mutex
	sizes    []int
	names    []string
	block    chan struct{} // when set, an export waits for it
	shutdown bool
}

func (e *batches) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	if e.block != nil {
		<-e.block
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sizes = append(e.sizes, len(spans))
	for _, s := range spans {
		e.names = append(e.names, s.Name())
	}
	return nil
}

func (e *batches) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.shutdown = true
	return nil
}

func (e *batches) got() ([]int, []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]int(nil), e.sizes...), append([]string(nil), e.names...)
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); !ok(); {
		if time.Now().After(end) {
			t.Fatalf("waited 5 s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func endSpans(tp *sdktrace.TracerProvider, names ...string) {
	for _, n := range names {
		_, s := tp.Tracer("test").Start(context.Background(), n)
		s.End()
	}
}

// TestBatcherBatches: full batches go out at once, in the order the spans
// ended; the rest on ForceFlush, and what is left on Shutdown, after which
// the exporter is shut down and later spans are dropped.
func TestBatcherBatches(t *testing.T) {
	exp := &batches{}
	b := newBatcher(exp, 3, 100, time.Hour)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(b))
	endSpans(tp, "a", "b", "c", "d", "e", "f", "g")
	waitFor(t, "two full batches", func() bool { _, n := exp.got(); return len(n) >= 6 })
	if s, _ := exp.got(); s[0] != 3 || s[1] != 3 {
		t.Fatalf("batches %v, want full ones of 3", s)
	}
	if err := tp.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s, n := exp.got(); len(s) != 3 || s[2] != 1 || strings.Join(n, "") != "abcdefg" {
		t.Fatalf("after the flush: batches %v of %v", s, n)
	}
	endSpans(tp, "h")
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	endSpans(tp, "after")
	s, n := exp.got()
	if len(n) != 8 || n[7] != "h" || !exp.shutdown {
		t.Fatalf("after shutdown: batches %v of %v, exporter shut down: %v", s, n, exp.shutdown)
	}
}

// TestBatcherInterval: spans that fill no batch go out after the interval
// without a flush.
func TestBatcherInterval(t *testing.T) {
	exp := &batches{}
	b := newBatcher(exp, 100, 1000, 50*time.Millisecond)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(b))
	defer tp.Shutdown(context.Background())
	endSpans(tp, "a", "b")
	waitFor(t, "the interval's export", func() bool { _, n := exp.got(); return len(n) == 2 })
}

// TestBatcherDropsOverQueue: while the collector does not answer, spans
// beyond the queue's bound are dropped, not held: memory stays bounded.
func TestBatcherDropsOverQueue(t *testing.T) {
	exp := &batches{block: make(chan struct{})}
	b := newBatcher(exp, 2, 4, time.Hour)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(b))
	endSpans(tp, "a", "b") // a full batch: its export blocks
	waitFor(t, "the export to start", func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.queue) == 0 })
	endSpans(tp, "c", "d", "e", "f", "g", "h")
	if d := b.dropped.Load(); d != 2 {
		t.Fatalf("dropped %d, want 2", d)
	}
	close(exp.block)
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, n := exp.got(); len(n) != 6 || n[5] != "f" {
		t.Fatalf("exported %v", n)
	}
}

// TestNewExportsOverOTLP: New's tracer sends its spans to the collector
// over OTLP/HTTP, batched: nothing before the batch interval, every span
// on Shutdown.
func TestNewExportsOverOTLP(t *testing.T) {
	var posts, bytes atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "POST" && r.URL.Path == "/v1/traces" {
			n, _ := io.Copy(io.Discard, r.Body)
			posts.Add(1)
			bytes.Add(n)
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	tr, err := New(context.Background(), Config{Endpoint: srv.URL, SampleRatio: 1, Service: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_, s := tr.Start(context.Background(), "GET /api/messages", 0)
		s.End(nil)
	}
	time.Sleep(100 * time.Millisecond)
	if posts.Load() != 0 {
		t.Fatalf("%d exports before the batch was due", posts.Load())
	}
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if posts.Load() != 1 || bytes.Load() < int64(3*len("GET /api/messages")) {
		t.Fatalf("%d exports of %d bytes", posts.Load(), bytes.Load())
	}
}

package tracing_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sendlater/sendlater/tracing"
)

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
	tr, err := tracing.New(context.Background(), tracing.Config{Endpoint: srv.URL, SampleRatio: 1, Service: "test"})
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

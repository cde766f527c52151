package main_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// otlpSink is an OTLP collector that keeps the names of the spans it gets.
type otlpSink struct {
	coltracepb.UnimplementedTraceServiceServer
	mu    sync.Mutex
	names []string
}

func (s *otlpSink) keep(req *coltracepb.ExportTraceServiceRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				s.names = append(s.names, sp.Name)
			}
		}
	}
}

// Export is OTLP over gRPC.
func (s *otlpSink) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	s.keep(req)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// ServeHTTP is OTLP over HTTP (protobuf).
func (s *otlpSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || proto.Unmarshal(b, &req) != nil {
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
	s.keep(&req)
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Write(out)
}

// waitFor waits until the sink got a span named name.
func (s *otlpSink) waitFor(t *testing.T, name string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		found := slices.Contains(s.names, name)
		s.mu.Unlock()
		if found {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t.Fatalf("no span %q reached the collector; it got %q", name, s.names)
}

// TestServeTracing: with tracing.otlp_endpoint, serve sends the spans of
// its requests to the collector, over OTLP/HTTP (http://) and OTLP/gRPC
// (grpc://), at sample_ratio 1.
func TestServeTracing(t *testing.T) {
	for _, protocol := range []string{"http", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			sink := &otlpSink{}
			var endpoint string
			if protocol == "http" {
				hs := httptest.NewServer(sink)
				defer hs.Close()
				endpoint = hs.URL
			} else {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				gs := grpc.NewServer()
				coltracepb.RegisterTraceServiceServer(gs, sink)
				go gs.Serve(ln)
				defer gs.Stop()
				endpoint = "grpc://" + ln.Addr().String()
			}
			s := startServer(t, t.TempDir(), "SENDLATER_TRACING_OTLP_ENDPOINT="+endpoint, "SENDLATER_TRACING_SAMPLE_RATIO=1",
				"OTEL_BSP_SCHEDULE_DELAY=100")
			if !strings.Contains(s.logs.String(), "msg=tracing otlp_endpoint="+endpoint) {
				t.Errorf("serve did not say where its spans go:\n%s", s.logs)
			}
			if code, _ := get(t, s.url+"/healthz", ""); code != 200 {
				t.Fatalf("healthz: %d", code)
			}
			sink.waitFor(t, "GET /healthz")
		})
	}
}

// TestTracingConfig: the tracing keys are checked, each error naming the
// key and the rule.
func TestTracingConfig(t *testing.T) {
	for _, c := range []struct{ env, want string }{
		{"SENDLATER_TRACING_SAMPLE_RATIO=1.5", "tracing.sample_ratio must be a number from 0 to 1"},
		{"SENDLATER_TRACING_SAMPLE_RATIO=-0.1", "tracing.sample_ratio must be a number from 0 to 1"},
		{"SENDLATER_TRACING_OTLP_ENDPOINT=127.0.0.1:4318", "tracing.otlp_endpoint must be a URL like http://127.0.0.1:4318"},
		{"SENDLATER_TRACING_OTLP_ENDPOINT=ftp://collector:4318", "tracing.otlp_endpoint must start with http://, https:// (OTLP/HTTP), grpc:// or grpcs://"},
		{"SENDLATER_TRACING_OTLP_ENDPOINT=grpc://collector:4317/v1/traces", "tracing.otlp_endpoint must have no path when it is a grpc(s):// URL"},
		{"SENDLATER_TRACING_OTLP_ENDPOINT=https://user:pw@collector:4318", "tracing.otlp_endpoint must be a URL"},
	} {
		r := run(t, t.TempDir(), strings.Split(c.env, "\x00"), "config")
		if r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, %q; want %q", c.env, r.code, r.stderr, c.want)
		}
	}
	r := run(t, t.TempDir(), []string{"SENDLATER_TRACING_OTLP_ENDPOINT=grpcs://collector.example:4317", "SENDLATER_TRACING_SAMPLE_RATIO=0.25"}, "config")
	if r.code != 0 || !strings.Contains(r.stdout, "tracing.otlp_endpoint = grpcs://collector.example:4317") ||
		!strings.Contains(r.stdout, "tracing.sample_ratio = 0.25") {
		t.Errorf("config: %+v", r)
	}
}

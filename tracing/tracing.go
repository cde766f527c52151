// Package tracing implements core.Tracer with OpenTelemetry (issue 34):
// spans go to an OTLP collector over HTTP or gRPC, sampled by ratio. Core,
// the web server and the terminal app speak core.Tracer only; this is the
// one folder that imports OpenTelemetry (the architecture test says so).
package tracing

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/sendlater/sendlater/core"
)

// Config is where spans go and how many traces are kept.
type Config struct {
	// Endpoint is the OTLP collector: http://host:4318 or https://... for
	// OTLP over HTTP (the path /v1/traces when it names none), grpc://host:4317
	// (plain) or grpcs://host:4317 (TLS) for OTLP over gRPC.
	Endpoint string
	// SampleRatio is the share of new traces recorded, 0..1; a trusted
	// proxy's sampled trace is recorded whatever it is.
	SampleRatio float64
	// Service and Instance name the process in the spans' resource
	// (service.name, service.instance.id).
	Service  string
	Instance string
	Version  string
}

// Tracer is core.Tracer on an OpenTelemetry tracer provider.
type Tracer struct {
	tracer   trace.Tracer
	prop     propagation.TextMapPropagator
	shutdown func(context.Context) error
	// ratio is the sampler's share of new traces (New's); negative:
	// unknown (FromProvider's), every root asks the provider.
	ratio float64
}

var _ core.Tracer = (*Tracer)(nil)

// New exports to cfg.Endpoint in batches; Shutdown sends what is left.
func New(ctx context.Context, cfg Config) (*Tracer, error) {
	exp, err := exporter(ctx, cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	res := resource.NewSchemaless(
		semconv.ServiceName(cfg.Service),
		semconv.ServiceInstanceID(cfg.Instance),
		semconv.ServiceVersion(cfg.Version),
	)
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		// Start decides new traces by the ratio itself; the provider
		// records what Start lets through, and follows parents.
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())),
	)
	t := FromProvider(tp)
	t.shutdown, t.ratio = tp.Shutdown, cfg.SampleRatio
	return t, nil
}

// Sampler keeps ratio of new traces, and follows the parent's decision
// for the spans under a parent (a trusted proxy's among them).
func Sampler(ratio float64) sdktrace.Sampler {
	return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio))
}

// FromProvider is the Tracer of tp (a test's, with an in-memory exporter).
func FromProvider(tp trace.TracerProvider) *Tracer {
	return &Tracer{
		tracer:   tp.Tracer("github.com/sendlater/sendlater"),
		prop:     propagation.TraceContext{},
		shutdown: func(context.Context) error { return nil },
		ratio:    -1,
	}
}

// exporter is the OTLP exporter of endpoint's scheme.
func exporter(ctx context.Context, endpoint string) (sdktrace.SpanExporter, error) {
	u, err := ParseEndpoint(endpoint)
	if err != nil {
		return nil, err
	}
	switch u.Scheme {
	case "grpc", "grpcs":
		opts := []otlptracegrpc.Option{otlptracegrpc.WithEndpoint(u.Host)}
		if u.Scheme == "grpc" {
			opts = append(opts, otlptracegrpc.WithInsecure())
		}
		return otlptracegrpc.New(ctx, opts...)
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpoint(u.Host), otlptracehttp.WithURLPath(u.Path)}
	if u.Scheme == "http" {
		opts = append(opts, otlptracehttp.WithInsecure())
	}
	return otlptracehttp.New(ctx, opts...)
}

// ParseEndpoint reads tracing.otlp_endpoint: an http(s), grpc or grpcs URL
// with a host, without credentials, query or fragment. An http(s) URL
// without a path gets /v1/traces.
func ParseEndpoint(endpoint string) (*url.URL, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("must be a URL like http://127.0.0.1:4318 (OTLP/HTTP) or grpc://127.0.0.1:4317 (OTLP/gRPC), without credentials")
	}
	switch u.Scheme {
	case "http", "https":
		if u.Path == "" || u.Path == "/" {
			u.Path = "/v1/traces"
		}
	case "grpc", "grpcs":
		if strings.Trim(u.Path, "/") != "" {
			return nil, fmt.Errorf("must have no path when it is a grpc(s):// URL")
		}
	default:
		return nil, fmt.Errorf("must start with http://, https:// (OTLP/HTTP), grpc:// or grpcs:// (OTLP/gRPC)")
	}
	return u, nil
}

// Shutdown sends the spans still batched and stops the exporter.
func (t *Tracer) Shutdown(ctx context.Context) error { return t.shutdown(ctx) }

// kindOptions are the start options of each core.SpanKind, made once: an
// option made per span is an allocation per span.
var kindOptions = [...][]trace.SpanStartOption{
	core.SpanInternal: {trace.WithSpanKind(trace.SpanKindInternal)},
	core.SpanServer:   {trace.WithSpanKind(trace.SpanKindServer)},
	core.SpanClient:   {trace.WithSpanKind(trace.SpanKindClient)},
}

func startOptions(k core.SpanKind) []trace.SpanStartOption {
	if k < 0 || int(k) >= len(kindOptions) {
		k = core.SpanInternal
	}
	return kindOptions[k]
}

// Start starts a span under ctx's.
func (t *Tracer) Start(ctx context.Context, name string, kind core.SpanKind) (context.Context, core.Span) {
	if t.ratio >= 0 && t.ratio < 1 && rand.Float64() >= t.ratio && !trace.SpanContextFromContext(ctx).IsValid() {
		// A new trace the sampler would not keep (it keeps ratio of
		// them): decided here, without the provider's unrecorded span, on
		// the path of nine requests in ten. Nothing under it records, and
		// nothing is allocated (TestUnsampledAllocatesNothing).
		return ctx, noSpan{}
	}
	ctx, s := t.tracer.Start(ctx, name, startOptions(kind)...)
	if !s.IsRecording() {
		return ctx, noSpan{}
	}
	return ctx, &span{s: s}
}

// Traced reports whether ctx's span is recorded.
func (t *Tracer) Traced(ctx context.Context) bool {
	return trace.SpanFromContext(ctx).IsRecording()
}

// Continue reads the W3C trace context of a trusted proxy's request.
func (t *Tracer) Continue(ctx context.Context, get func(string) string) context.Context {
	return t.prop.Extract(ctx, getter(get))
}

// Inject writes ctx's trace context for a call out.
func (t *Tracer) Inject(ctx context.Context, set func(string, string)) {
	t.prop.Inject(ctx, setter(set))
}

type getter func(string) string

func (g getter) Get(key string) string { return g(key) }
func (g getter) Keys() []string        { return nil }
func (g getter) Set(string, string)    {}

type setter func(string, string)

func (s setter) Get(string) string     { return "" }
func (s setter) Keys() []string        { return nil }
func (s setter) Set(key, value string) { s(key, value) }

// span is a recorded span. Its attributes and new name are kept here and
// handed to the SDK once, at End: each SetAttributes is a lock, a check of
// the limits and a growth of the span's slice, and a request's span was
// set five times (docs/benchmarks-history.md).
type span struct {
	s     trace.Span
	name  string
	n     int
	attrs [maxAttrs]attribute.KeyValue
}

// maxAttrs is the most attributes a span of ours sets (delivery.pass's
// five, and error.type); more go to the SDK at once.
const maxAttrs = 6

func (s *span) SetName(name string)          { s.name = name }
func (s *span) SetString(key, value string)  { s.add(attribute.String(key, value)) }
func (s *span) SetInt(key string, value int) { s.add(attribute.Int(key, value)) }

func (s *span) add(kv attribute.KeyValue) {
	if s.n == len(s.attrs) {
		s.s.SetAttributes(s.attrs[:]...)
		s.n = 0
	}
	s.attrs[s.n] = kv
	s.n++
}

// End marks a failed span with its error's code, never the error's text
// (which may quote what a user typed).
func (s *span) End(err error) {
	if err != nil {
		code := core.ErrorCode(err)
		if code == "" {
			code = "internal"
		}
		s.add(attribute.String("error.type", code))
		s.s.SetStatus(codes.Error, code)
	}
	if s.name != "" {
		s.s.SetName(s.name)
	}
	if s.n > 0 {
		s.s.SetAttributes(s.attrs[:s.n]...)
	}
	s.s.End()
}

// noSpan is an unrecorded span: its context still carries the trace (the
// sampler's decision goes on to the spans under it), nothing is set.
type noSpan struct{}

func (noSpan) SetName(string)           {}
func (noSpan) SetString(string, string) {}
func (noSpan) SetInt(string, int)       {}
func (noSpan) End(error)                {}

package main

import (
	"context"
	"os"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/tracing"
)

// newTracer makes serve's tracer when tracing.otlp_endpoint is set; nil:
// tracing is off and nothing is traced. Spans leave in batches; the
// exporter connects lazily, so an unreachable collector does not stop the
// start (the SDK logs its failed exports).
func (a *app) newTracer(ctx context.Context) (*tracing.Tracer, error) {
	cfg := a.cfg.Tracing
	if cfg.OTLPEndpoint == "" {
		return nil, nil
	}
	host, err := os.Hostname()
	if err != nil {
		host = "unknown-host"
	}
	v, _, _ := buildVersion()
	t, err := tracing.New(ctx, tracing.Config{
		Endpoint: cfg.OTLPEndpoint, SampleRatio: cfg.SampleRatio,
		Service: "sendlater", Instance: host, Version: v,
	})
	if err != nil {
		return nil, err
	}
	a.log.Info("tracing", "otlp_endpoint", cfg.OTLPEndpoint, "sample_ratio", cfg.SampleRatio)
	return t, nil
}

// traceStore has st trace its transactions under traced calls (both
// stores do).
func traceStore(st store, t *tracing.Tracer) {
	if t == nil {
		return
	}
	if s, ok := st.(interface{ TraceTransactions(core.Tracer) }); ok {
		s.TraceTransactions(t)
	}
}

// coreTracer is t as core.Tracer: nil (not a typed nil) when off.
func coreTracer(t *tracing.Tracer) core.Tracer {
	if t == nil {
		return nil
	}
	return t
}

// closeTracer sends the spans still batched; nil is off already.
func closeTracer(ctx context.Context, t *tracing.Tracer) error {
	if t == nil {
		return nil
	}
	return t.Shutdown(ctx)
}

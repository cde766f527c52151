package main

import (
	"fmt"
	"math"

	"github.com/sendlater/sendlater/tracing"
)

// TracingConfig is where the process sends its spans (tracing/): off unless
// otlp_endpoint is set. The endpoint's scheme picks the protocol: http(s)://
// is OTLP over HTTP, grpc:// (plain) or grpcs:// (TLS) OTLP over gRPC.
// sample_ratio is the share of new traces recorded; a trusted proxy's
// sampled trace (trusted_proxies) is recorded whatever it is.
type TracingConfig struct {
	OTLPEndpoint string  `mapstructure:"otlp_endpoint"`
	SampleRatio  float64 `mapstructure:"sample_ratio"`
}

// DefaultSampleRatio is tracing.sample_ratio's default: one trace in ten,
// cheap enough to leave on (docs/benchmarks-history.md, "Tracing and metrics on against both off").
const DefaultSampleRatio = 0.1

// tracingDefaults are the tracing keys: off.
func tracingDefaults() map[string]any {
	return map[string]any{"tracing.otlp_endpoint": "", "tracing.sample_ratio": DefaultSampleRatio}
}

// validateTracing checks the tracing keys: a collector's URL of a scheme
// that names the protocol, and a ratio from 0 to 1.
func (c *Config) validateTracing(bad func(key, rule string, got any) error) error {
	t := &c.Tracing
	if r := t.SampleRatio; math.IsNaN(r) || r < 0 || r > 1 {
		return bad("tracing.sample_ratio", "must be a number from 0 to 1, the share of traces recorded, e.g. 0.1", fmt.Sprint(r))
	}
	if t.OTLPEndpoint == "" {
		return nil
	}
	if _, err := tracing.ParseEndpoint(t.OTLPEndpoint); err != nil {
		return bad("tracing.otlp_endpoint", err.Error(), t.OTLPEndpoint)
	}
	return nil
}

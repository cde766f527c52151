package tracing_test

import (
	"context"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/tracing"
)

// TestSampleRatio: a tracer made by New records its ratio of new traces
// (decided before the provider is asked), and every request a trusted
// proxy's sampled trace continues, whatever the ratio.
func TestSampleRatio(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		ratio    float64
		min, max int
	}{{0, 0, 0}, {0.1, 800, 1200}, {1, 10000, 10000}} {
		tr, err := tracing.New(ctx, tracing.Config{Endpoint: "http://127.0.0.1:9/", SampleRatio: c.ratio, Service: "test"})
		if err != nil {
			t.Fatal(err)
		}
		recorded := 0
		for range 10000 {
			if sctx, _ := tr.Start(ctx, "root", core.SpanServer); tr.Traced(sctx) {
				recorded++
			}
		}
		if recorded < c.min || recorded > c.max {
			t.Errorf("ratio %v: %d of 10000 new traces recorded, want %d to %d", c.ratio, recorded, c.min, c.max)
		}
		parent := tr.Continue(ctx, func(k string) string {
			if k == "traceparent" {
				return traceparent
			}
			return ""
		})
		if sctx, _ := tr.Start(parent, "child", core.SpanServer); !tr.Traced(sctx) {
			t.Errorf("ratio %v: a proxy's sampled trace was not continued", c.ratio)
		}
		if err := tr.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	}
}

package tracing_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestUnsampledAllocatesNothing: a list request that the sampler leaves
// unrecorded (serve's tracer, tracing.New, at ratio 0) allocates no more
// than the same request with tracing off: past the sampler's decision it
// costs nothing.
func TestUnsampledAllocatesNothing(t *testing.T) {
	allocs := func(ratio float64) float64 {
		h, token := benchServerOTLP(t, ratio, nil, true)
		req := httptest.NewRequest("GET", "/api/messages", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		return testing.AllocsPerRun(200, func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
		})
	}
	off, unsampled := allocs(-1), allocs(0)
	t.Logf("allocations of a list: %.1f off, %.1f unsampled", off, unsampled)
	if unsampled > off {
		t.Errorf("an unsampled list allocates %.1f times, one with tracing off %.1f", unsampled, off)
	}
}

package web

import (
	"net/http"
	"runtime"
)

// cpuGate admits quick, CPU-bound reads (listing messages, the profile) one
// per processor at a time, in arrival order. Go's scheduler runs the goroutine
// woken last first, so with many clients at once some requests would wait
// many times longer than others; the waiters of a channel are served first
// come, first served, which keeps the slowest replies close to the typical
// one (docs/benchmarks.md). Writes stay outside, or the store could not
// batch their commits, and so do streams and password hashing, which would
// hold a slot for long.
type cpuGate chan struct{}

func newCPUGate() cpuGate { return make(cpuGate, runtime.GOMAXPROCS(0)) }

// quick wraps h in the gate.
func (g cpuGate) quick(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case g <- struct{}{}:
		case <-r.Context().Done():
			return
		}
		defer func() { <-g }()
		h(w, r)
	}
}

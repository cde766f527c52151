package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// pairCounters is a family of counters by two labels whose series are
// looked up by WithLabelValues (hashing, validating) only the first time
// each pair is met; then by one map read. The pairs are bounded like the
// labels' values.
type pairCounters struct {
	vec  *prometheus.CounterVec
	seen sync.Map // [2]string → prometheus.Counter
}

func newPairCounters(vec *prometheus.CounterVec) *pairCounters { return &pairCounters{vec: vec} }

// with is the counter of the label values a and b.
func (p *pairCounters) with(a, b string) prometheus.Counter {
	k := [2]string{a, b}
	if c, ok := p.seen.Load(k); ok {
		return c.(prometheus.Counter)
	}
	c, _ := p.seen.LoadOrStore(k, p.vec.WithLabelValues(a, b))
	return c.(prometheus.Counter)
}

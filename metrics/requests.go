package metrics

import (
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// methods are the method label's values a route's series are kept by,
// in the order of their index (methodIndex).
var methods = [...]string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
	http.MethodPatch, http.MethodDelete, http.MethodOptions, "other"}

// methodIndex is method's index in methods, or -1.
func methodIndex(method string) int {
	switch method {
	case http.MethodGet:
		return 0
	case http.MethodHead:
		return 1
	case http.MethodPost:
		return 2
	case http.MethodPut:
		return 3
	case http.MethodPatch:
		return 4
	case http.MethodDelete:
		return 5
	case http.MethodOptions:
		return 6
	case "other":
		return 7
	}
	return -1
}

// routeSeries are a route's request series, by method and status class,
// each made the first time it is met: a request finds its own by one
// lookup of its route and two indexes, not by hashing three labels.
type routeSeries struct {
	series [len(methods)][len(statusClasses)]atomic.Pointer[requestSeries]
}

type requestKey struct{ route, method, code string }

// requestSeries are the count and latency of one route, method and class.
type requestSeries struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

func (m *Metrics) newSeries(route, method, code string) *requestSeries {
	return &requestSeries{
		count:   m.requests.WithLabelValues(route, method, code),
		latency: m.latency.WithLabelValues(route, method, code),
	}
}

// Request counts one HTTP request.
func (m *Metrics) Request(route, method string, status int, took time.Duration) {
	m.seriesOf(route, method, status).observe(took)
}

func (rs *requestSeries) observe(took time.Duration) {
	rs.count.Inc()
	rs.latency.Observe(took.Seconds())
}

// seriesOf is the series of route, method and status, made at its first
// request (the label values validated once, there).
func (m *Metrics) seriesOf(route, method string, status int) *requestSeries {
	class := statusClassIndex(status)
	mi := methodIndex(method)
	if mi < 0 {
		// A method no server of ours passes (web counts them as
		// "other"): by its labels.
		k := requestKey{route, method, statusClasses[class]}
		v, ok := m.others.Load(k)
		if !ok {
			v, _ = m.others.LoadOrStore(k, m.newSeries(route, method, k.code))
		}
		return v.(*requestSeries)
	}
	v, ok := m.routes.Load(route)
	if !ok {
		v, _ = m.routes.LoadOrStore(route, new(routeSeries))
	}
	slot := &v.(*routeSeries).series[mi][class]
	if rs := slot.Load(); rs != nil {
		return rs
	}
	rs := m.newSeries(route, method, statusClasses[class])
	if !slot.CompareAndSwap(nil, rs) {
		return slot.Load() // another request made it first: the same series
	}
	return rs
}

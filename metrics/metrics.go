// Package metrics is the operator's Prometheus endpoint: a core.Metrics
// that counts what the services and the server tell it, the gauges read at
// each scrape (the delivery queue, the store's pools), the Go runtime and
// process collectors, and the handler of /metrics behind its optional
// credentials. core knows nothing of Prometheus: it speaks core.Metrics.
//
// Every label's values come from a closed set (route patterns, methods,
// status classes, outcome and channel words), never a user id, an address
// or a raw path, so the series stay few (docs/ops.md).
package metrics

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/sendlater/sendlater/core"
)

// Namespace prefixes every family of ours.
const Namespace = "sendlater"

// Metrics implements core.Metrics over a Prometheus registry of its own.
type Metrics struct {
	reg   *prometheus.Registry
	names *[]string // of the families of ours registered (Families)

	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	signIns     *pairCounters
	messages    *pairCounters
	sends       *pairCounters
	late        prometheus.Histogram
	passes      *prometheus.CounterVec
	passTime    prometheus.Histogram
	lastPass    prometheus.Gauge
	streams     prometheus.Gauge
	webhooks    *prometheus.CounterVec
	bounceHooks *prometheus.CounterVec
	stripe      *prometheus.CounterVec
	storeTime   *prometheus.HistogramVec

	// routes are the request series met so far by route (route →
	// *routeSeries, then by method and status class: requests.go), others
	// those of a method of no standard (requestKey → *requestSeries), and
	// stores the store's (op → prometheus.Observer): looked up once, not
	// by label values on every request (hashing and checking three labels
	// twice a request was most of what the metrics cost it;
	// docs/benchmarks-history.md). The sets are bounded like the labels.
	routes sync.Map
	others sync.Map
	stores sync.Map
	// inFlightN is the in-flight gauge's value, read at each scrape: an
	// integer added to, not a float compared and swapped by every request.
	inFlightN atomic.Int64
}

var _ core.Metrics = (*Metrics)(nil)

// New makes the families of one process; process names it (the delivery
// health's name, config-given or the host's) on the scheduler's families.
func New(process string) *Metrics {
	reg := prometheus.NewRegistry()
	f := factory{reg: reg, names: new([]string)}
	perProcess := prometheus.Labels{"process": process}
	m := &Metrics{
		reg: reg, names: f.names,
		requests: f.counters("http_requests_total", "HTTP requests answered, by route pattern, method and status class.",
			"route", "method", "code"),
		latency: f.histograms("http_request_duration_seconds", "Time to answer HTTP requests, by route pattern, method and status class.",
			prometheus.ExponentialBuckets(0.001, 2.5, 10), "route", "method", "code"),
		signIns: newPairCounters(f.counters("signins_total", "Sign-ins, by method (password, social) and outcome class.",
			"method", "outcome")),
		messages: newPairCounters(f.counters("messages_changed_total", "Messages created, edited and postponed, by channel.",
			"action", "channel")),
		sends: newPairCounters(f.counters("sends_total", "Emails of deliveries (one a recipient) and reminders, by outcome.",
			"kind", "outcome")),
		late: f.histogram("delivery_lateness_seconds", "Time from a delivery's due time to its hand-over to the mail server.",
			[]float64{1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600, 86400}, nil),
		passes: f.counterWith("scheduler_passes_total", "Delivery passes of this process, by outcome (ok, error).",
			perProcess, "outcome"),
		passTime: f.histogram("scheduler_pass_duration_seconds", "Time a delivery pass of this process took.",
			prometheus.ExponentialBuckets(0.001, 4, 10), perProcess),
		lastPass: f.gauge("scheduler_last_success_timestamp_seconds",
			"When a delivery pass of this process last finished without a store error (Unix time).", perProcess),
		streams:  f.gauge("live_streams_open", "Live lists (message streams) open on this process.", nil),
		webhooks: f.counters("webhook_calls_total", "Business webhook calls, by outcome.", "outcome"),
		bounceHooks: f.counters("bounce_webhook_calls_total", "Calls of the sending providers' bounce webhooks, by provider and outcome.",
			"provider", "outcome"),
		stripe: f.counters("stripe_events_total", "Payment provider events received, by type and outcome.", "type", "outcome"),
		storeTime: f.histograms("store_operation_duration_seconds", "Time of the store's transactions, by operation.",
			prometheus.ExponentialBuckets(0.0001, 4, 10), "operation"),
	}
	f.gaugeFunc("http_requests_in_flight", "HTTP requests being answered.", func() float64 { return float64(m.inFlightN.Load()) })
	reg.MustRegister(runtimeCollectors()...)
	return m
}

// runtimeCollectors are the Go runtime's and the process's families.
func runtimeCollectors() []prometheus.Collector {
	return []prometheus.Collector{collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})}
}

// Registry is where the families live, for Handler and for more collectors
// (Queue, Gauges).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// InFlight moves the requests being answered.
func (m *Metrics) InFlight(delta int) { m.inFlightN.Add(int64(delta)) }

// SignIn counts a sign-in's outcome.
func (m *Metrics) SignIn(method, outcome string) { m.signIns.with(method, outcome).Inc() }

// MessageChanged counts a message's change by channel.
func (m *Metrics) MessageChanged(action, channel string) {
	m.messages.with(action, channel).Inc()
}

// Sent counts n emails of kind with outcome.
func (m *Metrics) Sent(kind, outcome string, n int) {
	m.sends.with(kind, outcome).Add(float64(n))
}

// Late observes a delivery's lateness.
func (m *Metrics) Late(late time.Duration) { m.late.Observe(max(late, 0).Seconds()) }

// Pass counts a delivery pass.
func (m *Metrics) Pass(took time.Duration, ok bool, at time.Time) {
	m.passTime.Observe(took.Seconds())
	if !ok {
		m.passes.WithLabelValues("error").Inc()
		return
	}
	m.passes.WithLabelValues("ok").Inc()
	m.lastPass.Set(float64(at.UnixNano()) / 1e9)
}

// Streams moves the open live lists.
func (m *Metrics) Streams(delta int) { m.streams.Add(float64(delta)) }

// Webhook counts a webhook call's outcome.
func (m *Metrics) Webhook(outcome string) { m.webhooks.WithLabelValues(outcome).Inc() }

// BounceWebhook counts a call of a provider's bounce webhook.
func (m *Metrics) BounceWebhook(provider, outcome string) {
	m.bounceHooks.WithLabelValues(provider, outcome).Inc()
}

// StripeEvent counts a payment provider's event.
func (m *Metrics) StripeEvent(eventType, outcome string) {
	m.stripe.WithLabelValues(eventType, outcome).Inc()
}

// StoreOp observes one store transaction of operation op.
func (m *Metrics) StoreOp(op string, took time.Duration) {
	v, ok := m.stores.Load(op)
	if !ok {
		v, _ = m.stores.LoadOrStore(op, m.storeTime.WithLabelValues(op))
	}
	v.(prometheus.Observer).Observe(took.Seconds())
}

// statusClasses are the code label's values, by status / 100.
var statusClasses = [...]string{"none", "1xx", "2xx", "3xx", "4xx", "5xx"}

// statusClassIndex is status's class's index in statusClasses: 2 ("2xx")
// of 204; 0 ("none") of 0, nothing written.
func statusClassIndex(status int) int {
	if status < 100 || status > 599 {
		return 0
	}
	return status / 100
}

// Families names every family registered: ours, even before their first
// series, and the Go runtime's and the process's. It reads none of the
// figures.
func (m *Metrics) Families() []string {
	names := slices.Clone(*m.names)
	runtime := prometheus.NewRegistry()
	runtime.MustRegister(runtimeCollectors()...)
	fams, _ := runtime.Gather()
	for _, f := range fams {
		if !slices.Contains(names, f.GetName()) {
			names = append(names, f.GetName())
		}
	}
	slices.Sort(names)
	return names
}

// factory makes families under Namespace and registers them, keeping
// their names.
type factory struct {
	reg   prometheus.Registerer
	names *[]string
}

func (f factory) named(name string) { *f.names = append(*f.names, Namespace+"_"+name) }

func (f factory) counters(name, help string, labels ...string) *prometheus.CounterVec {
	return f.counterWith(name, help, nil, labels...)
}

func (f factory) counterWith(name, help string, constant prometheus.Labels, labels ...string) *prometheus.CounterVec {
	f.named(name)
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: name, Help: help, ConstLabels: constant}, labels)
	f.reg.MustRegister(c)
	return c
}

func (f factory) histograms(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	f.named(name)
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: name, Help: help, Buckets: buckets}, labels)
	f.reg.MustRegister(h)
	return h
}

func (f factory) histogram(name, help string, buckets []float64, constant prometheus.Labels) prometheus.Histogram {
	f.named(name)
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: Namespace, Name: name, Help: help, Buckets: buckets, ConstLabels: constant})
	f.reg.MustRegister(h)
	return h
}

func (f factory) gaugeFunc(name, help string, fn func() float64) {
	f.named(name)
	f.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: name, Help: help}, fn))
}

func (f factory) gauge(name, help string, constant prometheus.Labels) prometheus.Gauge {
	f.named(name)
	g := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: Namespace, Name: name, Help: help, ConstLabels: constant})
	f.reg.MustRegister(g)
	return g
}

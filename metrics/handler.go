package metrics

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sendlater/sendlater/core"
)

// scrapeTimeout bounds what one scrape reads from the store.
const scrapeTimeout = 5 * time.Second

// Queue registers the gauges of the delivery queue, read from q at each
// scrape: the deliveries due and the age of the earliest (0: none due).
func (m *Metrics) Queue(q core.DueQueue, clock core.Clock) {
	*m.names = append(*m.names, Namespace+"_delivery_queue_due", Namespace+"_delivery_queue_oldest_seconds", Namespace+"_store_up")
	m.reg.MustRegister(&queueCollector{q: q, clock: clock,
		due: prometheus.NewDesc(Namespace+"_delivery_queue_due", "Deliveries due and not yet sent.", nil, nil),
		age: prometheus.NewDesc(Namespace+"_delivery_queue_oldest_seconds",
			"How long the earliest delivery due and not yet sent has been due (0: none).", nil, nil),
		up: prometheus.NewDesc(Namespace+"_store_up", "Whether the store answered the last scrape's reads (1) or not (0).", nil, nil),
	})
}

type queueCollector struct {
	q            core.DueQueue
	clock        core.Clock
	due, age, up *prometheus.Desc
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.due; ch <- c.age; ch <- c.up }

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	now := c.clock.Now()
	n, oldest, err := c.q.DueQueue(ctx, now)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 0)
		return
	}
	age := 0.0
	if n > 0 {
		age = max(now.Sub(oldest), 0).Seconds()
	}
	ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(c.due, prometheus.GaugeValue, float64(n))
	ch <- prometheus.MustNewConstMetric(c.age, prometheus.GaugeValue, age)
}

// Gauge is one figure a part of the process reads at each scrape (a
// store's pool, the mail server's connections): its name under
// Namespace, its help and how to read it; Counter: it only grows.
type Gauge struct {
	Name, Help string
	Read       func() float64
	Counter    bool
}

// Gauges registers gs, read at each scrape.
func (m *Metrics) Gauges(gs ...Gauge) {
	for _, g := range gs {
		*m.names = append(*m.names, Namespace+"_"+g.Name)
		if g.Counter {
			m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: Namespace, Name: g.Name, Help: g.Help}, g.Read))
			continue
		}
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: g.Name, Help: g.Help}, g.Read))
	}
}

// Auth is who may scrape: a bearer token, or a basic-auth user and
// password; the zero value lets anyone who reaches the listener scrape.
type Auth struct {
	Token              string
	Username, Password string
}

// Handler serves the registry's families (the Prometheus text format, or
// OpenMetrics when asked) to a scraper that proves a.
func (m *Metrics) Handler(a Auth) http.Handler {
	// Uncompressed: gzip was a fifth of a scrape's CPU, for ~15 KB a
	// scrape on the operator's own network (docs/benchmarks-history.md).
	h := promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Timeout: scrapeTimeout, DisableCompression: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.allows(r) {
			refuse(w, a)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// refuse answers a scraper without a's credentials: 401 and nothing else.
func refuse(w http.ResponseWriter, a Auth) {
	if a.Token != "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
	} else {
		w.Header().Set("WWW-Authenticate", `Basic realm="metrics"`)
	}
	http.Error(w, "Unauthorized", http.StatusUnauthorized)
}

// allows compares the credentials in constant time (of their hashes, so
// that their lengths do not show either).
func (a Auth) allows(r *http.Request) bool {
	switch {
	case a.Token != "":
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		return ok && same(got, a.Token) == 1
	case a.Username != "" || a.Password != "":
		user, pass, ok := r.BasicAuth()
		// Both compared, always: a wrong user costs what a wrong password does.
		return ok && same(user, a.Username)&same(pass, a.Password) == 1
	}
	return true
}

func same(a, b string) int {
	x, y := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(x[:], y[:])
}

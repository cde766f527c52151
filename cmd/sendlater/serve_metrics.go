package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/metrics"
)

// metricsEndpoint is the Prometheus endpoint of serve (config metrics.*),
// on its own listener.
type metricsEndpoint struct {
	m   *metrics.Metrics
	srv *http.Server
	ln  net.Listener
}

// newMetrics makes the process's families when metrics.addr is set; nil:
// metrics are off and nothing is counted. The scheduler's families name
// the host, not the pid of processName: a restart keeps its series.
func (a *app) newMetrics() *metrics.Metrics {
	if a.cfg.Metrics.Addr == "" {
		return nil
	}
	host, err := os.Hostname()
	if err != nil {
		host = "unknown-host"
	}
	return metrics.New(host)
}

// openMetrics listens on metrics.addr and serves /metrics there: the
// families of m, the delivery queue of st and the figures of the store's
// and the mail server's pools. A listener reachable from elsewhere
// without credentials is served, with a warning.
func (a *app) openMetrics(m *metrics.Metrics, st store, s *services) (*metricsEndpoint, error) {
	if m == nil {
		return nil, nil
	}
	m.Queue(st, core.SystemClock{})
	if o, ok := st.(txObserved); ok {
		o.ObserveTransactions(m.StoreOp)
	}
	m.Gauges(storeGauges(st)...)
	m.Gauges(mailerGauges(s.Mailer)...)
	cfg := a.cfg.Metrics
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("metrics.addr %s: %w", cfg.Addr, err)
	}
	mux := http.NewServeMux()
	auth := metrics.Auth{Token: cfg.Token, Username: cfg.Username, Password: cfg.Password}
	mux.Handle("GET /metrics", m.Handler(auth))
	if cfg.Pprof {
		mux.Handle("GET /debug/pprof/", metrics.Profiles(auth))
		a.log.Info("Go profiles on the metrics listener (metrics.pprof)", "metrics_addr", ln.Addr().String(), "path", "/debug/pprof/")
	}
	e := &metricsEndpoint{m: m, ln: ln, srv: &http.Server{
		Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second,
		ErrorLog: slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}}
	go func() {
		if err := e.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.log.Error("metrics server", "err", err)
		}
	}()
	open := cfg.Token == "" && cfg.Username == ""
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); open && !isLoopback(host) {
		a.log.Warn("metrics are served without credentials on an address others may reach: set metrics.token or metrics.username and metrics.password",
			"metrics_addr", ln.Addr().String())
	}
	a.log.Info("metrics", "metrics_addr", ln.Addr().String(), "path", "/metrics")
	return e, nil
}

// txObserved is a store that times its transactions (both do).
type txObserved interface {
	ObserveTransactions(fn func(op string, took time.Duration))
}

// close stops the endpoint; nil is off already.
func (e *metricsEndpoint) close(ctx context.Context) error {
	if e == nil {
		return nil
	}
	return e.srv.Shutdown(ctx)
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

package main_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/mailer/smtptest"
)

const metricsToken = "a-scrape-token-of-32-characters!"

var metricsAddr = regexp.MustCompile(`msg=metrics metrics_addr=(\S+)`)

// get answers GET url with the bearer token (unless empty): status, body.
func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeMetrics: with metrics.addr and metrics.token, serve answers
// /metrics on that listener only, to the token only, with the requests it
// served, the delivery queue, the store's and the runtime's figures; the
// public port has no metrics.
func TestServeMetrics(t *testing.T) {
	dir := t.TempDir()
	mail := smtptest.Start(t)
	s := startServer(t, dir, smtpEnv(mail, "SENDLATER_METRICS_ADDR=127.0.0.1:0", "SENDLATER_METRICS_TOKEN="+metricsToken)...)
	m := metricsAddr.FindStringSubmatch(s.logs.String())
	if m == nil {
		t.Fatalf("serve did not say where its metrics are:\n%s", s.logs)
	}
	scrape := "http://" + m[1] + "/metrics"
	if code, _ := get(t, s.url+"/healthz", ""); code != 200 {
		t.Fatalf("healthz: %d", code)
	}
	signUp(t, s.url, "ann@example.com")
	if _, err := mail.WaitFor(1, 10*time.Second); err != nil { // the verification email, through the pool
		t.Fatal(err)
	}
	if code, body := get(t, s.url+"/metrics", metricsToken); strings.Contains(body, "sendlater_http_requests_total") {
		t.Fatalf("the public port served metrics (%d)", code)
	}
	if code, body := get(t, scrape, ""); code != 401 || strings.Contains(body, "sendlater_") {
		t.Fatalf("a scrape without the token: %d %q", code, body)
	}
	code, body := get(t, scrape, metricsToken)
	if code != 200 {
		t.Fatalf("scrape: %d", code)
	}
	for _, want := range []string{
		`sendlater_http_requests_total{code="2xx",method="GET",route="/healthz"} 1`,
		`sendlater_http_requests_in_flight 0`,
		`sendlater_http_requests_total{code="2xx",method="POST",route="/api/auth/signup"} 1`,
		`sendlater_smtp_connections_open 1`,
		`sendlater_smtp_connections_in_use 0`,
		`sendlater_smtp_errors_total 0`,
		`sendlater_delivery_queue_due 0`,
		`sendlater_store_up 1`,
		`sendlater_store_operation_duration_seconds_count{operation="read"}`,
		`sendlater_bbolt_read_transactions_open`,
		`sendlater_scheduler_last_success_timestamp_seconds{process=`,
		`go_goroutines`,
		`process_resident_memory_bytes`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the scrape lacks %s", want)
		}
	}
}

// TestMetricsConfig: the endpoint's keys are checked, each error naming
// the key and the rule.
func TestMetricsConfig(t *testing.T) {
	for _, c := range []struct{ env, want string }{
		{"SENDLATER_METRICS_ADDR=:8080", "metrics.addr must not use the public server's port"},
		{"SENDLATER_METRICS_ADDR=9090", "metrics.addr must be host:port"},
		{"SENDLATER_METRICS_TOKEN=" + metricsToken, "need metrics.addr"},
		{"SENDLATER_METRICS_ADDR=127.0.0.1:9191\x00SENDLATER_METRICS_TOKEN=short", "metrics.token must be at least 16 characters"},
		{"SENDLATER_METRICS_ADDR=127.0.0.1:9191\x00SENDLATER_METRICS_USERNAME=prom", "metrics.username and metrics.password must be set together"},
		{"SENDLATER_METRICS_PPROF=true", "need metrics.addr"},
		{"SENDLATER_METRICS_ADDR=0.0.0.0:9191\x00SENDLATER_METRICS_PPROF=true", "metrics.pprof needs metrics.token or metrics.username and metrics.password"},
	} {
		r := run(t, t.TempDir(), strings.Split(c.env, "\x00"), "config")
		if r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, %q; want %q", c.env, r.code, r.stderr, c.want)
		}
	}
	r := run(t, t.TempDir(), []string{"SENDLATER_METRICS_ADDR=127.0.0.1:9191", "SENDLATER_METRICS_PASSWORD=hunter2", "SENDLATER_METRICS_USERNAME=prom"}, "config")
	if r.code != 0 || !strings.Contains(r.stdout, "metrics.password = ********") || strings.Contains(r.stdout, "hunter2") {
		t.Errorf("config: %+v", r)
	}
}

// TestServeProfiles: with metrics.pprof, serve answers Go's profiles on the
// metrics listener to the scraper's token only; the public port has none.
func TestServeProfiles(t *testing.T) {
	s := startServer(t, t.TempDir(), "SENDLATER_METRICS_ADDR=127.0.0.1:0", "SENDLATER_METRICS_TOKEN="+metricsToken, "SENDLATER_METRICS_PPROF=true")
	m := metricsAddr.FindStringSubmatch(s.logs.String())
	if m == nil {
		t.Fatalf("serve did not say where its metrics are:\n%s", s.logs)
	}
	profiles := "http://" + m[1] + "/debug/pprof/"
	if code, body := get(t, profiles+"goroutine?debug=1", ""); code != 401 || strings.Contains(body, "goroutine") {
		t.Fatalf("profiles without the token: %d %q", code, body)
	}
	if code, body := get(t, profiles+"goroutine?debug=1", metricsToken); code != 200 || !strings.Contains(body, "net/http.(*Server).Serve") {
		t.Fatalf("profiles with the token: %d %.300q", code, body)
	}
	if code, _ := get(t, profiles+"cmdline", metricsToken); code != 404 {
		t.Fatalf("the command line: %d", code)
	}
	if code, body := get(t, s.url+"/debug/pprof/goroutine?debug=1", metricsToken); strings.Contains(body, "net/http.(*Server).Serve") {
		t.Fatalf("the public port served profiles (%d)", code)
	}
}

package main

// The observe scenario (issue 34): the list and create throughput of a
// server with metrics on, scraped every second, and tracing at a sample
// ratio (to an in-process OTLP sink), beside a server with both off.

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// otlpSink accepts OTLP/HTTP exports and discards them, counting them.
type otlpSink struct {
	srv     *http.Server
	url     string
	exports atomic.Int64
	bytes   atomic.Int64
}

func startOTLPSink() (*otlpSink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &otlpSink{url: "http://" + ln.Addr().String()}
	s.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		s.exports.Add(1)
		s.bytes.Add(n)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK) // an empty ExportTraceServiceResponse
	})}
	go s.srv.Serve(ln)
	return s, nil
}

// scraper GETs url every second until stopped.
type scraper struct {
	stop    chan struct{}
	done    sync.WaitGroup
	scrapes atomic.Int64
	errors  atomic.Int64
}

func startScraper(url string) *scraper {
	s := &scraper{stop: make(chan struct{})}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		c := &http.Client{Timeout: 5 * time.Second}
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
			resp, err := c.Get(url)
			if err != nil {
				s.errors.Add(1)
				continue
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				s.errors.Add(1)
				continue
			}
			s.scrapes.Add(1)
		}
	}()
	return s
}

func (s *scraper) close() { close(s.stop); s.done.Wait() }

// loadAverage is the machine's load over the last minute (uptime's first
// figure), "-" where /proc/loadavg cannot be read.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "-"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "-"
}

// runObserve starts a second set of servers like off's (cfg) with metrics
// and tracing on, and measures list and create on each, off then on,
// rounds times (ABAB), d each after warmup; it prints every run and the
// on/off ratio of their summed throughput.
func runObserve(off *servers, offSetup *setup, cfg serversConfig, ratio float64, conns, rounds int, warmup, d time.Duration) {
	sink, err := startOTLPSink()
	if err != nil {
		fatalf("observe: %v", err)
	}
	defer sink.srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatalf("observe: %v", err)
	}
	metricsAddr := ln.Addr().String()
	ln.Close()
	cfg.env = append(cfg.env, "SENDLATER_METRICS_ADDR="+metricsAddr,
		"SENDLATER_TRACING_OTLP_ENDPOINT="+sink.url, fmt.Sprintf("SENDLATER_TRACING_SAMPLE_RATIO=%g", ratio))
	on, err := startServers(cfg)
	if err != nil {
		fatalf("observe: start the servers with metrics and tracing: %v", err)
	}
	defer on.stop()
	onSetup, err := prepare(on.list[0].url, on)
	if err != nil {
		fatalf("observe: setup: %v", err)
	}
	scrape := startScraper("http://" + metricsAddr + "/metrics")
	fmt.Printf("\nobserve: off (pid %v) and on (pid %v: metrics scraped every second, tracing at %g to an OTLP sink), alternately, c=%d\n",
		off.pids(), on.pids(), ratio, conns)
	fmt.Printf("%-28s %5s %-4s %10s %8s %8s %8s %8s %6s %9s\n", "scenario", "round", "obs", "req/s", "p50 ms", "p99 ms", "CPU µs", "errors", "load", "UTC")
	type side struct {
		name string
		srv  *servers
		st   *setup
	}
	sides := []side{{"off", off, offSetup}, {"on", on, onSetup}}
	sums := map[string]float64{}
	for round := 1; round <= rounds; round++ {
		for _, sc := range []string{"list", "create"} {
			for _, who := range sides {
				req := request("GET", "/api/messages", who.st.listToken, nil)
				label := fmt.Sprintf("GET /api/messages (20), c=%d", conns)
				if sc == "create" {
					req = request("POST", "/api/messages", who.st.createToken, createBody)
					label = fmt.Sprintf("POST /api/messages, c=%d", conns)
				}
				addrs, pids := who.srv.addrs(), who.srv.pids()
				closedLoop(addrs, conns, warmup, req)
				cpu := cpuTime(pids)
				res := closedLoop(addrs, conns, d, req)
				cpu = cpuTime(pids) - cpu
				rate := float64(res.n) / res.elapsed.Seconds()
				sums[sc+" "+who.name] += rate
				fmt.Printf("%-28s %5d %-4s %10.0f %8.2f %8.2f %8s %8d %6s %9s\n", label, round, who.name, rate,
					ms(res.pct(50)), ms(res.pct(99)), perRequest(cpu, res.n, true), res.errors, loadAverage(),
					time.Now().UTC().Format("15:04:05"))
				if res.firstError != "" {
					fmt.Printf("  first error: %s\n", res.firstError)
				}
			}
		}
	}
	scrape.close()
	fmt.Printf("on/off, summed over the rounds: list %.1f%%, create %.1f%%; %d scrapes (%d failed), %d OTLP exports (%.1f KiB)\n",
		100*sums["list on"]/sums["list off"], 100*sums["create on"]/sums["create off"],
		scrape.scrapes.Load(), scrape.errors.Load(), sink.exports.Load(), float64(sink.bytes.Load())/1024)
}

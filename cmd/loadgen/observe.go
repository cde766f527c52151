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
	"path/filepath"
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

func (s *scraper) close() {
	if s.stop != nil {
		close(s.stop)
		s.done.Wait()
	}
}

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

// observeOptions are the observe scenario's flags.
type observeOptions struct {
	ratio         float64
	conns, rounds int
	warmup, d     time.Duration
	offProfile    string // off's metrics listener, with -observe-profile
	profileDir    string // where CPU profiles go ("": none taken)
	together      bool   // load off and on at the same time, conns each
	on            string // what on has: both (metrics and tracing), metrics, tracing
}

// freeAddr is a loopback address with a port free now.
func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatalf("listen: %v", err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// cpuProfile fetches a CPU profile of d from the server whose metrics
// listener is addr (metrics.pprof) into file; it returns at once, and
// wait ends when the profile is written.
func cpuProfile(addr string, d time.Duration, file string) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		c := &http.Client{Timeout: d + 30*time.Second}
		resp, err := c.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, int(d.Seconds())))
		if err != nil {
			fmt.Printf("  profile %s: %v\n", file, err)
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			fmt.Printf("  profile %s: %s\n", file, resp.Status)
			return
		}
		f, err := os.Create(file)
		if err == nil {
			_, err = io.Copy(f, resp.Body)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Printf("  profile %s: %v\n", file, err)
		}
	}()
	return func() { <-done }
}

// runObserve starts a second set of servers like off's (cfg) with metrics
// and tracing on, and measures list and create on each, off then on in
// odd rounds and on then off in even ones (ABBA), d each after warmup; it
// prints every run, the on/off ratio of their summed throughput and the
// CPU time per request over all the rounds. With together, off and on are
// loaded at the same time (conns connections each), so that the machine's
// changing load weighs on both alike. With a profile directory, a CPU
// profile of the whole of each measured run is written there
// (create-on-2.pprof: round 2's creates on the server with both on).
func runObserve(off *servers, offSetup *setup, cfg serversConfig, o observeOptions) {
	ratio, conns, rounds, warmup, d := o.ratio, o.conns, o.rounds, o.warmup, o.d
	sink, err := startOTLPSink()
	if err != nil {
		fatalf("observe: %v", err)
	}
	defer sink.srv.Close()
	metricsAddr := freeAddr()
	if o.profileDir != "" {
		if err := os.MkdirAll(o.profileDir, 0o755); err != nil {
			fatalf("observe: %v", err)
		}
		cfg.env = append(cfg.env, "SENDLATER_METRICS_PPROF=true")
	}
	withMetrics := o.on != "tracing"
	withTracing := o.on != "metrics"
	if withMetrics || o.profileDir != "" {
		cfg.env = append(cfg.env, "SENDLATER_METRICS_ADDR="+metricsAddr)
	}
	if withTracing {
		cfg.env = append(cfg.env, "SENDLATER_TRACING_OTLP_ENDPOINT="+sink.url, fmt.Sprintf("SENDLATER_TRACING_SAMPLE_RATIO=%g", ratio))
	}
	on, err := startServers(cfg)
	if err != nil {
		fatalf("observe: start the servers with metrics and tracing: %v", err)
	}
	defer on.stop()
	onSetup, err := prepare(on.list[0].url, on)
	if err != nil {
		fatalf("observe: setup: %v", err)
	}
	scrape := &scraper{}
	if withMetrics {
		scrape = startScraper("http://" + metricsAddr + "/metrics")
	}
	how := "one after the other (ABBA)"
	if o.together {
		how = "at the same time"
	}
	what := fmt.Sprintf("metrics scraped every second, tracing at %g to an OTLP sink", ratio)
	switch {
	case !withTracing:
		what = "metrics scraped every second, no tracing"
	case !withMetrics:
		what = fmt.Sprintf("no metrics, tracing at %g to an OTLP sink", ratio)
	}
	fmt.Printf("\nobserve: off (pid %v) and on (pid %v: %s), %s, c=%d\n", off.pids(), on.pids(), what, how, conns)
	fmt.Printf("%-28s %5s %-4s %10s %8s %8s %8s %8s %6s %9s\n", "scenario", "round", "obs", "req/s", "p50 ms", "p99 ms", "CPU µs", "errors", "load", "UTC")
	type side struct {
		name    string
		srv     *servers
		st      *setup
		profile string // the metrics listener serving its profiles
	}
	sides := []side{{"off", off, offSetup, o.offProfile}, {"on", on, onSetup, metricsAddr}}
	sums := map[string]float64{}
	cpus := map[string]time.Duration{} // the servers' CPU time, summed over the rounds
	reqs := map[string]int{}           // and the requests it served
	for round := 1; round <= rounds; round++ {
		// off first in odd rounds, on first in even ones (ABBA): a
		// machine whose load drifts up or down favours neither.
		order := sides
		if round%2 == 0 {
			order = []side{sides[1], sides[0]}
		}
		for _, sc := range []string{"list", "create"} {
			type run struct {
				res       result
				cpu       time.Duration
				load, utc string // at the run's end
			}
			measure := func(who side) run {
				req := request("GET", "/api/messages", who.st.listToken, nil)
				if sc == "create" {
					req = request("POST", "/api/messages", who.st.createToken, createBody)
				}
				addrs, pids := who.srv.addrs(), who.srv.pids()
				closedLoop(addrs, conns, warmup, req)
				wait := func() {}
				if o.profileDir != "" && who.profile != "" {
					wait = cpuProfile(who.profile, d, filepath.Join(o.profileDir, fmt.Sprintf("%s-%s-%d.pprof", sc, who.name, round)))
				}
				cpu := cpuTime(pids)
				res := closedLoop(addrs, conns, d, req)
				cpu = cpuTime(pids) - cpu
				wait()
				return run{res, cpu, loadAverage(), time.Now().UTC().Format("15:04:05")}
			}
			runs := make([]run, len(order))
			if o.together {
				// Both at once: the machine's load is the same for both.
				var wg sync.WaitGroup
				for i, who := range order {
					wg.Go(func() { runs[i] = measure(who) })
				}
				wg.Wait()
			} else {
				for i, who := range order {
					runs[i] = measure(who)
				}
			}
			for i, who := range order {
				res, cpu := runs[i].res, runs[i].cpu
				label := fmt.Sprintf("GET /api/messages (20), c=%d", conns)
				if sc == "create" {
					label = fmt.Sprintf("POST /api/messages, c=%d", conns)
				}
				rate := float64(res.n) / res.elapsed.Seconds()
				sums[sc+" "+who.name] += rate
				cpus[sc+" "+who.name] += cpu
				reqs[sc+" "+who.name] += res.n
				fmt.Printf("%-28s %5d %-4s %10.0f %8.2f %8.2f %8s %8d %6s %9s\n", label, round, who.name, rate,
					ms(res.pct(50)), ms(res.pct(99)), perRequest(cpu, res.n, true), res.errors, runs[i].load, runs[i].utc)
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
	// The CPU time per request over all the rounds (all CPU / all
	// requests), and the throughput that CPU allows on against off.
	perReq := func(k string) float64 {
		if reqs[k] == 0 {
			return 0
		}
		return float64(cpus[k].Nanoseconds()) / 1e3 / float64(reqs[k])
	}
	for _, sc := range []string{"list", "create"} {
		offUS, onUS := perReq(sc+" off"), perReq(sc+" on")
		if onUS > 0 {
			fmt.Printf("%s CPU per request over the rounds: off %.1f µs, on %.1f µs; the throughput that CPU allows, on/off: %.1f%%\n",
				sc, offUS, onUS, 100*offUS/onUS)
		}
	}
}

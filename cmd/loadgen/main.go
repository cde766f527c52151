// Command loadgen measures the JSON API under load, as docs/benchmarks.md
// reports it: requests per second and latency percentiles of authenticated
// GET /api/messages (20 messages), POST /api/messages and sign-in, the
// server's CPU time per request (which a shared machine's other processes
// do not inflate), and its resident memory idle and under load.
//
// With -bin it starts `sendlater serve` itself on a fresh data directory and
// a free port, grants the Pro plan with `sendlater users set-plan` and stops
// the server at the end; with -url it drives a server that runs already
// (give -pid to read its memory).
//
//	go build -o bin/sendlater ./cmd/sendlater
//	go run ./cmd/loadgen -bin bin/sendlater
//
// The client speaks HTTP/1.1 over raw keep-alive connections, one per
// worker, so that it costs the server's CPU as little as possible: client
// and server share the machine. Closed-loop scenarios run -c workers as fast
// as they can; the sign-in scenario sends -signin-rate requests per second on
// a fixed schedule and measures latency from the scheduled time, so a slow
// reply cannot hide the queue behind it.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"
)

func main() {
	var (
		bin        = flag.String("bin", "", "sendlater binary to start (fresh data dir, free port)")
		base       = flag.String("url", "", "base URL of a running server (instead of -bin)")
		pid        = flag.Int("pid", 0, "with -url: the server's process id, to read its memory")
		conns      = flag.Int("c", 64, "connections (closed-loop scenarios and sign-in workers)")
		duration   = flag.Duration("d", 10*time.Second, "measured duration of each scenario")
		warmup     = flag.Duration("warmup", 2*time.Second, "unmeasured load before each scenario")
		scenarios  = flag.String("scenarios", "list,create,create-rate,signin", "scenarios to run, in order")
		createRate = flag.Float64("create-rate", 1500, "creates per second of the create-rate scenario (open loop)")
		signinRate = flag.Float64("signin-rate", 25, "sign-ins per second (open loop)")
		logLevel   = flag.String("log-level", "info", "with -bin: the server's log.level (info logs every request)")
		dataDir    = flag.String("data", "", "with -bin: data directory (default: a new temporary one, removed after)")
	)
	flag.Parse()
	if (*bin == "") == (*base == "") {
		fatalf("give -bin or -url")
	}
	var srv *server
	if *bin != "" {
		var err error
		if srv, err = startServer(*bin, *dataDir, *logLevel); err != nil {
			fatalf("start server: %v", err)
		}
		defer srv.stop()
		*base, *pid = srv.url, srv.cmd.Process.Pid
	}
	u, err := url.Parse(*base)
	if err != nil || u.Host == "" {
		fatalf("bad -url %q", *base)
	}
	addr := u.Host

	fmt.Printf("loadgen: %s, %d connections, %s per scenario after %s warm-up, GOMAXPROCS of this machine: %d CPUs\n",
		*base, *conns, *duration, *warmup, numCPU())
	if *pid != 0 {
		time.Sleep(time.Second)
		fmt.Printf("server RSS idle after start: %.1f MiB (anonymous %.1f MiB)\n", mib(rss(*pid)), mib(rssAnon(*pid)))
	}

	setup, err := prepare(*base, srv)
	if err != nil {
		fatalf("setup: %v", err)
	}
	if *pid != 0 {
		time.Sleep(time.Second)
		fmt.Printf("server RSS idle after setup: %.1f MiB (anonymous %.1f MiB)\n", mib(rss(*pid)), mib(rssAnon(*pid)))
	}
	fmt.Printf("\n%-34s %9s %8s %10s %8s %8s %8s %10s %10s %8s\n", "scenario", "requests", "errors", "req/s", "p50 ms", "p99 ms", "max ms", "peak RSS", "anonymous", "CPU µs")
	for _, name := range strings.Split(*scenarios, ",") {
		var label string
		var run func(d time.Duration) result // one scenario for d
		switch name {
		case "list":
			label = fmt.Sprintf("GET /api/messages (20), c=%d", *conns)
			req := request("GET", "/api/messages", setup.listToken, nil)
			run = func(d time.Duration) result { return closedLoop(addr, *conns, d, req) }
		case "create":
			label = fmt.Sprintf("POST /api/messages, c=%d", *conns)
			req := request("POST", "/api/messages", setup.createToken, createBody)
			run = func(d time.Duration) result { return closedLoop(addr, *conns, d, req) }
		case "create-rate":
			label = fmt.Sprintf("POST /api/messages, %g/s", *createRate)
			req := request("POST", "/api/messages", setup.createToken, createBody)
			run = func(d time.Duration) result { return openLoop(addr, *conns, *createRate, d, req) }
		case "signin":
			label = fmt.Sprintf("POST /api/auth/signin, %g/s", *signinRate)
			body, _ := json.Marshal(map[string]string{"email": setup.signinEmail, "password": password})
			req := request("POST", "/api/auth/signin", "", body)
			run = func(d time.Duration) result { return openLoop(addr, *conns, *signinRate, d, req) }
		default:
			fatalf("unknown scenario %q", name)
		}
		mem := watchRSS(*pid)
		run(*warmup)
		mem.reset()
		cpu := cpuTime(*pid)
		res := run(*duration)
		cpu = cpuTime(*pid) - cpu
		peak, anon := mem.stop()
		fmt.Printf("%-34s %9d %8d %10.0f %8.2f %8.2f %8.2f %10s %10s %8s\n", label, res.n, res.errors,
			float64(res.n)/res.elapsed.Seconds(), ms(res.pct(50)), ms(res.pct(99)), ms(res.pct(100)), fmtMiB(peak), fmtMiB(anon),
			perRequest(cpu, res.n, *pid))
		if res.firstError != "" {
			fmt.Printf("  first error: %s\n", res.firstError)
		}
	}
	if *pid != 0 {
		time.Sleep(2 * time.Second)
		fmt.Printf("\nserver RSS after the load: %.1f MiB (anonymous %.1f MiB)\n", mib(rss(*pid)), mib(rssAnon(*pid)))
	}
}

// perRequest is the server's CPU time per request in µs, "-" without a pid.
func perRequest(cpu time.Duration, n, pid int) string {
	if pid == 0 || n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", float64(cpu.Microseconds())/float64(n))
}

const password = "loadgen passphrase, long enough"

// createBody is the message the create scenarios store: 500 bytes of text.
var createBody = []byte(`{"title":"Load test","name":"Ann","recipient":"ann@example.com","message":"` +
	strings.Repeat("A letter for the future. ", 20) + `","interval":"6M"}`)

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "loadgen: "+format+"\n", args...)
	os.Exit(1)
}

func numCPU() int {
	n := 0
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		n = bytes.Count(b, []byte("\nprocessor"))
		if bytes.HasPrefix(b, []byte("processor")) {
			n++
		}
	}
	return n
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

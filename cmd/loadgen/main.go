// Command loadgen measures the JSON API under load, as docs/benchmarks.md
// reports it: requests per second and latency percentiles of authenticated
// GET /api/messages (20 messages), POST /api/messages and sign-in, the
// server's CPU time per request (which a shared machine's other processes
// do not inflate), and its resident memory idle and under load.
//
// With -bin it starts `sendlater serve` itself on a fresh data directory and
// a free port, grants the Pro plan with `sendlater users set-plan` and stops
// the server at the end; with -url it drives a server that runs already
// (give -pid to read its memory). With -postgres URL the servers use a new
// schema of that database (dropped at the end), and -replicas N starts N
// of them: the connections are spread over the replicas, and memory and CPU
// are their sums. The deliver scenario (PostgreSQL only) makes -deliveries
// messages due at once and times the replicas' schedulers delivering them
// into loadgen's own SMTP sink. The streams scenario (streams.go) measures
// one user's list reads while another user with a 5,000-message list
// follows 50 live lists, changes messages and reads pages back to back.
// The ceiling scenario (ceiling.go) runs a bare net/http server with the
// same bytes, bearer check and headers alternately with the real one for
// GET /api/messages, /api/me and /api/messages/{id} (each with and without
// gzip) and prints their ratio; write-ceiling (write_ceiling.go) does the
// same for POST /api/messages against a bare server that only reads the
// body and writes as many bytes as a create, durably, to the same store;
// observe (observe.go) measures list and create on a server with metrics
// (scraped every second) and tracing (-observe-ratio, to an OTLP sink) on,
// alternately with the first one, both off, -rounds times;
// signin-burst (burst.go) sends -burst sign-ins at once and follows the
// server's VmRSS to its peak and back to its idle baseline; signin-2fa
// (twofactor.go) signs in to accounts with an authenticator app at the
// signin scenario's rate, each sign-in its two requests; attach-rss
// (attach.go) follows the server's memory while a 25 MB file goes up and
// comes back down, attach-concurrent (attach_concurrent.go) another user's
// list while 8 uploads run at once (-rounds: attach-rss's rounds).
//
//	go build -o bin/sendlater ./cmd/sendlater
//	go run ./cmd/loadgen -bin bin/sendlater
//	go run ./cmd/loadgen -bin bin/sendlater -replicas 3 -scenarios list,create,deliver \
//		-postgres 'postgres://postgres@127.0.0.1:5432/test?sslmode=disable'
//	go run ./cmd/loadgen -bin bin/sendlater -scenarios ceiling,write-ceiling,signin-burst -d 5s -warmup 1s
//	go run ./cmd/loadgen -bin bin/sendlater -scenarios attach-rss,attach-concurrent -c 4 -rounds 3
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
		bin         = flag.String("bin", "", "sendlater binary to start (fresh data dir, free port)")
		base        = flag.String("url", "", "base URL of a running server (instead of -bin)")
		pid         = flag.Int("pid", 0, "with -url: the server's process id, to read its memory")
		conns       = flag.Int("c", 64, "connections (closed-loop scenarios and sign-in workers)")
		duration    = flag.Duration("d", 10*time.Second, "measured duration of each scenario")
		warmup      = flag.Duration("warmup", 2*time.Second, "unmeasured load before each scenario")
		scenarios   = flag.String("scenarios", "list,create,create-rate,signin", "scenarios to run, in order")
		createRate  = flag.Float64("create-rate", 1500, "creates per second of the create-rate scenario (open loop)")
		signinRate  = flag.Float64("signin-rate", 25, "sign-ins per second (open loop)")
		logLevel    = flag.String("log-level", "info", "with -bin: the server's log.level (info logs every request)")
		dataDir     = flag.String("data", "", "with -bin: data directory (default: a new temporary one, removed after)")
		replicas    = flag.Int("replicas", 1, "with -bin: serve processes on one store (more than one needs -postgres)")
		pgURL       = flag.String("postgres", "", "with -bin: store.driver postgres, in a new schema of this database (dropped after)")
		deliveries  = flag.Int("deliveries", 20000, "messages the deliver scenario makes due at once")
		heavyList   = flag.Int("heavy-list", 5000, "messages of the streams scenario's heavy user")
		streams     = flag.Int("streams", 50, "live lists the streams scenario's heavy user opens")
		burst       = flag.Int("burst", 100, "sign-ins of the signin-burst scenario, all at once")
		burstIdle   = flag.Duration("burst-idle", 30*time.Second, "how long signin-burst waits for memory to return to its baseline")
		rounds      = flag.Int("rounds", 2, "rounds of the ceiling scenario (each read on each server per round)")
		ceilServe   = flag.String("ceiling-serve", "", "internal: serve the ceiling's bare handler of this spec file")
		writeServe  = flag.String("write-ceiling-serve", "", "internal: serve the write ceiling's bare handler of this spec file")
		obsRatio    = flag.Float64("observe-ratio", 0.1, "the observe scenario's tracing.sample_ratio")
		obsOn       = flag.String("observe-on", "both", "the observe scenario: what the on server has: both (metrics and tracing), metrics, tracing")
		obsTogether = flag.Bool("observe-together", false, "the observe scenario: load off and on at the same time (-c connections each) instead of one after the other")
		obsProfile  = flag.String("observe-profile", "", "the observe scenario: write a CPU profile of each measured run into this directory (metrics.pprof; the off server then has metrics on, unscraped)")
		ceilReads   = flag.String("ceiling-reads", "", "the ceiling scenario: only these reads, comma-separated: list, list-gzip, me, me-gzip, message, message-gzip (default all)")
		ceilProfile = flag.String("ceiling-profile", "", "the ceiling scenario: write a CPU profile of each real server's measured run into this directory (metrics.pprof, metrics on and unscraped)")
	)
	flag.Parse()
	if *ceilServe != "" {
		serveCeiling(*ceilServe)
		return
	}
	if *writeServe != "" {
		serveWriteCeiling(*writeServe)
		return
	}
	if (*bin == "") == (*base == "") {
		fatalf("give -bin or -url")
	}
	if *replicas < 1 || (*replicas > 1 && *pgURL == "") || ((*replicas > 1 || *pgURL != "") && *bin == "") {
		fatalf("-replicas above 1 needs -postgres, and both need -bin")
	}
	var srv *servers
	var srvCfg serversConfig
	var addrs []string
	var pids []int
	if *bin != "" {
		var err error
		srvCfg = serversConfig{bin: *bin, dir: *dataDir, logLevel: *logLevel, replicas: *replicas, postgres: *pgURL}
		if *obsProfile != "" || *ceilProfile != "" {
			// Profiles come from the metrics listener: off gets one too
			// (its families counted, never scraped).
			srvCfg.profileAddr = freeAddr()
			srvCfg.env = append(srvCfg.env, "SENDLATER_METRICS_ADDR="+srvCfg.profileAddr, "SENDLATER_METRICS_PPROF=true")
		}
		srv, err = startServers(srvCfg)
		if err != nil {
			fatalf("start servers: %v", err)
		}
		defer srv.stop()
		*base, addrs, pids = srv.list[0].url, srv.addrs(), srv.pids()
	} else {
		u, err := url.Parse(*base)
		if err != nil || u.Host == "" {
			fatalf("bad -url %q", *base)
		}
		addrs = []string{u.Host}
		if *pid != 0 {
			pids = []int{*pid}
		}
	}
	store := "bbolt"
	if *pgURL != "" {
		store = "PostgreSQL"
	}
	fmt.Printf("loadgen: %d × %s on %s, %d connections, %s per scenario after %s warm-up, GOMAXPROCS of this machine: %d CPUs\n",
		len(addrs), *base, store, *conns, *duration, *warmup, numCPU())
	if len(pids) > 0 {
		time.Sleep(time.Second)
		fmt.Printf("server RSS idle after start: %.1f MiB (anonymous %.1f MiB)\n", mib(rss(pids)), mib(rssAnon(pids)))
	}

	setup, err := prepare(*base, srv)
	if err != nil {
		fatalf("setup: %v", err)
	}
	if len(pids) > 0 {
		time.Sleep(time.Second)
		fmt.Printf("server RSS idle after setup: %.1f MiB (anonymous %.1f MiB)\n", mib(rss(pids)), mib(rssAnon(pids)))
	}
	fmt.Printf("\n%-34s %9s %8s %10s %8s %8s %8s %10s %10s %8s\n", "scenario", "requests", "errors", "req/s", "p50 ms", "p99 ms", "max ms", "peak RSS", "anonymous", "CPU µs")
	for _, name := range strings.Split(*scenarios, ",") {
		var label string
		var run func(d time.Duration) result // one scenario for d
		switch name {
		case "list":
			label = fmt.Sprintf("GET /api/messages (20), c=%d", *conns)
			req := request("GET", "/api/messages", setup.listToken, nil)
			run = func(d time.Duration) result { return closedLoop(addrs, *conns, d, req) }
		case "create":
			label = fmt.Sprintf("POST /api/messages, c=%d", *conns)
			req := request("POST", "/api/messages", setup.createToken, createBody)
			run = func(d time.Duration) result { return closedLoop(addrs, *conns, d, req) }
		case "create-rate":
			label = fmt.Sprintf("POST /api/messages, %g/s", *createRate)
			req := request("POST", "/api/messages", setup.createToken, createBody)
			run = func(d time.Duration) result { return openLoop(addrs, *conns, *createRate, d, req) }
		case "signin":
			label = fmt.Sprintf("POST /api/auth/signin, %g/s", *signinRate)
			body, _ := json.Marshal(map[string]string{"email": setup.signinEmail, "password": password})
			req := request("POST", "/api/auth/signin", "", body)
			run = func(d time.Duration) result { return openLoop(addrs, *conns, *signinRate, d, req) }
		case "signin-2fa":
			label = fmt.Sprintf("sign-in + second factor, %g/s", *signinRate)
			var pool *factorPool
			run = func(d time.Duration) result {
				if pool == nil {
					n := int(*signinRate*(warmup.Seconds()+duration.Seconds()))/11 + 2
					accounts, err := factorAccounts(*base, min(n, 45))
					if err != nil {
						fatalf("signin-2fa setup: %v", err)
					}
					pool = &factorPool{accounts: accounts}
				}
				return twoStepLoop(*base, pool, *conns, *signinRate, d)
			}
		case "attach-rss":
			attachRSS(*base, srv, pids, *rounds)
			continue
		case "attach-concurrent":
			attachConcurrent(*base, srv, addrs, pids, setup.listToken, *conns, *warmup, *duration)
			continue
		case "signin-burst":
			signinBurst(addrs, pids, setup.signinEmail, *burst, *burstIdle)
			continue
		case "ceiling":
			runCeiling(*base, addrs, pids, setup.listToken, *conns, *rounds, *warmup, *duration,
				ceilingOptions{only: *ceilReads, profileAddr: srvCfg.profileAddr, profileDir: *ceilProfile})
			continue
		case "observe":
			if srv == nil {
				fatalf("the observe scenario needs -bin")
			}
			cfg := srvCfg
			cfg.dir = "" // a data directory of its own
			if *obsOn != "both" && *obsOn != "metrics" && *obsOn != "tracing" {
				fatalf("-observe-on: both, metrics or tracing")
			}
			cfg.env, cfg.profileAddr = nil, ""
			runObserve(srv, setup, cfg, observeOptions{ratio: *obsRatio, conns: *conns, rounds: *rounds,
				warmup: *warmup, d: *duration, offProfile: srvCfg.profileAddr, profileDir: *obsProfile, together: *obsTogether, on: *obsOn})
			continue
		case "write-ceiling":
			if srv == nil {
				fatalf("the write-ceiling scenario needs -bin")
			}
			runWriteCeiling(srv, addrs, pids, setup.createToken, *conns, *rounds, *warmup, *duration)
			continue
		case "streams":
			if srv == nil {
				fatalf("the streams scenario needs -bin")
			}
			label = fmt.Sprintf("GET /api/messages beside %d streams", *streams)
			var heavy *heavyUser
			run = func(d time.Duration) result {
				if heavy == nil {
					var err error
					if heavy, err = prepareHeavy(*base, srv, *heavyList); err != nil {
						fatalf("streams: %v", err)
					}
				}
				return heavy.streams(addrs, *base, setup.listToken, *streams, *conns, d)
			}
		case "deliver":
			if srv == nil || srv.pg == nil {
				fatalf("the deliver scenario needs -bin and -postgres")
			}
			label = fmt.Sprintf("deliver %d due (p = arrival)", *deliveries)
			warm := true
			run = func(time.Duration) result {
				n := *deliveries
				if warm { // the warm-up delivers a tenth
					n, warm = max(1, n/10), false
				}
				res, dups := srv.deliver(n)
				if dups > 0 {
					fmt.Printf("  %d duplicate copies\n", dups)
				}
				return res
			}
		default:
			fatalf("unknown scenario %q", name)
		}
		mem := watchRSS(pids)
		run(*warmup)
		mem.reset()
		cpu := cpuTime(pids)
		res := run(*duration)
		cpu = cpuTime(pids) - cpu
		peak, anon := mem.stop()
		fmt.Printf("%-34s %9d %8d %10.0f %8.2f %8.2f %8.2f %10s %10s %8s\n", label, res.n, res.errors,
			float64(res.n)/res.elapsed.Seconds(), ms(res.pct(50)), ms(res.pct(99)), ms(res.pct(100)), fmtMiB(peak), fmtMiB(anon),
			perRequest(cpu, res.n, len(pids) > 0))
		if res.firstError != "" {
			fmt.Printf("  first error: %s\n", res.firstError)
		}
	}
	if len(pids) > 0 {
		time.Sleep(2 * time.Second)
		fmt.Printf("\nserver RSS after the load: %.1f MiB (anonymous %.1f MiB)\n", mib(rss(pids)), mib(rssAnon(pids)))
	}
}

// perRequest is the servers' CPU time per request in µs, "-" without their
// pids.
func perRequest(cpu time.Duration, n int, known bool) string {
	if !known || n == 0 {
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

// Command loadgen measures the JSON API under load, as docs/benchmarks.md
// reports it: requests per second and latency percentiles of authenticated
// GET /api/messages (20 messages), POST /api/messages and sign-in, and the
// server's resident memory idle and under load.
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
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
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
	fmt.Printf("\n%-34s %9s %8s %10s %8s %8s %8s %10s %10s\n", "scenario", "requests", "errors", "req/s", "p50 ms", "p99 ms", "max ms", "peak RSS", "anonymous")
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
		res := run(*duration)
		peak, anon := mem.stop()
		fmt.Printf("%-34s %9d %8d %10.0f %8.2f %8.2f %8.2f %10s %10s\n", label, res.n, res.errors,
			float64(res.n)/res.elapsed.Seconds(), ms(res.pct(50)), ms(res.pct(99)), ms(res.pct(100)), fmtMiB(peak), fmtMiB(anon))
		if res.firstError != "" {
			fmt.Printf("  first error: %s\n", res.firstError)
		}
	}
	if *pid != 0 {
		time.Sleep(2 * time.Second)
		fmt.Printf("\nserver RSS after the load: %.1f MiB (anonymous %.1f MiB)\n", mib(rss(*pid)), mib(rssAnon(*pid)))
	}
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

// server is a `sendlater serve` started by loadgen.
type server struct {
	bin, dir string
	temp     bool
	env      []string
	cmd      *exec.Cmd
	url      string
}

func startServer(bin, dir, logLevel string) (*server, error) {
	s := &server{bin: bin, dir: dir}
	if dir == "" {
		d, err := os.MkdirTemp("", "sendlater-loadgen-")
		if err != nil {
			return nil, err
		}
		s.dir, s.temp = d, true
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	s.url = "http://" + addr
	s.env = append(os.Environ(),
		"SENDLATER_DATA_DIR="+filepath.Join(s.dir, "data"),
		"SENDLATER_ADDR="+addr,
		"SENDLATER_BASE_URL="+s.url,
		"SENDLATER_LOG_LEVEL="+logLevel,
	)
	s.cmd = exec.Command(bin, "serve")
	s.cmd.Env = s.env
	logFile, err := os.Create(filepath.Join(s.dir, "serve.log"))
	if err != nil {
		return nil, err
	}
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(s.url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("no healthy server on %s after 15s (log: %s)", s.url, logFile.Name())
		}
	}
}

// cli runs a sendlater subcommand against the server's data directory (it
// goes through the admin socket).
func (s *server) cli(args ...string) error {
	cmd := exec.Command(s.bin, args...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("sendlater %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	if s.temp {
		os.RemoveAll(s.dir)
	}
}

// setup is what the scenarios need: users, their tokens, the 20 messages.
type setup struct {
	listToken, createToken, signinEmail string
}

func prepare(base string, srv *server) (*setup, error) {
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	email := func(who string) string { return who + "-" + stamp + "@loadgen.test" }
	var st setup
	var err error
	listEmail, createEmail := email("list"), email("create")
	st.signinEmail = email("signin")
	if st.listToken, err = signUp(base, listEmail); err != nil {
		return nil, err
	}
	if st.createToken, err = signUp(base, createEmail); err != nil {
		return nil, err
	}
	if _, err = signUp(base, st.signinEmail); err != nil {
		return nil, err
	}
	if srv != nil {
		for _, e := range []string{listEmail, createEmail} {
			if err := srv.cli("users", "set-plan", e, "pro"); err != nil {
				return nil, err
			}
		}
	} else {
		fmt.Printf("grant the Pro plan now: sendlater users set-plan %s pro; sendlater users set-plan %s pro\n"+
			"then press Enter\n", listEmail, createEmail)
		fmt.Scanln()
	}
	for i := range 20 {
		body, _ := json.Marshal(map[string]string{
			"title": fmt.Sprintf("Message %d", i+1), "name": "Ann", "recipient": "ann@example.com",
			"message": strings.Repeat("A letter for the future. ", 20), "interval": "12M",
		})
		if _, err := call(base, "POST", "/api/messages", st.listToken, body); err != nil {
			return nil, fmt.Errorf("message %d: %w", i+1, err)
		}
	}
	return &st, nil
}

func signUp(base, email string) (string, error) {
	body, _ := json.Marshal(map[string]string{"email": email, "password": password})
	data, err := call(base, "POST", "/api/auth/signup", "", body)
	if err != nil {
		return "", err
	}
	var t struct {
		IDToken string `json:"idToken"`
	}
	if err := json.Unmarshal(data, &t); err != nil || t.IDToken == "" {
		return "", fmt.Errorf("sign-up reply %s", data)
	}
	return t.IDToken, nil
}

// call makes one API request with net/http and returns the envelope's data.
func call(base, method, path, token string, body []byte) (json.RawMessage, error) {
	req, err := http.NewRequest(method, base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var env struct {
		Status, Code, Message string
		Data                  json.RawMessage
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return nil, fmt.Errorf("%s %s: %d, no envelope", method, path, resp.StatusCode)
	}
	if env.Status != "success" {
		return nil, fmt.Errorf("%s %s: %d %s %s", method, path, resp.StatusCode, env.Code, env.Message)
	}
	return env.Data, nil
}

// request is the raw bytes of one HTTP/1.1 request.
func request(method, path, token string, body []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: loadgen\r\nUser-Agent: sendlater-loadgen\r\n", method, path)
	if token != "" {
		fmt.Fprintf(&b, "Authorization: Bearer %s\r\n", token)
	}
	if body != nil {
		fmt.Fprintf(&b, "Content-Type: application/json\r\nContent-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes()
}

// conn is one keep-alive connection.
type conn struct {
	addr string
	c    net.Conn
	r    *bufio.Reader
}

// do sends req and reads the whole reply; it redials a closed connection.
func (c *conn) do(req []byte) (int, error) {
	if c.c == nil {
		nc, err := net.Dial("tcp", c.addr)
		if err != nil {
			return 0, err
		}
		c.c, c.r = nc, bufio.NewReaderSize(nc, 64<<10)
	}
	if _, err := c.c.Write(req); err != nil {
		c.close()
		return 0, err
	}
	status, err := readReply(c.r)
	if err != nil {
		c.close()
	}
	return status, err
}

func (c *conn) close() {
	if c.c != nil {
		c.c.Close()
		c.c = nil
	}
}

// readReply reads one HTTP/1.1 reply, with a Content-Length or chunked body,
// and returns its status.
func readReply(r *bufio.Reader) (int, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, err
	}
	length, chunked := -1, false
	for {
		h, err := r.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if len(h) <= 2 {
			break
		}
		k, v, ok := bytes.Cut(h, []byte(":"))
		if !ok {
			continue
		}
		v = bytes.TrimSpace(v)
		switch {
		case asciiEqualFold(k, "content-length"):
			if length, err = strconv.Atoi(string(v)); err != nil {
				return 0, err
			}
		case asciiEqualFold(k, "transfer-encoding"):
			chunked = asciiEqualFold(v, "chunked")
		}
	}
	if !chunked {
		if length < 0 {
			return 0, errors.New("reply without length")
		}
		_, err := r.Discard(length)
		return status, err
	}
	for {
		sz, err := r.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(sz)), 16, 64)
		if err != nil {
			return 0, err
		}
		if n == 0 {
			for { // trailers, then the blank line
				t, err := r.ReadSlice('\n')
				if err != nil {
					return 0, err
				}
				if len(t) <= 2 {
					return status, nil
				}
			}
		}
		if _, err := r.Discard(int(n) + 2); err != nil {
			return 0, err
		}
	}
}

func asciiEqualFold(b []byte, s string) bool { return strings.EqualFold(string(b), s) }

// result is one scenario's outcome.
type result struct {
	n, errors  int
	elapsed    time.Duration
	latencies  []time.Duration // sorted
	firstError string
}

func (r *result) pct(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	i := int(float64(len(r.latencies))*p/100+0.5) - 1
	return r.latencies[max(0, min(i, len(r.latencies)-1))]
}

// collector gathers the workers' samples.
type collector struct {
	mu        sync.Mutex
	res       result
	latencies [][]time.Duration
}

func (c *collector) add(w *worker) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.latencies = append(c.latencies, w.lat)
	c.res.errors += w.errs
	if c.res.firstError == "" {
		c.res.firstError = w.firstErr
	}
}

// worker is one connection's share of a scenario: its latencies and errors.
type worker struct {
	lat      []time.Duration
	errs     int
	firstErr string
}

// send sends req on c and records its latency from since and its outcome.
func (w *worker) send(c *conn, req []byte, since time.Time) {
	status, err := c.do(req)
	w.lat = append(w.lat, time.Since(since))
	if err != nil || status >= 300 {
		w.errs++
		if w.firstErr == "" {
			w.firstErr = describeFailure(status, err)
		}
	}
}

func (c *collector) result(elapsed time.Duration) result {
	r := c.res
	for _, l := range c.latencies {
		r.latencies = append(r.latencies, l...)
	}
	slices.Sort(r.latencies)
	r.n, r.elapsed = len(r.latencies), elapsed
	return r
}

func describeFailure(status int, err error) string {
	if err != nil {
		return err.Error()
	}
	return "HTTP " + strconv.Itoa(status)
}

// closedLoop runs conns workers sending req back to back for d.
func closedLoop(addr string, conns int, d time.Duration, req []byte) result {
	var col collector
	var wg sync.WaitGroup
	start := time.Now()
	end := start.Add(d)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &conn{addr: addr}
			defer c.close()
			w := &worker{lat: make([]time.Duration, 0, 4096)}
			for {
				t0 := time.Now()
				if !t0.Before(end) {
					break
				}
				w.send(c, req, t0)
			}
			col.add(w)
		}()
	}
	wg.Wait()
	return col.result(time.Since(start))
}

// openLoop sends rate requests per second on a fixed schedule for d, over at
// most conns connections at once; latency counts from the scheduled time.
func openLoop(addr string, conns int, rate float64, d time.Duration, req []byte) result {
	var col collector
	jobs := make(chan time.Time, conns*4)
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &conn{addr: addr}
			defer c.close()
			w := &worker{}
			for at := range jobs {
				if wait := time.Until(at); wait > 0 {
					time.Sleep(wait)
				}
				w.send(c, req, at)
			}
			col.add(w)
		}()
	}
	start := time.Now()
	interval := time.Duration(float64(time.Second) / rate)
	for at := start; at.Before(start.Add(d)); at = at.Add(interval) {
		jobs <- at
	}
	close(jobs)
	wg.Wait()
	return col.result(time.Since(start))
}

// rss is the resident memory of process pid in bytes (VmRSS), 0 if unknown.
func rss(pid int) int64 { return procStatus(pid, "VmRSS:") }

// rssAnon is the part of rss that is the process's own memory (heap, stacks):
// RssAnon. The rest is mostly the store's file, which bbolt maps and the
// kernel can reclaim at any time.
func rssAnon(pid int) int64 { return procStatus(pid, "RssAnon:") }

// procStatus reads one kB figure of /proc/<pid>/status in bytes, 0 if unknown.
func procStatus(pid int, key string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// rssWatch samples a process's resident memory and keeps the peak.
type rssWatch struct {
	peak, peakAnon atomic.Int64
	done           chan struct{}
	wg             sync.WaitGroup
}

func watchRSS(pid int) *rssWatch {
	w := &rssWatch{done: make(chan struct{})}
	if pid == 0 {
		return w
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			if v := rss(pid); v > w.peak.Load() {
				w.peak.Store(v)
			}
			if v := rssAnon(pid); v > w.peakAnon.Load() {
				w.peakAnon.Store(v)
			}
			select {
			case <-w.done:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

func (w *rssWatch) reset() {
	w.peak.Store(0)
	w.peakAnon.Store(0)
}

// stop ends the watch and returns the peaks of RSS and of its anonymous part.
func (w *rssWatch) stop() (peak, anon int64) {
	close(w.done)
	w.wg.Wait()
	return w.peak.Load(), w.peakAnon.Load()
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func fmtMiB(b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f MiB", mib(b))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

package main

// The ceiling: what the machine allows for a read of the API. A bare
// net/http server in a process of its own (loadgen started again with
// -ceiling-serve) answers GET /api/messages, GET /api/me and GET
// /api/messages/{id} with the bytes the real server gave for them (status,
// headers, security headers included, and body), after the same bearer
// check: the token must be the one the reads send. Each read is measured
// twice: by a client that takes no compression, and by one that takes gzip
// (as every browser and Go's HTTP client do), the bare server then
// answering with exactly the gzipped bytes the real one sent, compressed
// ahead (its limit). The ceiling scenario runs it and the real server
// alternately, each read in turn, and prints each one's req/s and p99 and
// their ratio.

import (
	"bufio"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// reply is what the real server answered to one read, as the bare handler
// replays it.
type reply struct {
	Status int                 `json:"status"`
	Header map[string][]string `json:"header"`
	Body   []byte              `json:"body"`
}

// ceilingSpec is what the bare server serves: the token it accepts and the
// reply of each path (under path + gzipVariant, the reply to a client
// that takes gzip).
type ceilingSpec struct {
	Token   string            `json:"token"`
	Replies map[string]*reply `json:"replies"`
}

// ceilingReads are the three reads measured against the ceiling.
func ceilingReads(base, token string) ([]string, error) {
	data, err := call(base, "GET", "/api/messages", token, nil)
	if err != nil {
		return nil, err
	}
	var list []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(data, &list); err != nil || len(list) == 0 {
		return nil, fmt.Errorf("no message in the list: %.200s", data)
	}
	return []string{"/api/messages", "/api/me", "/api/messages/" + list[0].ID}, nil
}

// gzipVariant names, in a ceilingSpec, the reply to a client taking gzip.
const gzipVariant = " gzip"

// acceptGzip is the header line of a load client that takes gzip.
const acceptGzip = "Accept-Encoding: gzip"

// capture asks the real server for path as the load's client does, taking
// gzip or not, and keeps the reply as it came (still compressed).
func capture(base, path, token string, gzip bool) (*reply, error) {
	req, err := http.NewRequest("GET", base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if gzip {
		req.Header.Set("Accept-Encoding", "gzip") // set by hand: the transport leaves the body as it came
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	h := resp.Header.Clone()
	for _, k := range []string{"Date", "X-Request-Id"} {
		h.Del(k) // net/http writes Date; the id is per request
	}
	// Content-Length stays: net/http computes it only for a reply that fits
	// its buffer (2 KiB) and sends a larger one without it chunked, where
	// the real server sends its Content-Length (the list of 20 plain, 10
	// KiB): the bare server's bytes would not be the real one's.
	if resp.ContentLength >= 0 {
		h.Set("Content-Length", strconv.FormatInt(resp.ContentLength, 10))
	}
	return &reply{Status: resp.StatusCode, Header: h, Body: body}, nil
}

// ceilingServer is the bare server's process.
type ceilingServer struct {
	cmd  *exec.Cmd
	addr string
}

// startCeiling starts loadgen again as the bare server of spec.
func startCeiling(spec *ceilingSpec) (*ceilingServer, error) {
	return startBare("-ceiling-serve", spec)
}

// startBare starts loadgen again with flag and a file holding spec, and
// reads the bare server's address from its first line.
func startBare(flag string, spec any) (*ceilingServer, error) {
	f, err := os.CreateTemp("", "loadgen-bare-*.json")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if err := json.NewEncoder(f).Encode(spec); err != nil {
		return nil, err
	}
	f.Close()
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, flag, f.Name())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		return nil, fmt.Errorf("ceiling server: %v", err)
	}
	return &ceilingServer{cmd: cmd, addr: strings.TrimSpace(line)}, nil
}

func (c *ceilingServer) stop() {
	c.cmd.Process.Kill()
	c.cmd.Wait()
}

// serveCeiling is the bare server: -ceiling-serve FILE. It prints its
// address, then serves until killed.
func serveCeiling(file string) {
	b, err := os.ReadFile(file)
	if err != nil {
		fatalf("ceiling: %v", err)
	}
	var spec ceilingSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		fatalf("ceiling: %v", err)
	}
	want := []byte(spec.Token)
	mux := http.NewServeMux()
	for path, plain := range spec.Replies {
		if strings.HasSuffix(path, gzipVariant) {
			continue
		}
		gzipped := spec.Replies[path+gzipVariant]
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			if !bearerOK(w, r, want) {
				return
			}
			rep := plain
			if gzipped != nil && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				rep = gzipped
			}
			rep.write(w)
		})
	}
	serveBare("ceiling", mux)
}

// bearerOK reports whether r carries the bearer token want, as the real
// server checks it, and answers 401 when it does not.
func bearerOK(w http.ResponseWriter, r *http.Request, want []byte) bool {
	h := r.Header.Get("Authorization")
	if len(h) >= 7 && strings.EqualFold(h[:7], "bearer ") &&
		subtle.ConstantTimeCompare([]byte(strings.TrimSpace(h[7:])), want) == 1 {
		return true
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	w.Write([]byte(`{"status":"error","code":"auth/invalid-user-token","message":"Please sign in."}`))
	return false
}

// write replays rep.
func (rep *reply) write(w http.ResponseWriter) {
	wh := w.Header()
	for k, v := range rep.Header {
		wh[k] = v
	}
	w.WriteHeader(rep.Status)
	w.Write(rep.Body)
}

// serveBare prints the address of a new loopback listener, then serves h
// on it until killed.
func serveBare(name string, h http.Handler) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatalf("%s: %v", name, err)
	}
	fmt.Println(ln.Addr().String())
	fatalf("%s: %v", name, http.Serve(ln, h))
}

// ceilingOptions narrow the ceiling scenario: only the reads named in
// only, comma-separated (list, list-gzip, me, me-gzip, message,
// message-gzip; all: empty), and with a
// profile directory a CPU profile of each real run, from the metrics
// listener profileAddr (ceiling-me-gzip-real-1.pprof).
type ceilingOptions struct {
	only                    string
	profileAddr, profileDir string
}

// wants reports whether the read named name is measured.
func (o ceilingOptions) wants(name string) bool {
	if o.only == "" {
		return true
	}
	for w := range strings.SplitSeq(o.only, ",") {
		if strings.TrimSpace(w) == profileName(name) {
			return true
		}
	}
	return false
}

// runCeiling measures the three reads on the bare server and on the real
// one (addrs, pids), alternately, rounds times, d each after warmup.
func runCeiling(base string, addrs []string, pids []int, token string, conns, rounds int, warmup, d time.Duration, o ceilingOptions) {
	paths, err := ceilingReads(base, token)
	if err != nil {
		fatalf("ceiling: %v", err)
	}
	spec := &ceilingSpec{Token: token, Replies: map[string]*reply{}}
	for _, p := range paths {
		if spec.Replies[p], err = capture(base, p, token, false); err != nil {
			fatalf("ceiling: %v", err)
		}
		if spec.Replies[p+gzipVariant], err = capture(base, p, token, true); err != nil {
			fatalf("ceiling: %v", err)
		}
	}
	bare, err := startCeiling(spec)
	if err != nil {
		fatalf("ceiling: %v", err)
	}
	defer bare.stop()
	names := []string{"GET /api/messages (20)", "GET /api/me", "GET /api/messages/{id}"}
	fmt.Printf("\nceiling: a bare net/http server (pid %d, same bytes, bearer check, headers) and the real one, alternately, c=%d\n",
		bare.cmd.Process.Pid, conns)
	fmt.Printf("%-31s %5s %-7s %10s %8s %8s %8s %9s %9s %9s\n", "read", "round", "server", "req/s", "p50 ms", "p99 ms", "CPU µs", "req/s %", "p99 ×", "CPU %")
	type read struct {
		name string
		req  []byte
	}
	var reads []read
	for i, p := range paths {
		for _, rd := range []read{{names[i], request("GET", p, token, nil)},
			{names[i] + " gzip", request("GET", p, token, nil, acceptGzip)}} {
			if o.wants(rd.name) {
				reads = append(reads, rd)
			}
		}
	}
	if o.profileDir != "" {
		if err := os.MkdirAll(o.profileDir, 0o755); err != nil {
			fatalf("ceiling: %v", err)
		}
	}
	for round := 1; round <= rounds; round++ {
		for _, rd := range reads {
			profile := ""
			if o.profileDir != "" && o.profileAddr != "" {
				profile = filepath.Join(o.profileDir, fmt.Sprintf("ceiling-%s-real-%d.pprof", profileName(rd.name), round))
			}
			measurePair(rd.name, round, bare, addrs, pids, conns, warmup, d, rd.req, o.profileAddr, profile)
		}
	}
}

// measurePair runs req on the bare server, then on the real one (addrs,
// pids), d each after warmup, and prints one line each: req/s, p50, p99,
// CPU per request (to a tenth of a µs: /proc counts in hundredths of a
// second, a few hundred of them a run), and the real one's share of the
// bare one's req/s, its p99 over the bare one's and the bare one's CPU per
// request over the real one's (the share the machine's load moves least).
//
// With a profile file, a CPU profile of the real one's measured run is
// written there from the metrics listener profileAddr.
func measurePair(name string, round int, bare *ceilingServer, addrs []string, pids []int, conns int, warmup, d time.Duration, req []byte, profileAddr, profile string) {
	var ceil result
	var ceilCPU float64 // µs per request
	for _, who := range []struct {
		name  string
		addrs []string
		pids  []int
	}{{"ceiling", []string{bare.addr}, []int{bare.cmd.Process.Pid}}, {"real", addrs, pids}} {
		closedLoop(who.addrs, conns, warmup, req)
		wait := func() {}
		if who.name == "real" && profile != "" {
			wait = cpuProfile(profileAddr, d, profile)
		}
		cpu := cpuTime(who.pids)
		res := closedLoop(who.addrs, conns, d, req)
		cpu = cpuTime(who.pids) - cpu
		wait()
		rate := float64(res.n) / res.elapsed.Seconds()
		ratio, tail, cpuShare := "", "", ""
		perReq, cpuText := 0.0, "-"
		if res.n > 0 && len(who.pids) > 0 {
			perReq = float64(cpu.Microseconds()) / float64(res.n)
			cpuText = fmt.Sprintf("%.1f", perReq)
		}
		if who.name == "ceiling" {
			ceil, ceilCPU = res, perReq
		} else {
			ratio = fmt.Sprintf("%.0f%%", 100*rate/(float64(ceil.n)/ceil.elapsed.Seconds()))
			tail = fmt.Sprintf("%.2f", float64(res.pct(99))/float64(max(1, ceil.pct(99))))
			if perReq > 0 && ceilCPU > 0 {
				cpuShare = fmt.Sprintf("%.0f%%", 100*ceilCPU/perReq)
			}
		}
		fmt.Printf("%-31s %5d %-7s %10.0f %8.2f %8.2f %8s %9s %9s %9s\n", name, round, who.name, rate,
			ms(res.pct(50)), ms(res.pct(99)), cpuText, ratio, tail, cpuShare)
		if res.errors > 0 {
			fmt.Printf("  %d errors, first: %s\n", res.errors, res.firstError)
		}
	}
}

// profileName is a read's name as a file name's part: "GET /api/me gzip"
// is "me-gzip", "GET /api/messages/{id}" "message".
func profileName(name string) string {
	switch {
	case strings.Contains(name, "{id}"):
		name = strings.Replace(name, "GET /api/messages/{id}", "message", 1)
	case strings.Contains(name, "(20)"):
		name = strings.Replace(name, "GET /api/messages (20)", "list", 1)
	default:
		name = strings.Replace(name, "GET /api/me", "me", 1)
	}
	return strings.ReplaceAll(name, " ", "-")
}

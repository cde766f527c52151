package inbound_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// The DSN sender runs in a process of its own (this test binary run again
// with senderEnv set, as TestDSNSender), as a real MTA would: its CPU is
// not the server's (getrusage of each process tells them apart), and its
// goroutines and garbage do not share the server's scheduler and
// collector. It keeps one SMTP session per connection for all its DSNs,
// and sends the whole DSN (Postfix's shape, 2 KB) each time: the server's
// work per DSN is a real one's.
const senderEnv = "SENDLATER_BENCH_DSN_SENDER"

// senderNiceEnv set to 0 runs the sender at the server's priority.
const senderNiceEnv = "SENDLATER_BENCH_SENDER_NICE"

// sinkAddr, as a sender's address, sends its DSNs to a sink of its own.
const sinkAddr = "sink"

// sink is an SMTP server that reads each email and drops it.
type sink struct{}

func (sink) NewSession(*smtp.Conn) (smtp.Session, error) { return sink{}, nil }
func (sink) Mail(string, *smtp.MailOptions) error        { return nil }
func (sink) Rcpt(string, *smtp.RcptOptions) error        { return nil }
func (sink) Data(r io.Reader) error                      { _, err := io.Copy(io.Discard, r); return err }
func (sink) Reset()                                      {}
func (sink) Logout() error                               { return nil }

type senderSpec struct {
	Addr    string `json:"addr"`
	Fixture string `json:"fixture"` // the DSN, a whole email
	Paths   string `json:"paths"`   // a file of return paths, one a line: one DSN each
	Clients int    `json:"clients"`
	Rate    int    `json:"rate"` // DSNs a second in all; 0: as fast as they go
}

// TestDSNSender is the benchmarks' DSN sender, not a test: it skips unless
// a benchmark runs it. It dials its connections, says "ready", waits for
// "go" on stdin, sends one DSN to each path (the i-th at i/Rate seconds
// after "go", catching up when late, as a queue does) until all are sent
// or stdin closes, and says "sent N".
func TestDSNSender(t *testing.T) {
	raw := os.Getenv(senderEnv)
	if raw == "" {
		t.Skip("the DSN sender of the benchmarks in bench_test.go")
	}
	var spec senderSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		t.Fatal(err)
	}
	dsn, err := os.ReadFile(spec.Fixture)
	if err != nil {
		t.Fatal(err)
	}
	list, err := os.ReadFile(spec.Paths)
	if err != nil {
		t.Fatal(err)
	}
	paths := strings.Fields(string(list))
	addr := spec.Addr
	if addr == sinkAddr {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := smtp.NewServer(sink{})
		srv.Domain, srv.MaxRecipients = "sink.example.net", 10
		go srv.Serve(ln)
		defer srv.Close()
		addr = ln.Addr().String()
	}
	payload := dataPayload(dsn)
	clients := make([]*mta, spec.Clients)
	for i := range clients {
		if clients[i], err = dialMTA(addr, "sender.example.net"); err != nil {
			t.Fatal(err)
		}
		defer clients[i].close()
	}
	fmt.Println("ready")
	in := bufio.NewReader(os.Stdin)
	if _, err := in.ReadString('\n'); err != nil {
		t.Fatal("no go:", err)
	}
	stop := make(chan struct{})
	go func() { io.Copy(io.Discard, in); close(stop) }()
	start := time.Now()
	var next, sent atomic.Int64
	var wg sync.WaitGroup
	for _, cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(len(paths)) {
					return
				}
				if spec.Rate > 0 {
					if wait := time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(spec.Rate))); wait > 0 {
						select {
						case <-time.After(wait):
						case <-stop:
							return
						}
					}
				}
				select {
				case <-stop:
					return
				default:
				}
				if err := cl.send(paths[i], payload); err != nil {
					t.Error(err)
					return
				}
				sent.Add(1)
			}
		}()
	}
	wg.Wait()
	fmt.Printf("sent %d\n", sent.Load())
}

// mta is the sender's SMTP client, as a mail server's: it pipelines
// (RFC 2920, which the listener announces) MAIL, RCPT and DATA in one
// write, then sends the message, ready dot-stuffed from its queue, in
// another: two round trips a DSN, as Postfix and Exim send to a server
// announcing PIPELINING, where go-smtp's client takes four.
type mta struct {
	conn net.Conn
	w    *bufio.Writer
	r    *textproto.Reader
}

func dialMTA(addr, helo string) (*mta, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	m := &mta{conn: conn, w: bufio.NewWriter(conn), r: textproto.NewReader(bufio.NewReader(conn))}
	if _, _, err := m.r.ReadResponse(220); err != nil {
		conn.Close()
		return nil, err
	}
	fmt.Fprintf(m.w, "EHLO %s\r\n", helo)
	if err := m.w.Flush(); err != nil {
		conn.Close()
		return nil, err
	}
	_, caps, err := m.r.ReadResponse(250)
	if err == nil && !strings.Contains(caps, "PIPELINING") {
		err = fmt.Errorf("the server does not announce PIPELINING: %q", caps)
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	return m, nil
}

// send sends one message with the null return path to rcpt; payload is
// the message dot-stuffed, ending in CRLF.CRLF (dataPayload).
func (m *mta) send(rcpt string, payload []byte) error {
	fmt.Fprintf(m.w, "MAIL FROM:<>\r\nRCPT TO:<%s>\r\nDATA\r\n", rcpt)
	if err := m.w.Flush(); err != nil {
		return err
	}
	for _, code := range []int{250, 250, 354} {
		if _, _, err := m.r.ReadResponse(code); err != nil {
			return err
		}
	}
	m.w.Write(payload)
	if err := m.w.Flush(); err != nil {
		return err
	}
	_, _, err := m.r.ReadResponse(250)
	return err
}

func (m *mta) close() {
	fmt.Fprintf(m.w, "QUIT\r\n")
	m.w.Flush()
	m.r.ReadResponse(221)
	m.conn.Close()
}

// dataPayload is msg as DATA sends it: CRLF line ends, lines starting
// with a dot doubled, and the final CRLF.CRLF.
func dataPayload(msg []byte) []byte {
	var b bytes.Buffer
	w := textproto.NewWriter(bufio.NewWriter(&b))
	dw := w.DotWriter()
	dw.Write(msg)
	dw.Close()
	return b.Bytes()
}

// sender is a running TestDSNSender.
type sender struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
	paths int
}

// startSender starts a sender of one DSN to each of paths over clients
// connections at rate a second (0: as fast as they go) to the listener at
// addr, and waits until its connections are open.
func startSender(b *testing.B, addr string, paths []string, clients, rate int) *sender {
	b.Helper()
	dir := b.TempDir()
	list := filepath.Join(dir, "paths")
	if err := os.WriteFile(list, []byte(strings.Join(paths, "\n")), 0o600); err != nil {
		b.Fatal(err)
	}
	fixturePath, err := filepath.Abs(fixturePath("postfix-hard.eml"))
	if err != nil {
		b.Fatal(err)
	}
	spec, _ := json.Marshal(senderSpec{Addr: addr, Fixture: fixturePath, Paths: list, Clients: clients, Rate: rate})
	// Niced (unless SENDLATER_BENCH_SENDER_NICE=0): the sender stands
	// for remote mail servers, whose CPU is not this machine's; at the
	// server's priority it took the two cores from the deliveries as an
	// equal, which no remote MTA does. It still gets what the server
	// leaves, and a sender that fell behind shows in the DSNs' rate.
	args := []string{os.Args[0], "-test.run=^TestDSNSender$", "-test.count=1", "-test.bench=^$"}
	if os.Getenv(senderNiceEnv) != "0" {
		args = append([]string{"nice", "-n", "10"}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	// One P: the sender needs less than a core, and its idle Ps would
	// spin looking for work at each of its 500 wakeups a second, CPU
	// taken from the server beside it that a remote MTA does not take.
	cmd.Env = append(os.Environ(), senderEnv+"="+string(spec), "GOMAXPROCS=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	s := &sender{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout), paths: len(paths)}
	for s.out.Scan() {
		if s.out.Text() == "ready" {
			return s
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	b.Fatal("the DSN sender did not start")
	return nil
}

func (s *sender) begin(b *testing.B) {
	if _, err := io.WriteString(s.stdin, "go\n"); err != nil {
		b.Fatal(err)
	}
}

// finish stops the sender (when it has not sent everything yet; all:
// waits until it has) and returns how many DSNs it sent and its CPU time.
func (s *sender) finish(b *testing.B, all bool) (int, time.Duration) {
	b.Helper()
	if !all {
		s.stdin.Close()
	}
	defer s.stdin.Close()
	sent := -1
	for s.out.Scan() {
		if v, ok := strings.CutPrefix(s.out.Text(), "sent "); ok {
			sent, _ = strconv.Atoi(v)
		}
	}
	if err := s.cmd.Wait(); err != nil || sent < 0 {
		b.Fatalf("the DSN sender: %v (sent %d)", err, sent)
	}
	ru := s.cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return sent, time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuNow is this process's CPU time (user and system), all threads.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// dbCPUNow is the CPU time (user and system) of the processes named
// postgres on this machine, from /proc: the database server's, when it
// runs here (as the tests' does); 0 when there is none or no /proc. The
// kernel counts it in ticks (10 ms), which passes of seconds dwarf.
func dbCPUNow() time.Duration {
	dirs, _ := os.ReadDir("/proc")
	var ticks int64
	for _, d := range dirs {
		if d.Name()[0] < '0' || d.Name()[0] > '9' {
			continue
		}
		stat, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ...: comm may hold spaces, so split after ')'.
		open, end := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
		if open < 0 || end < open || string(stat[open+1:end]) != "postgres" {
			continue
		}
		f := strings.Fields(string(stat[end+1:]))
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64) // utime, field 14
		s, _ := strconv.ParseInt(f[12], 10, 64) // stime, field 15
		ticks += u + s
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

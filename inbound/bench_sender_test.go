package inbound_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
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
	clients := make([]*smtp.Client, spec.Clients)
	for i := range clients {
		if clients[i], err = smtp.Dial(addr); err != nil {
			t.Fatal(err)
		}
		if err := clients[i].Hello("sender.example.net"); err != nil {
			t.Fatal(err)
		}
		defer clients[i].Close()
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
				if err := cl.SendMail("", []string{paths[i]}, bytes.NewReader(dsn)); err != nil {
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
	cmd := exec.Command(os.Args[0], "-test.run=^TestDSNSender$", "-test.count=1", "-test.bench=^$")
	cmd.Env = append(os.Environ(), senderEnv+"="+string(spec))
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

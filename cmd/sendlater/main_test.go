package main_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/seal"
)

// binary is the sendlater binary built once for the tests, with a version
// set through the linker flags as `make build` does.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sendlater-bin-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "sendlater")
	build := exec.Command("go", "build", "-race", "-o", binary,
		"-ldflags", "-X main.version=v1.2.3 -X main.commit=abc123 -X main.date=2026-11-21T00:00:00Z", ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what a command printed and how it ended.
type result struct {
	stdout, stderr string
	code           int
}

// run runs sendlater in dir with the environment additions env.
func run(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	return runWithStdin(t, dir, env, "", args...)
}

// runWithStdin is run with stdin as the command's standard input.
func runWithStdin(t *testing.T, dir string, env []string, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Stdin = strings.NewReader(stdin)
	return runCmd(t, cmd, dir, env)
}

// runCmd runs cmd (sendlater) in dir with the environment additions env
// and returns what it printed and its exit code.
func runCmd(t *testing.T, cmd *exec.Cmd, dir string, env []string) result {
	t.Helper()
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// mustRun runs sendlater and fails the test when it exits non-zero.
func mustRun(t *testing.T, dir string, args ...string) result {
	t.Helper()
	r := run(t, dir, nil, args...)
	if r.code != 0 {
		t.Fatalf("sendlater %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// cleanEnv is the test's environment without SENDLATER_* variables, with
// raceExitSleep added to GORACE for the -race binary, and with the
// recipient domain check off: the tests do not ask the machine's resolver
// (a test of the check names its own DNS server after cleanEnv's).
func cleanEnv() []string {
	var env []string
	gorace := ""
	for _, kv := range os.Environ() {
		switch {
		case strings.HasPrefix(kv, "SENDLATER_"):
		case strings.HasPrefix(kv, "GORACE="):
			gorace = strings.TrimPrefix(kv, "GORACE=")
		default:
			env = append(env, kv)
		}
	}
	if !strings.Contains(gorace, "atexit_sleep_ms=") {
		gorace = strings.TrimSpace(gorace + " " + raceExitSleep)
	}
	return append(env, "GORACE="+gorace, "SENDLATER_MAIL_DNS_SERVER=off")
}

// raceExitSleep stops the race runtime's sleep of a second (its default
// atexit_sleep_ms=1000) before every exit with status 0 of the -race binary:
// the tests start well over a hundred commands and servers, and the sleep was
// most of their time. A race still makes the process exit 66 (run and stop check
// the exit status); only a race that would first happen in that last second,
// after main returned, goes unseen. A GORACE of the environment that sets
// atexit_sleep_ms itself is kept as it is.
const raceExitSleep = "atexit_sleep_ms=0"

// server is a running `sendlater serve`.
type server struct {
	cmd  *exec.Cmd
	url  string
	logs *syncBuffer
	done chan error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var servingAddr = regexp.MustCompile(`msg=serving addr=(\S+)`)

// startServer runs `sendlater serve` on a free port in dir and waits until it
// answers. It is stopped with SIGTERM at the end of the test.
func startServer(t *testing.T, dir string, env ...string) *server {
	t.Helper()
	cmd := exec.Command(binary, "serve", "--addr", "127.0.0.1:0")
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), env...)
	return startServerCmd(t, cmd)
}

// startServerCmd starts cmd, a `sendlater serve` made ready to run, and
// waits until it answers.
func startServerCmd(t *testing.T, cmd *exec.Cmd) *server {
	t.Helper()
	s, err := launchServer(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.stop(t) })
	return s
}

// launchServer starts cmd and waits until it says where it serves; the
// error carries serve's log when it exited or did not start in time.
func launchServer(cmd *exec.Cmd) (*server, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		pw.Close()
		pr.Close()
		return nil, err
	}
	pw.Close()
	s := &server{cmd: cmd, logs: &syncBuffer{}, done: make(chan error, 1)}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(s.logs, line)
			if m := servingAddr.FindStringSubmatch(line); m != nil {
				addr <- m[1]
			}
		}
	}()
	go func() { s.done <- cmd.Wait() }()
	select {
	case a := <-addr:
		s.url = "http://" + a
		return s, nil
	case err := <-s.done:
		return nil, fmt.Errorf("serve exited: %v\n%s", err, s.logs)
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-s.done
		return nil, fmt.Errorf("serve did not start\n%s", s.logs)
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (s *server) stop(t *testing.T) {
	t.Helper()
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("serve exited with %v\n%s", err, s.logs)
		}
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		t.Errorf("serve did not stop on SIGTERM\n%s", s.logs)
	}
}

// dataKey is the key of dir's data directory, created when missing as serve
// creates it.
func dataKey(t *testing.T, dir string) []byte {
	t.Helper()
	key, err := seal.LoadOrCreateKey(filepath.Join(dir, "data", "sendlater.key"))
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// openStore opens the store file at path under the key of dir's data
// directory, while no server holds it; the caller closes it.
func openStore(t *testing.T, dir, path string) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(path, bolt.Options{Key: dataKey(t, dir)})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// seed opens the store of dir directly (no server may run) and adds a user
// with two messages.
func seed(t *testing.T, dir string) (*core.User, []*core.Message) {
	t.Helper()
	db := openStore(t, dir, filepath.Join(dir, "data", "sendlater.db"))
	defer db.Close()
	return seedInto(t, db)
}

// seedInto adds a user with two messages to st.
func seedInto(t *testing.T, st interface {
	core.UserStore
	core.MessageStore
}) (*core.User, []*core.Message) {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	u := &core.User{ID: core.NewID(), Email: "Ada@Example.com", Name: "Ada Lovelace", Timezone: "Europe/London",
		Providers: []string{core.ProviderPassword}, CreatedAt: now, UpdatedAt: now}
	if err := st.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	var ms []*core.Message
	for i, body := range []string{"The key is under the blue pot.", "Second letter body"} {
		m := core.NewMessage(u.ID, core.MessageInput{Title: fmt.Sprintf("Letter %d", i+1), Name: "Charles",
			Recipient: "charles@example.com", Body: body}, now.Add(time.Duration(i)*time.Second), time.UTC)
		if err := st.CreateMessage(ctx, m, func(*core.User, bool) error { return nil }); err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	return u, ms
}

package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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
	cmd := exec.Command(binary, args...)
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

// cleanEnv is the test's environment without SENDLATER_* variables.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SENDLATER_") {
			env = append(env, kv)
		}
	}
	return env
}

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
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
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
	case err := <-s.done:
		t.Fatalf("serve exited: %v\n%s", err, s.logs)
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("serve did not start\n%s", s.logs)
	}
	t.Cleanup(func() { s.stop(t) })
	return s
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
	key, err := bolt.LoadOrCreateKey(filepath.Join(dir, "data", "sendlater.key"))
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
	ctx := context.Background()
	now := time.Now()
	u := &core.User{ID: core.NewID(), Email: "Ada@Example.com", Name: "Ada Lovelace", Timezone: "Europe/London",
		Providers: []string{core.ProviderPassword}, CreatedAt: now, UpdatedAt: now}
	if err := db.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	var ms []*core.Message
	for i, body := range []string{"The key is under the blue pot.", "Second letter body"} {
		m := core.NewMessage(u.ID, core.MessageInput{Title: fmt.Sprintf("Letter %d", i+1), Name: "Charles",
			Recipient: "charles@example.com", Body: body}, now.Add(time.Duration(i)*time.Second), time.UTC)
		if err := db.CreateMessage(ctx, m, func(*core.User, bool) error { return nil }); err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	return u, ms
}

func TestVersion(t *testing.T) {
	r := mustRun(t, t.TempDir(), "version")
	for _, want := range []string{"sendlater v1.2.3", "commit abc123", "built 2026-11-21T00:00:00Z"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("version output %q lacks %q", r.stdout, want)
		}
	}
}

func TestConfigPrecedenceAndMasking(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("app_name: FromFile\nbase_url: https://file.example\nmail:\n  smtp:\n    password: hunter2\n    port: 2525\n"), 0o600)
	r := run(t, dir, []string{"SENDLATER_APP_NAME=FromEnv", "SENDLATER_MAIL_SMTP_HOST=smtp.example"}, "config", "--data-dir", "/tmp/flagdir")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	for _, want := range []string{
		"app_name = FromEnv",              // env beats file
		"base_url = https://file.example", // file beats default
		"mail.smtp.port = 2525",           // nested file keys
		"mail.smtp.host = smtp.example",   // nested env keys
		"data_dir = /tmp/flagdir",         // flags beat all
		"mail.smtp.password = ********",   // secrets masked
		"addr = :8080",                    // defaults
	} {
		if !strings.Contains(r.stdout, want+"\n") {
			t.Errorf("config output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "hunter2") {
		t.Error("a secret was printed")
	}

	secret := filepath.Join(dir, "smtp-password")
	os.WriteFile(secret, []byte("from-a-file\n"), 0o600)
	r = run(t, dir, []string{"SENDLATER_MAIL_SMTP_PASSWORD_FILE=" + secret}, "config")
	if r.code != 0 || !strings.Contains(r.stdout, "mail.smtp.password = ********") {
		t.Errorf("password_file: %+v", r)
	}
}

func TestInvalidConfigNamesTheKey(t *testing.T) {
	tests := []struct {
		env  string
		want string
	}{
		{"SENDLATER_MAIL_SMTP_TLS=ssl", "mail.smtp.tls must be one of none, starttls, tls"},
		{"SENDLATER_BASE_URL=localhost:8080", "base_url must be an absolute http(s) URL"},
		{"SENDLATER_ADDR=8080", "addr must be host:port"},
		{"SENDLATER_MAIL_FROM=nobody", "mail.from must be an email address"},
		{"SENDLATER_MAIL_SMTP_PORT=70000", "mail.smtp.port must be between 1 and 65535"},
		{"SENDLATER_MAIL_SMTP_PORT=abc", "mail.smtp.port"},
		{"SENDLATER_ENCRYPTION_KEY=short", "encryption_key"},
		{"SENDLATER_MAIL_SMTP_PASSWORD_FILE=/nonexistent/file", "mail.smtp.password_file"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		r := run(t, dir, []string{tt.env}, "users", "list")
		if r.code == 0 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q, want it to say %q", tt.env, r.code, r.stderr, tt.want)
		}
	}
}

func TestWrongEncryptionKeyIsAClearError(t *testing.T) {
	dir := t.TempDir()
	seed(t, dir)
	r := run(t, dir, []string{"SENDLATER_ENCRYPTION_KEY=" + strings.Repeat("ab", 32)}, "messages", "list")
	if r.code == 0 || !strings.Contains(r.stderr, "key") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "Letter") {
		t.Fatal("printed data with the wrong key")
	}
}

func TestUsersAndMessagesWithoutAServer(t *testing.T) {
	dir := t.TempDir()
	u, ms := seed(t, dir)

	r := run(t, dir, nil, "users", "list", "--verbose")
	if r.code != 0 || !strings.Contains(r.stderr, "opened the store") {
		t.Fatalf("%+v", r)
	}
	if !regexp.MustCompile(`(?m)^ID\s+EMAIL\s+NAME\s+PLAN\s+VERIFIED\s+CREATED$`).MatchString(r.stdout) ||
		!strings.Contains(r.stdout, u.ID) || !strings.Contains(r.stdout, "Ada@Example.com") {
		t.Fatalf("users list:\n%s", r.stdout)
	}

	r = mustRun(t, dir, "users", "show", "ada@example.com", "--json")
	var shown struct{ ID, Email, Plan string }
	if err := json.Unmarshal([]byte(r.stdout), &shown); err != nil || shown.ID != u.ID || shown.Plan != "starter" {
		t.Fatalf("users show --json: %s (%v)", r.stdout, err)
	}

	r = mustRun(t, dir, "messages", "list", "--user", "ada@example.com")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], ms[1].ID) || !strings.Contains(lines[2], ms[0].ID) {
		t.Fatalf("want the two messages newest first:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "blue pot") {
		t.Fatal("a message body was listed")
	}

	r = mustRun(t, dir, "messages", "show", ms[0].ID)
	if strings.Contains(r.stdout, "blue pot") || !strings.Contains(r.stdout, "--reveal") {
		t.Fatalf("body shown without --reveal:\n%s", r.stdout)
	}
	r = mustRun(t, dir, "messages", "show", ms[0].ID, "--reveal")
	if !strings.Contains(r.stdout, "The key is under the blue pot.") {
		t.Fatalf("--reveal:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, ms[0].PostponeCode) {
		t.Fatal("the postpone code was printed")
	}

	r = run(t, dir, nil, "messages", "show", "nosuchmessage")
	if r.code == 0 || !strings.Contains(r.stderr, "could not be found") {
		t.Fatalf("%+v", r)
	}
}

func TestCommandsGoThroughTheRunningServer(t *testing.T) {
	dir := t.TempDir()
	u, ms := seed(t, dir)
	srv := startServer(t, dir)

	r := mustRun(t, dir, "users", "list", "--verbose")
	if !strings.Contains(r.stderr, "admin socket") || !strings.Contains(r.stdout, u.ID) {
		t.Fatalf("%+v", r)
	}
	r = mustRun(t, dir, "users", "set-plan", "ada@example.com", "pro", "--json")
	var granted struct {
		Plan         string
		PlanIsActive bool
	}
	json.Unmarshal([]byte(r.stdout), &granted)
	if granted.Plan != "pro" || !granted.PlanIsActive {
		t.Fatalf("set-plan: %s", r.stdout)
	}
	r = run(t, dir, nil, "users", "set-plan", "ada@example.com", "gold")
	if r.code == 0 || !strings.Contains(r.stderr, "plan: The plan must be starter, pro or business") {
		t.Fatalf("%+v", r)
	}
	r = mustRun(t, dir, "messages", "list", "--json", "--reveal")
	var listed []struct{ ID, Message string }
	if err := json.Unmarshal([]byte(r.stdout), &listed); err != nil || len(listed) != 2 || listed[1].Message != ms[0].Body {
		t.Fatalf("messages list --json --reveal: %s", r.stdout)
	}

	backup := filepath.Join(dir, "copy.db")
	r = mustRun(t, dir, "backup", backup, "--verbose")
	if !strings.Contains(r.stderr, "admin socket") {
		t.Fatalf("backup did not use the server: %s", r.stderr)
	}

	// The server still serves, and the backup is a complete store.
	resp, err := http.Get(srv.url + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	srv.stop(t)
	if _, err := os.Stat(filepath.Join(dir, "data", "sendlater.sock")); !os.IsNotExist(err) {
		t.Error("the admin socket outlived the server")
	}
	assertBackupHolds(t, dir, backup, u.ID, ms[0])

	// Without the server, the same commands open the file.
	r = mustRun(t, dir, "backup", filepath.Join(dir, "copy2.db"), "--verbose")
	if !strings.Contains(r.stderr, "opened the store") {
		t.Fatal(r.stderr)
	}
	assertBackupHolds(t, dir, filepath.Join(dir, "copy2.db"), u.ID, ms[0])
}

// assertBackupHolds opens a backup with the data dir's key and checks it.
func assertBackupHolds(t *testing.T, dir, backup, userID string, m *core.Message) {
	t.Helper()
	if st, err := os.Stat(backup); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v", st, err)
	}
	db := openStore(t, dir, backup)
	defer db.Close()
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.FindUserByID(context.Background(), userID); err != nil {
		t.Fatal(err)
	}
	got, err := db.FindMessageByID(context.Background(), m.ID)
	if err != nil || got.Body != m.Body {
		t.Fatalf("message in backup: %v %v", got, err)
	}
}

func TestServeAnswersAndStopsCleanly(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)

	resp, err := http.Get(srv.url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var health struct{ Status string }
	json.NewDecoder(resp.Body).Decode(&health)
	resp.Body.Close()
	if resp.StatusCode != 200 || health.Status != "ok" || resp.Header.Get("X-Request-Id") == "" {
		t.Fatalf("healthz: %d %+v", resp.StatusCode, health)
	}

	resp, err = http.Get(srv.url + "/api/no/such/thing")
	if err != nil {
		t.Fatal(err)
	}
	var env struct{ Status, Code string }
	json.NewDecoder(resp.Body).Decode(&env)
	resp.Body.Close()
	if resp.StatusCode != 404 || env.Status != "error" || env.Code != "request/not-found" {
		t.Fatalf("unknown API path: %d %+v", resp.StatusCode, env)
	}

	// A second server on the same data dir is refused with a clear message.
	r := run(t, dir, nil, "serve", "--addr", "127.0.0.1:0")
	if r.code == 0 || !strings.Contains(strings.ToLower(r.stderr), "another process") {
		t.Fatalf("second serve: %+v", r)
	}

	srv.stop(t)
	if !strings.Contains(srv.logs.String(), "shutting down") {
		t.Errorf("no shutdown in the logs:\n%s", srv.logs)
	}
	// The lock is released: the store opens directly.
	mustRun(t, dir, "users", "list")
}

func TestTrustedProxiesAreValidated(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, []string{"SENDLATER_TRUSTED_PROXIES=10.0.0.0/8,127.0.0.1"}, "config")
	if r.code != 0 || !strings.Contains(r.stdout, "trusted_proxies = [10.0.0.0/8 127.0.0.1]") {
		t.Fatalf("%+v", r)
	}
	r = run(t, dir, []string{"SENDLATER_TRUSTED_PROXIES=nginx"}, "config")
	if r.code == 0 || !strings.Contains(r.stderr, "trusted_proxies must be IP addresses or CIDR ranges") {
		t.Fatalf("%+v", r)
	}
}

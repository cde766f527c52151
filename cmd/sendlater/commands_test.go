package main_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
)

func TestVersion(t *testing.T) {
	r := mustRun(t, t.TempDir(), "version")
	for _, want := range []string{"sendlater v1.2.3", "commit abc123", "built 2026-11-21T00:00:00Z"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("version output %q lacks %q", r.stdout, want)
		}
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

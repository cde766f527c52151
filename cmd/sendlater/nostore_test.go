package main_test

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
)

// noStoreLine is the error of a command that finds no bbolt store at
// path, with cfg the config file it read ("no config file", "config file X").
func noStoreLine(path, dataDir, cfg string) string {
	return "Error: there is no store at " + path + " (data_dir " + dataDir + ", " + cfg + "): run the command where the " +
		"server runs, or point it at the server's data directory with --data-dir DIR, SENDLATER_DATA_DIR or data_dir " +
		"in its config file (--config FILE), or at its database with store.driver postgres and store.url; only " +
		"`sendlater serve` creates a store\n"
}

// listDir is every path under dir, relative.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var got []string
	filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			got = append(got, rel)
		}
		return err
	})
	return got
}

// TestAdminCommandsNeverCreateAStore: an operator in the wrong directory
// gets one line saying where the command looked and how to point it at the
// store, and nothing is created (before: a new ./data with a new store and
// key, and an empty table). Only serve makes a store.
func TestAdminCommandsNeverCreateAStore(t *testing.T) {
	dir := t.TempDir()
	want := noStoreLine(filepath.Join(dir, "data", "sendlater.db"), "./data", "no config file")
	for _, args := range [][]string{
		{"users", "list"}, {"users", "show", "ada@example.com"}, {"users", "create", "ada@example.com"},
		{"users", "set-plan", "ada@example.com", "pro"}, {"users", "sync-billing"}, {"messages", "list"},
		{"messages", "deliver-now", "m1"}, {"contacts", "list"}, {"audit", "list"}, {"stats"}, {"status"},
		{"send-due"}, {"send-due", "--dry-run"}, {"backup", "copy.db"}, {"tui", "--user", "ada@example.com"},
	} {
		r := run(t, dir, nil, args...)
		if r.code != 1 || r.stderr != want || r.stdout != "" {
			t.Errorf("sendlater %s: exit %d, stdout %q, stderr\n%s\nwant exit 1 and\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr, want)
		}
		if got := listDir(t, dir); len(got) > 0 {
			t.Fatalf("sendlater %s created %v", strings.Join(args, " "), got)
		}
	}

	// Where the flag, the variable or the config file point.
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("data_dir: /srv/nowhere\n"), 0o600)
	r := run(t, dir, nil, "users", "list")
	if want := noStoreLine("/srv/nowhere/sendlater.db", "/srv/nowhere", "config file config.yaml"); r.stderr != want {
		t.Errorf("with config.yaml:\n%s\nwant\n%s", r.stderr, want)
	}
	r = run(t, dir, []string{"SENDLATER_DATA_DIR=elsewhere"}, "users", "list")
	if want := noStoreLine(filepath.Join(dir, "elsewhere", "sendlater.db"), "elsewhere", "config file config.yaml"); r.stderr != want {
		t.Errorf("with SENDLATER_DATA_DIR:\n%s\nwant\n%s", r.stderr, want)
	}
	os.Remove(filepath.Join(dir, "config.yaml"))

	// A store without its key file: no new key (it would not open the store).
	db, err := bolt.Open(filepath.Join(dir, "data", "sendlater.db"), bolt.Options{Key: make([]byte, 32)})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	r = run(t, dir, nil, "users", "list")
	if r.code != 1 || !strings.Contains(r.stderr, "config: encryption_key_file: there is no key at data/sendlater.key") ||
		strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("a store without its key: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "sendlater.key")); !os.IsNotExist(err) {
		t.Error("a key file was created")
	}
	r = run(t, dir, []string{"SENDLATER_ENCRYPTION_KEY=" + strings.Repeat("00", 32)}, "users", "list")
	if r.code != 0 {
		t.Errorf("the store with its key: %+v", r)
	}

	// serve makes the store, the key and the data directory at first start.
	fresh := t.TempDir()
	startServer(t, fresh).stop(t)
	for _, f := range []string{"sendlater.db", "sendlater.key"} {
		if _, err := os.Stat(filepath.Join(fresh, "data", f)); err != nil {
			t.Errorf("serve's first start: %v", err)
		}
	}
	mustRun(t, fresh, "users", "list")
}

// TestAdminCommandsNeverCreateAPostgresStore: on an empty schema a command
// says so and creates no table; `migrate up` and serve create the store.
func TestAdminCommandsNeverCreateAPostgresStore(t *testing.T) {
	url := pgtest.URL(t)
	dir := t.TempDir()
	env := []string{"SENDLATER_STORE_DRIVER=postgres", "SENDLATER_STORE_URL=" + url,
		"SENDLATER_ENCRYPTION_KEY=" + hex.EncodeToString(pgtest.Key)}
	for _, args := range [][]string{{"users", "list"}, {"send-due"}, {"status"}, {"stats"}, {"audit", "list"}} {
		r := run(t, dir, env, args...)
		if r.code != 1 || !strings.HasPrefix(r.stderr, "Error: config: store.url: There is no Sendlater store in database ") ||
			!strings.Contains(r.stderr, "Point the command at the servers' database with store.url") ||
			!strings.HasSuffix(r.stderr, "only `sendlater serve` and `sendlater migrate up` create a store\n") ||
			strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("sendlater %s on an empty schema: %+v", strings.Join(args, " "), r)
		}
	}
	if got := listDir(t, dir); len(got) > 0 {
		t.Errorf("the commands created %v", got)
	}
	r := mustRunEnv(t, dir, env, "migrate", "status")
	if strings.Count(r.stdout, "pending") != migrationFiles(t) {
		t.Fatalf("a command created tables:\n%s", r.stdout)
	}
	mustRunEnv(t, dir, env, "migrate", "up")
	mustRunEnv(t, dir, env, "users", "list")
}

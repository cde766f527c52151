package main_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// users show shows a user's hold; users lift-hold ends it now, through the
// running server's admin socket.
func TestUsersShowAndLiftHold(t *testing.T) {
	dir := t.TempDir()
	db := openStore(t, dir, filepath.Join(dir, "data", "sendlater.db"))
	u, _ := seedInto(t, db)
	until := time.Now().Add(30 * 24 * time.Hour).UTC().Truncate(time.Second)
	if _, err := core.SetHold(context.Background(), db, db, time.Now(), u.ID, until, ""); err != nil {
		t.Fatal(err)
	}
	db.Close()
	startServer(t, dir)

	r := mustRun(t, dir, "users", "show", "ada@example.com")
	if !strings.Contains(r.stdout, "on hold until "+until.Format("2006-01-02T15:04:05Z")) {
		t.Fatalf("users show of a held user:\n%s", r.stdout)
	}
	r = mustRun(t, dir, "users", "lift-hold", "ada@example.com")
	if !strings.Contains(r.stdout, "Hold") || !strings.Contains(r.stdout, "(the last ended ") || strings.Contains(r.stdout, "on hold until") {
		t.Fatalf("users lift-hold:\n%s", r.stdout)
	}
	r = mustRun(t, dir, "users", "show", "ada@example.com")
	if strings.Contains(r.stdout, "on hold until") {
		t.Fatalf("still held after lift-hold:\n%s", r.stdout)
	}
	if r = mustRun(t, dir, "audit", "list"); !regexp.MustCompile(`(?i)users\.lift-hold +ada@example\.com`).MatchString(r.stdout) {
		t.Fatalf("the audit log lacks the lift-hold:\n%s", r.stdout)
	}
	r = run(t, dir, nil, "users", "lift-hold", "nobody@example.com")
	if r.code == 0 || !strings.Contains(r.stderr, "could not be found") {
		t.Fatalf("lift-hold of an unknown user: %+v", r)
	}
}

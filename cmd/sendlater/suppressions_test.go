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

// sendlater suppressions list|remove through a running server's admin
// socket: the list shows the address and why, remove takes it off, both
// are in the audit log, and a second remove says it is not there.
func TestSuppressionsListAndRemove(t *testing.T) {
	dir := t.TempDir()
	db := openStore(t, dir, filepath.Join(dir, "data", "sendlater.db"))
	if err := db.Suppress(context.Background(), &core.Suppression{Address: "Ivy@Yahoo.com", At: time.Now(), Reason: "complaint (smtp): abuse"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	startServer(t, dir)

	r := mustRun(t, dir, "suppressions", "list")
	if !strings.Contains(r.stdout, "ivy@yahoo.com") || !strings.Contains(r.stdout, "complaint (smtp): abuse") {
		t.Fatalf("suppressions list:\n%s", r.stdout)
	}
	r = mustRun(t, dir, "suppressions", "remove", "IVY@yahoo.com")
	if !strings.Contains(r.stdout, "removed from the suppression list") {
		t.Fatalf("suppressions remove:\n%s", r.stdout)
	}
	if r = mustRun(t, dir, "suppressions", "list"); strings.Contains(r.stdout, "ivy@yahoo.com") {
		t.Fatalf("still listed:\n%s", r.stdout)
	}
	r = run(t, dir, nil, "suppressions", "remove", "ivy@yahoo.com")
	if r.code == 0 || !strings.Contains(r.stderr, "not on the suppression list") {
		t.Fatalf("a second remove: %+v", r)
	}
	r = mustRun(t, dir, "audit", "list")
	if !regexp.MustCompile(`suppressions\.remove +ivy@yahoo\.com`).MatchString(r.stdout) || !strings.Contains(r.stdout, "suppressions.list") {
		t.Fatalf("the audit log:\n%s", r.stdout)
	}
}

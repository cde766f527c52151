package main_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestStatusShowsTheServersDelivery: with bbolt, `status` asks the running
// server through its admin socket; with none running nothing records passes.
func TestStatusShowsTheServersDelivery(t *testing.T) {
	dir := t.TempDir()
	seed(t, dir) // a store no server ran on (status creates none)
	r := mustRun(t, dir, "status")
	if !strings.Contains(r.stdout, "delivery:  off") {
		t.Fatalf("status without a server:\n%s", r.stdout)
	}
	startServer(t, dir, "SENDLATER_SCHEDULER_INTERVAL=1s")
	r = mustRun(t, dir, "status", "--json", "--verbose")
	var h struct {
		State     string
		LastPass  int64
		Processes []struct {
			Process   string
			Scheduler bool
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &h); err != nil || h.State != "ok" || len(h.Processes) != 1 ||
		!h.Processes[0].Scheduler || !strings.Contains(h.Processes[0].Process, " serve ") || !strings.Contains(r.stderr, "admin socket") {
		t.Fatalf("status --json with a server: %v\n%s%s", err, r.stdout, r.stderr)
	}
	r = mustRun(t, dir, "status")
	if !strings.Contains(r.stdout, "delivery:  ok") || !strings.Contains(r.stdout, " serve ") {
		t.Fatalf("status with a server:\n%s", r.stdout)
	}
}

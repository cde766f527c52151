package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

func TestHealthOf(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	serve := func(started, lastOK time.Time) *core.ProcessHealth {
		return &core.ProcessHealth{Process: "web-1 serve 1", Scheduler: true, StartedAt: started, SeenAt: lastOK, LastOK: lastOK}
	}
	cron := &core.ProcessHealth{Process: "web-1 send-due", StartedAt: ago(time.Hour), SeenAt: ago(time.Minute), LastOK: ago(time.Minute)}
	tests := []struct {
		name  string
		recs  []*core.ProcessHealth
		state string
		last  time.Time
	}{
		{"nothing records passes", nil, core.HealthOff, time.Time{}},
		{"only cron passes: nothing expects a pass", []*core.ProcessHealth{cron}, core.HealthOff, ago(time.Minute)},
		{"a scheduler just started", []*core.ProcessHealth{serve(ago(time.Minute), time.Time{})}, core.HealthOK, time.Time{}},
		{"a scheduler started long ago and never passed", []*core.ProcessHealth{serve(ago(time.Hour), time.Time{})}, core.HealthStalled, time.Time{}},
		{"a scheduler passes", []*core.ProcessHealth{serve(ago(time.Hour), ago(5*time.Second))}, core.HealthOK, ago(5 * time.Second)},
		{"the scheduler stopped passing", []*core.ProcessHealth{serve(ago(time.Hour), ago(core.StalledAfter+time.Second))}, core.HealthStalled, ago(core.StalledAfter + time.Second)},
		{"a dead scheduler, another process passes", []*core.ProcessHealth{serve(ago(time.Hour), ago(time.Hour)), cron}, core.HealthOK, ago(time.Minute)},
	}
	for _, tt := range tests {
		h := core.HealthOf(tt.recs, now)
		if h.State != tt.state || !h.LastPass.Equal(tt.last) || len(h.Processes) != len(tt.recs) {
			t.Errorf("%s: %s, last pass %v; want %s, %v", tt.name, h.State, h.LastPass, tt.state, tt.last)
		}
	}
}

// TestPassMonitorRecordsEachPass: the scheduler's start, each pass and its
// stop reach the store, and the delivery's health is read back from there.
func TestPassMonitorRecordsEachPass(t *testing.T) {
	e := testenv.New(t, testenv.Config{})
	mon := e.Delivery.Monitor
	health := func() core.DeliveryHealth {
		t.Helper()
		h, err := e.Admin.DeliveryHealth(e.Ctx)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if h := health(); h.State != core.HealthOff || len(h.Processes) != 0 {
		t.Fatalf("before anything ran: %+v", h)
	}

	// A stale record of a process that vanished a day ago is forgotten when
	// a scheduler starts; a recent one is kept.
	gone := &core.ProcessHealth{Process: "gone", Scheduler: true, StartedAt: e.Clock.Now().Add(-48 * time.Hour), SeenAt: e.Clock.Now().Add(-25 * time.Hour)}
	recent := &core.ProcessHealth{Process: "other", Scheduler: true, StartedAt: e.Clock.Now().Add(-time.Hour), SeenAt: e.Clock.Now().Add(-time.Hour)}
	for _, r := range []*core.ProcessHealth{gone, recent} {
		if err := e.DB.PutProcessHealth(e.Ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	mon.SchedulerStarted(e.Ctx)
	h := health()
	if len(h.Processes) != 2 || h.Processes[0].Process != "other" || h.Processes[1].Process != "test" || !h.Processes[1].Scheduler {
		t.Fatalf("after the scheduler started: %+v", h.Processes)
	}

	e.Clock.Add(time.Minute)
	res, err := e.Delivery.Run(e.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	h = health()
	self := h.Processes[1]
	if h.State != core.HealthOK || !h.LastPass.Equal(res.Finished) || !self.LastOK.Equal(res.Finished) ||
		!self.SeenAt.Equal(res.Finished) || !self.Scheduler || !self.LastPass.Started.Equal(res.Started) {
		t.Fatalf("after a pass: %+v, process %+v", h, self)
	}

	e.Clock.Add(core.StalledAfter + time.Second)
	if h := health(); h.State != core.HealthStalled {
		t.Fatalf("no pass for %s: %s", core.StalledAfter, h.State)
	}

	ctx, cancel := context.WithCancel(e.Ctx)
	cancel() // a stopping server still removes its record
	mon.SchedulerStopped(ctx)
	if h := health(); len(h.Processes) != 1 || h.Processes[0].Process != "other" {
		t.Fatalf("after the scheduler stopped: %+v", h.Processes)
	}
}

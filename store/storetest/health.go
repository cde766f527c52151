package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

func testProcessHealth(t *testing.T, s Stores) {
	now := s.Clock.Now()
	serve := &core.ProcessHealth{
		Process: "web-2:4711", Scheduler: true, StartedAt: now, SeenAt: now.Add(time.Minute),
		LastOK: now.Add(50 * time.Second),
		LastPass: core.PassResult{
			Started: now.Add(55 * time.Second), Finished: now.Add(time.Minute), Delivered: 3, Reminded: 2,
			Retried: 1, Failed: 4, Skipped: 5, Webhooks: 6, Errors: []string{"a store read failed"}, Error: "stopped",
		},
	}
	cron := &core.ProcessHealth{Process: "web-1 send-due", StartedAt: now, SeenAt: now, LastOK: now,
		LastPass: core.PassResult{Started: now, Finished: now}}
	for _, h := range []*core.ProcessHealth{serve, cron} {
		must(t, s.Health.PutProcessHealth(ctx, h))
	}
	got, err := s.Health.ProcessHealths(ctx)
	must(t, err)
	if want := []*core.ProcessHealth{cron, serve}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ProcessHealths = %+v, want %+v (ordered by process)", got, want)
	}

	// A put replaces the process's record; what was read is a copy.
	got[1].LastPass.Errors[0] = "changed by the reader"
	next := *serve
	next.LastPass = core.PassResult{Started: now.Add(2 * time.Minute), Finished: now.Add(2 * time.Minute)}
	next.LastOK, next.SeenAt = next.LastPass.Finished, next.LastPass.Finished
	must(t, s.Health.PutProcessHealth(ctx, &next))
	got, err = s.Health.ProcessHealths(ctx)
	must(t, err)
	if len(got) != 2 || !reflect.DeepEqual(got[1], &next) {
		t.Fatalf("after a second put: %+v, want %+v", got, &next)
	}

	must(t, s.Health.DeleteProcessHealth(ctx, cron.Process))
	must(t, s.Health.DeleteProcessHealth(ctx, "no such process"))
	if got, err = s.Health.ProcessHealths(ctx); err != nil || len(got) != 1 || got[0].Process != serve.Process {
		t.Fatalf("after delete: %+v %v", got, err)
	}
	wantCode(t, s.Health.PutProcessHealth(ctx, &core.ProcessHealth{}), core.EInvalid)
}

package core_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// wallClockLease is the lease of the tests below, which race a pass
// against a second process's passes on the wall clock, their timings in
// parts of it. A pass's own work between two steps (a read, a write, the
// SMTP exchange) must fit in what a part leaves: a sixth of a lease for a
// claim that waited, a third for a renewal. On 2 cores at a load of 10
// with -race that work took up to 250 ms, more than a 300 ms lease left.
const wallClockLease = 1500 * time.Millisecond

// A send slower than the lease keeps its claim: the lease is renewed while
// the send is in flight, so a second process's passes, running all the
// while, never take the message over and send it again.
func TestALongSendKeepsItsLease(t *testing.T) {
	e := MustDeliveryEnv(t, time.Now().AddDate(0, -2, 0))
	u := e.mustUser(t, "ada@example.com", "")
	m := e.mustMessage(t, u.ID, core.Interval1M) // due a month ago
	e.Delivery.Reminders = nil
	e.Delivery.Clock, e.Delivery.LeaseDuration = core.SystemClock{}, wallClockLease
	d := e.Delivery
	other := anotherProcess(d)
	// Without its renewals the lease runs out halfway through the send.
	e.SMTP.SetDelay(2 * wallClockLease)

	done := make(chan core.PassResult)
	go func() {
		res, err := e.Delivery.Run(e.Ctx)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	var takeovers atomic.Int32
	for sending := true; sending; {
		select {
		case res := <-done:
			if res.Delivered != 1 {
				t.Fatalf("the pass: %v", res)
			}
			sending = false
		case <-time.After(50 * time.Millisecond):
			res, err := other.Run(e.Ctx)
			if err != nil {
				t.Fatal(err)
			}
			takeovers.Add(int32(res.Delivered + res.Skipped + res.Retried))
		}
	}
	if n := takeovers.Load(); n != 0 {
		t.Fatalf("another pass took the message over %d times during the send", n)
	}
	e.SMTP.SetDelay(0)
	e.nextEmail(t, "charles@example.com")
	e.NoMoreEmail(t)
	if got := e.find(t, m.ID); got.Status != core.StatusDelivered {
		t.Fatalf("status %s", got.Status)
	}
}

// Wakes pass soon, and a steady stream of them (a busy sign-up page) does
// not keep pushing the pass back.
func TestSchedulerWakesDoNotStarveThePass(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	sched := &core.Scheduler{Delivery: e.Delivery, Interval: time.Hour}
	ctx, cancel := context.WithCancel(e.Ctx)
	done := make(chan struct{})
	go func() { defer close(done); sched.Run(ctx) }()
	defer func() { cancel(); <-done }()
	for start := time.Now(); time.Since(start) < time.Second; time.Sleep(5 * time.Millisecond) {
		sched.Wake()
	}
	// The first pass at start, then one every 100 ms or so of wakes.
	if n := len(e.Delivery.Log.Last()); n < 4 {
		t.Fatalf("%d passes in a second of wakes", n)
	}
}

// A claim that waited in its batch until its lease had nearly run out is
// renewed before its send starts: another process's pass, polling all the
// while, never takes it over between the worker's read and the first
// renewal of the send, so the message goes out once.
func TestAClaimThatWaitedIsConfirmedBeforeItsSend(t *testing.T) {
	e := MustDeliveryEnv(t, time.Now().AddDate(0, -2, 0))
	u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
	first := e.mustMessage(t, u.ID, core.Interval1M) // both due a month ago
	second := e.mustMessage(t, u.ID, core.Interval1M)
	e.Delivery.Reminders = nil
	e.Delivery.Clock, e.Delivery.LeaseDuration, e.Delivery.Concurrency = core.SystemClock{}, wallClockLease, 1
	d := e.Delivery
	other := anotherProcess(d)
	// One worker: the second message waits 5/6 of its lease while the
	// first is sent, and its own send takes as long. Without the
	// confirmation its lease would run out before the send's first
	// renewal, a third of a lease in: the other pass would send it again.
	e.SMTP.SetDelay(wallClockLease * 5 / 6)

	done := make(chan core.PassResult)
	go func() {
		res, err := d.Run(e.Ctx)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	taken := 0
	for sending := true; sending; {
		select {
		case res := <-done:
			if res.Delivered != 2-taken {
				t.Errorf("the pass: %v", res)
			}
			sending = false
		case <-time.After(10 * time.Millisecond):
			res, err := other.Run(e.Ctx)
			if err != nil {
				t.Fatal(err)
			}
			taken += res.Delivered
		}
	}
	e.SMTP.SetDelay(0)
	if taken != 0 {
		// The worker was slower than the sixth of a lease the wait left
		// it: the claim ran out before its confirmation, which then
		// failed, and the other pass's take-over was the only send.
		t.Logf("a loaded machine: another pass took over and delivered %d messages", taken)
	}
	if n := len(e.SMTP.Messages()); n != 2 {
		t.Fatalf("%d emails for 2 messages", n)
	}
	for _, id := range []string{first.ID, second.ID} {
		if got := e.find(t, id); got.Status != core.StatusDelivered {
			t.Fatalf("status %s", got.Status)
		}
	}
}

// anotherProcess is a second process's pass over the store of d.
func anotherProcess(d *core.Delivery) *core.Delivery {
	return &core.Delivery{
		Messages: d.Messages, Users: d.Users, Store: d.Store, Mailer: d.Mailer, Emails: d.Emails,
		Clock: d.Clock, BaseURL: d.BaseURL, LeaseDuration: d.LeaseDuration, Logger: d.Logger,
	}
}

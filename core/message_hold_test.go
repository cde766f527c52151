package core_test

import (
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// A hold spanning a sendDate: nothing is sent while it holds; at its end a
// fresh reminder cycle starts (the reminder at once, the delivery ten days
// later), never an immediate delivery.
func TestHoldSpanningASendDate(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.mustUser(t, "ada@example.com", "Europe/London")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	until := m.SendDate.Add(20 * 24 * time.Hour)

	su, err := e.Messages.Hold(e.As(u.ID), until)
	if err != nil || !su.HoldUntil.Equal(until) {
		t.Fatalf("hold: %v %+v", err, su)
	}
	// The dry run lists nothing the hold keeps back.
	for _, at := range []time.Time{m.SendDate.Add(-core.ReminderLeadTime), m.SendDate} {
		if due, err := e.Delivery.Preview(e.Ctx, at); err != nil || len(due) != 0 {
			t.Fatalf("dry run at %v while held: %v %+v", at, err, due)
		}
	}
	// Through the reminder time and the sendDate: nothing.
	for at := m.SendDate.Add(-core.ReminderLeadTime); at.Before(until); at = at.Add(24 * time.Hour) {
		e.Clock.Set(at)
		e.pass(t, core.PassResult{})
	}
	e.NoMoreEmail(t)
	if got := e.find(t, m.ID); got.Status != core.StatusScheduled || !got.SendDate.Equal(until.Add(core.ReminderLeadTime)) {
		t.Fatalf("held message: %s, sendDate %v", got.Status, got.SendDate)
	}

	// At the end: the reminder, not the delivery.
	e.Clock.Set(until)
	e.pass(t, core.PassResult{Reminded: 1})
	e.nextEmail(t, "ada@example.com")
	e.Clock.Set(until.Add(core.ReminderLeadTime - time.Minute))
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
	e.Clock.Set(until.Add(core.ReminderLeadTime))
	e.pass(t, core.PassResult{Delivered: 1})
	e.nextEmail(t, "charles@example.com")

	if su, err := e.Messages.EndHold(e.As(u.ID)); err != nil || !su.HoldUntil.IsZero() {
		t.Fatalf("the hold is over: %v %+v", err, su)
	}
	evs, err := e.Messages.Events(e.As(u.ID), m.ID)
	if err != nil {
		t.Fatal(err)
	}
	held := 0
	for _, ev := range evs {
		if ev.Kind == core.EventHeld {
			held++
		}
	}
	if held != 1 {
		t.Fatalf("timeline: %d held entries, want 1", held)
	}
}

// Ending a hold early gives the held messages their fresh cycle from then.
func TestHoldEndedEarly(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.mustUser(t, "ada@example.com", "Europe/London")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	if _, err := e.Messages.Hold(e.As(u.ID), m.SendDate.Add(60*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	e.Clock.Set(m.SendDate.Add(time.Hour))
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)

	end := m.SendDate.Add(3 * 24 * time.Hour)
	e.Clock.Set(end)
	if su, err := e.Messages.EndHold(e.As(u.ID)); err != nil || !su.HoldUntil.IsZero() {
		t.Fatalf("end hold: %v %+v", err, su)
	}
	if got := e.find(t, m.ID); !got.SendDate.Equal(end.Add(core.ReminderLeadTime)) {
		t.Fatalf("after the early end: sendDate %v, want %v", got.SendDate, end.Add(core.ReminderLeadTime))
	}
	e.pass(t, core.PassResult{Reminded: 1})
	e.nextEmail(t, "ada@example.com")
	e.Clock.Set(end.Add(core.ReminderLeadTime))
	e.pass(t, core.PassResult{Delivered: 1})
	e.nextEmail(t, "charles@example.com")
}

// A pass that runs only after the hold still gives a message whose
// sendDate fell within it a fresh cycle.
func TestHoldSeenOnlyAfterItsEnd(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.mustUser(t, "ada@example.com", "Europe/London")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	e.Delivery.Reminders = nil
	until := m.SendDate.Add(24 * time.Hour)
	if _, err := e.Messages.Hold(e.As(u.ID), until); err != nil {
		t.Fatal(err)
	}
	e.Clock.Set(until.Add(time.Hour))
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
	if got := e.find(t, m.ID); !got.SendDate.Equal(until.Add(time.Hour + core.ReminderLeadTime)) {
		t.Fatalf("sendDate %v", got.SendDate)
	}
}

func TestHoldLimits(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.mustUser(t, "ada@example.com", "Europe/London")
	for _, until := range []time.Time{march1, march1.Add(-time.Hour), march1.Add(core.MaxHold + time.Hour)} {
		_, err := e.Messages.Hold(e.As(u.ID), until)
		if core.ErrorCode(err) != core.EValidation {
			t.Fatalf("hold until %v: %v", until, err)
		}
	}
	if got, _ := e.DB.FindUserByID(e.Ctx, u.ID); !got.HoldUntil.IsZero() {
		t.Fatal("a refused hold changed the user")
	}
}

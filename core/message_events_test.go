package core_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// timeline is a message's events as "kind recipient by actor" lines.
func timeline(t *testing.T, e *deliveryEnv, owner, id string) []string {
	t.Helper()
	es, err := e.Messages.Events(e.As(owner), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range es {
		line := string(ev.Kind)
		if ev.Recipient != "" {
			line += " " + ev.Recipient
		}
		if ev.Actor != "" {
			line += " by " + ev.Actor
		}
		out = append(out, line)
	}
	return out
}

// Every message tells its history: created, edited, postponed by whom
// (dashboard, access token, link, operator), paused and resumed, the
// reminder, and each recipient's attempts and outcome.
func TestTheTimelineTellsWhatHappened(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
	web := e.As(u.ID)
	tui := e.Acting(&core.Identity{UserID: u.ID, TokenID: "t1", Scopes: core.AllScopes})
	m, err := e.Messages.Create(web, core.MessageInput{Title: "Three", Body: "Hello", Recipients: []core.RecipientInput{
		{Name: "Ann", Address: "ann@example.com"}, {Name: "Ben", Address: "ben@example.com"}, {Name: "Cleo", Address: "cleo@example.com"}}})
	if err != nil {
		t.Fatal(err)
	}
	ok := func(_ *core.Message, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	title, off, on := "Three letters", false, true
	ok(e.Messages.Update(web, m.ID, core.MessageUpdate{Title: &title}))
	ok(e.Messages.Update(tui, m.ID, core.MessageUpdate{IsActive: &off}))
	ok(e.Messages.Update(tui, m.ID, core.MessageUpdate{IsActive: &on}))
	e.Clock.Add(48 * time.Hour)
	ok(e.Messages.Postpone(tui, m.ID))
	e.Clock.Add(48 * time.Hour)
	if _, err := e.Postpone.Postpone(e.Ctx, m.ID, e.find(t, m.ID).PostponeCode, "203.0.113.9"); err != nil {
		t.Fatal(err)
	}
	m = e.find(t, m.ID)
	ok(e.Admin.RescheduleMessage(e.Ctx, m.ID, m.SendDate.Add(time.Hour)))
	// An earlier date is not a postpone.
	ok(e.Admin.RescheduleMessage(e.Ctx, m.ID, m.SendDate.Add(-time.Hour)))

	// The reminder, then the delivery: Ben's server says later, the others take it.
	m = e.find(t, m.ID)
	e.Clock.Set(m.SendDate.Add(-core.ReminderLeadTime))
	e.pass(t, core.PassResult{Reminded: 1})
	e.nextEmail(t, "ada@example.com")
	e.Clock.Set(m.SendDate)
	e.SMTP.Reject("ben@example.com", 451, "mailbox busy")
	e.pass(t, core.PassResult{Delivered: 2, Retried: 1})

	want := []string{
		"created by " + core.ActorDashboard,
		"edited by " + core.ActorDashboard,
		"paused by " + core.ActorToken,
		"resumed by " + core.ActorToken,
		"postponed by " + core.ActorToken,
		"postponed by " + core.ActorLink,
		"postponed by " + core.ActorOperator,
		"rescheduled by " + core.ActorOperator,
		"reminded ada@example.com",
		"sent ann@example.com",
		"retrying ben@example.com",
		"sent cleo@example.com",
	}
	if got := timeline(t, e, u.ID, m.ID); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("timeline\n%q\nwant\n%q", got, want)
	}
	es, _ := e.Messages.Events(web, m.ID)
	retry := es[10]
	if retry.Detail == "" || !retry.NextAttemptAt.Equal(e.Clock.Now().Add(core.RetryDelays[0])) {
		t.Fatalf("the retry says %q, next %v", retry.Detail, retry.NextAttemptAt)
	}
	// Another author cannot read it.
	other := e.MustUser(t, "eve@example.com", "", core.PlanPro)
	if _, err := e.Messages.Events(e.As(other.ID), m.ID); core.ErrorCode(err) != core.EMessageNotFound {
		t.Fatalf("another author's read: %v", err)
	}
}

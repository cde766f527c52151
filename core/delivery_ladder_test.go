package core_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

func ladderPtr[T any](v T) *T { return &v }

// setLadder sets the author's ladder (and second address, confirmed) as
// the profile form does.
func (e *deliveryEnv) setLadder(tb testing.TB, uid string, steps []string, second string) *core.SessionUser {
	tb.Helper()
	su, err := e.Auth.UpdateProfile(e.As(uid), core.ProfileUpdate{ReminderLadder: &steps, ReminderAddress: &second})
	if err != nil {
		tb.Fatal(err)
	}
	if second != "" {
		// The second address agrees to get the reminders: nothing goes
		// to it before (delivery_reminder_address_test.go).
		e.ConfirmReminderAddress(tb, strings.TrimSpace(second))
	}
	return su
}

// ladderStep checks one reminder email: its step in its own postpone link,
// and whether it says it is the last chance.
func ladderStep(tb testing.TB, p *smtptest.Parsed, step string, last bool) (id, code string) {
	tb.Helper()
	id, code = reminderLink(tb, p)
	u, _ := url.Parse(p.Link(baseURL + "/postpone/"))
	if got := u.Query().Get("step"); got != step {
		tb.Fatalf("reminder link's step %q, want %q", got, step)
	}
	says := strings.Contains(p.Subject, "Last chance") && strings.Contains(p.Text, "last chance") &&
		strings.Contains(p.HTML, "last chance")
	if says != last {
		tb.Fatalf("step %s: last chance %v, want %v: %q\n%s", step, says, last, p.Subject, p.Text)
	}
	return id, code
}

// An author in Berlin with the whole ladder and a second address; the
// sendDate is the Monday after the last Sunday of October (clocks go back):
// each step comes once, at its instant, to both addresses, with its own
// link; the last says so; the second address never gets the delivery.
func TestReminderLadderAcrossDST(t *testing.T) {
	berlin := core.LoadLocation("Europe/Berlin")
	e := MustDeliveryEnv(t, time.Date(2026, 9, 26, 10, 0, 0, 0, berlin))
	u := e.MustUser(t, "ada@example.com", "Europe/Berlin", core.PlanPro)
	su := e.setLadder(t, u.ID, []string{"2h", "3d", "1d"}, "partner@sms.example.com")
	if strings.Join(su.ReminderLadder, ",") != "3d,1d,2h" || su.ReminderAddress != "partner@sms.example.com" {
		t.Fatalf("session user: %v %q", su.ReminderLadder, su.ReminderAddress)
	}
	m := e.mustMessage(t, u.ID, core.Interval1M)
	if want := time.Date(2026, 10, 26, 10, 0, 0, 0, berlin); !m.SendDate.Equal(want) {
		t.Fatalf("sendDate %v, want %v", m.SendDate, want)
	}
	steps := []struct {
		name string
		off  time.Duration
	}{{"10d", 240 * time.Hour}, {"3d", 72 * time.Hour}, {"1d", 24 * time.Hour}, {"2h", 2 * time.Hour}}
	for i, s := range steps {
		at := m.SendDate.Add(-s.off)
		e.Clock.Set(at.Add(-time.Minute))
		e.pass(t, core.PassResult{})
		e.NoMoreEmail(t)
		e.Clock.Set(at)
		e.pass(t, core.PassResult{Reminded: 1})
		last := i == len(steps)-1
		p, _ := e.nextEmail(t, "ada@example.com")
		id, code := ladderStep(t, p, s.name, last)
		if id != m.ID || code != m.PostponeCode {
			t.Fatalf("step %s links to %s %s", s.name, id, code)
		}
		p2, _ := e.nextEmail(t, "partner@sms.example.com")
		ladderStep(t, p2, s.name, last)
		e.Clock.Add(time.Minute)
		e.pass(t, core.PassResult{}) // once per sendDate
		e.NoMoreEmail(t)
	}
	// The 3-day step is 72 hours before: across the change, 11:00 summer time.
	if got := m.SendDate.Add(-72 * time.Hour).In(berlin); got.Hour() != 11 {
		t.Fatalf("3-day step at %v", got)
	}
	e.Clock.Set(m.SendDate)
	e.pass(t, core.PassResult{Delivered: 1})
	e.nextEmail(t, "charles@example.com")
	e.NoMoreEmail(t) // the second address gets the reminders only

	// The timeline shows each reminder to the author and its copy to the
	// second address.
	events, err := e.DB.ListMessageEvents(e.Ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	var reminded []string
	for _, ev := range events {
		if ev.Kind == core.EventReminded {
			reminded = append(reminded, ev.Recipient+": "+ev.Detail)
		}
	}
	want := []string{
		"ada@example.com: reminder 10d, 1 of 4", "partner@sms.example.com: reminder 10d, 1 of 4, a copy to the second reminder address",
		"ada@example.com: reminder 3d, 2 of 4", "partner@sms.example.com: reminder 3d, 2 of 4, a copy to the second reminder address",
		"ada@example.com: reminder 1d, 3 of 4", "partner@sms.example.com: reminder 1d, 3 of 4, a copy to the second reminder address",
		"ada@example.com: reminder 2h, 4 of 4", "partner@sms.example.com: reminder 2h, 4 of 4, a copy to the second reminder address",
	}
	if strings.Join(reminded, "\n") != strings.Join(want, "\n") {
		t.Fatalf("reminders in the timeline:\n%s", strings.Join(reminded, "\n"))
	}
}

// A sendDate on the 1st of a month with 3d and 1d: a postpone between the
// steps starts the ladder over for the new date; the old date's steps pass
// quietly.
func TestReminderLadderPostponeResetsAtMonthEnd(t *testing.T) {
	e, m := ladderMessage(t, core.PlanStarter, []string{"3d", "1d"}, "")
	if m.SendDate.Day() != 1 {
		t.Fatalf("sendDate %v", m.SendDate)
	}
	for _, s := range []struct {
		name string
		off  time.Duration
	}{{"10d", 240 * time.Hour}, {"3d", 72 * time.Hour}} {
		e.Clock.Set(m.SendDate.Add(-s.off))
		e.pass(t, core.PassResult{Reminded: 1})
		p, _ := e.nextEmail(t, "ada@example.com")
		ladderStep(t, p, s.name, false)
	}
	// The 3-day reminder's link, followed between the steps.
	e.Clock.Add(time.Hour)
	newDate, err := e.Postpone.Postpone(e.Ctx, m.ID, m.PostponeCode, "192.0.2.7")
	if err != nil {
		t.Fatal(err)
	}
	if got := e.find(t, m.ID); got.RemindersSent != 0 || !got.RemindAt.Equal(newDate.Add(-240*time.Hour)) {
		t.Fatalf("after postpone: sent %d remindAt %v", got.RemindersSent, got.RemindAt)
	}
	e.Clock.Set(m.SendDate.Add(-24 * time.Hour)) // the old 1-day step
	e.pass(t, core.PassResult{})
	e.Clock.Set(m.SendDate)
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
	for i, s := range []struct {
		name string
		off  time.Duration
	}{{"10d", 240 * time.Hour}, {"3d", 72 * time.Hour}, {"1d", 24 * time.Hour}} {
		e.Clock.Set(newDate.Add(-s.off))
		e.pass(t, core.PassResult{Reminded: 1})
		p, _ := e.nextEmail(t, "ada@example.com")
		ladderStep(t, p, s.name, i == 2)
	}
	e.Clock.Set(newDate.Add(-2 * time.Hour)) // not chosen: nothing
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
	e.Clock.Set(newDate)
	e.pass(t, core.PassResult{Delivered: 1})
	e.nextEmail(t, "charles@example.com")
}

// The default (no ladder) is one reminder, not called the last chance.
func TestReminderDefaultIsOneReminder(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.mustUser(t, "ada@example.com", "UTC")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	e.Clock.Set(m.SendDate.Add(-240 * time.Hour))
	e.pass(t, core.PassResult{Reminded: 1})
	p, _ := e.nextEmail(t, "ada@example.com")
	ladderStep(t, p, "10d", false)
	for _, off := range []time.Duration{72 * time.Hour, 24 * time.Hour, 2 * time.Hour} {
		e.Clock.Set(m.SendDate.Add(-off))
		e.pass(t, core.PassResult{})
	}
	e.NoMoreEmail(t)
}

// The settings' rules: steps among 3d, 1d, 2h; a valid second address; a
// second address is Pro's; bad input changes nothing.
func TestReminderLadderSettings(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	free := e.mustUser(t, "ada@example.com", "UTC")
	ctx := e.As(free.ID)
	_, err := e.Auth.UpdateProfile(ctx, core.ProfileUpdate{ReminderLadder: &[]string{"3d", "5d"}})
	wantFields(t, err, map[string]string{"reminderLadder": `Reminder steps must be among "3d", "1d" and "2h"`})
	_, err = e.Auth.UpdateProfile(ctx, core.ProfileUpdate{ReminderAddress: ladderPtr("not-an-address")})
	wantFields(t, err, map[string]string{"reminderAddress": "Please enter a valid email address"})
	_, err = e.Auth.UpdateProfile(ctx, core.ProfileUpdate{ReminderAddress: ladderPtr("partner@example.com")})
	wantCode(t, err, core.EPlanLimit)
	if u, _ := e.DB.FindUserByID(e.Ctx, free.ID); u.ReminderLadder != 0 || u.ReminderAddress != "" {
		t.Fatalf("refused settings were kept: %v %q", u.ReminderLadder.Names(), u.ReminderAddress)
	}
	su := e.setLadder(t, free.ID, []string{"1d"}, "") // the ladder itself is for every plan
	if strings.Join(su.ReminderLadder, ",") != "1d" {
		t.Fatalf("ladder %v", su.ReminderLadder)
	}
	pro := e.MustUser(t, "bob@example.com", "UTC", core.PlanPro)
	if su := e.setLadder(t, pro.ID, []string{}, " partner@example.com "); su.ReminderAddress != "partner@example.com" {
		t.Fatalf("second address %q", su.ReminderAddress)
	}
	if su := e.setLadder(t, pro.ID, []string{}, ""); su.ReminderAddress != "" {
		t.Fatalf("second address not removed: %q", su.ReminderAddress)
	}
}

// A hold over the 10-day step: the message's fresh cycle after the hold
// runs the whole ladder again for the new sendDate.
func TestReminderLadderAfterAHold(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.mustUser(t, "ada@example.com", "UTC")
	e.setLadder(t, u.ID, []string{"3d"}, "")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	until := m.SendDate.Add(-5 * 24 * time.Hour)
	if _, err := e.Messages.Hold(e.As(u.ID), until); err != nil {
		t.Fatal(err)
	}
	e.Clock.Set(m.SendDate.Add(-240 * time.Hour)) // the 10-day step, held back
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
	newDate := until.Add(core.ReminderLeadTime)
	if got := e.find(t, m.ID); !got.SendDate.Equal(newDate) || got.RemindersSent != 0 {
		t.Fatalf("after the hold's pass: sendDate %v sent %d", got.SendDate, got.RemindersSent)
	}
	e.Clock.Set(until.Add(-time.Minute)) // still held: nothing
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
	e.Clock.Set(until)
	e.pass(t, core.PassResult{Reminded: 1})
	p, _ := e.nextEmail(t, "ada@example.com")
	ladderStep(t, p, "10d", false)
	e.Clock.Set(newDate.Add(-72 * time.Hour))
	e.pass(t, core.PassResult{Reminded: 1})
	p, _ = e.nextEmail(t, "ada@example.com")
	ladderStep(t, p, "3d", true)
	e.Clock.Set(newDate)
	e.pass(t, core.PassResult{Delivered: 1})
	e.nextEmail(t, "charles@example.com")
}

// A second address kept after the plan ended rests: the author alone is
// reminded.
func TestReminderSecondAddressRestsAfterADowngrade(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.MustUser(t, "ada@example.com", "UTC", core.PlanPro)
	e.setLadder(t, u.ID, nil, "partner@sms.example.com")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	if _, err := e.DB.UpdateUser(e.Ctx, u.ID, func(u *core.User) error {
		u.StripeSubscriptionStatus = "canceled"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.Clock.Set(m.SendDate.Add(-240 * time.Hour))
	e.pass(t, core.PassResult{Reminded: 1})
	e.nextEmail(t, "ada@example.com")
	e.NoMoreEmail(t)
}

package core_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// A test send emails the author what each recipient will receive, marked as
// a test, and changes nothing: the schedule, the reminders and the
// delivery stay; the sixth of an hour is refused, the next day works again.
func TestSendTestLeavesTheScheduleAndHasALimit(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
	e.MustVerify(t, u.ID)
	m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "T", Body: "The key is under the mat.",
		Recipients: []core.RecipientInput{{Name: "Ann", Address: "ann@example.com"}, {Name: "Ben", Address: "ben@example.com"}}})
	if err != nil {
		t.Fatal(err)
	}
	before := e.find(t, m.ID)
	for i := range 5 {
		n, err := e.Messages.SendTest(e.As(u.ID), m.ID)
		if err != nil || n != 2 {
			t.Fatalf("test send %d: %d %v", i+1, n, err)
		}
		e.Clock.Add(time.Minute)
	}
	_, err = e.Messages.SendTest(e.As(u.ID), m.ID)
	if core.ErrorCode(err) != core.ETooManyRequests {
		t.Fatalf("the sixth test send of an hour: %v", err)
	}
	e.pass(t, core.PassResult{}) // the outbox sends the tests
	seen := map[string]int{}
	for range 10 { // they leave together, in no set order
		p, raw := e.nextEmail(t, "ada@example.com")
		who := "Ann"
		if strings.Contains(p.Header.Get("Subject"), "Ben") {
			who = "Ben"
		}
		seen[who]++
		if !strings.HasPrefix(p.Header.Get("Subject"), core.TestSubjectPrefix) ||
			!strings.Contains(p.Text, "Dear "+who+",") || !strings.Contains(p.Text, "The key is under the mat.") ||
			len(raw.To) != 1 || strings.Contains(p.Text, "/unsubscribe/") {
			t.Fatalf("test email for %s: %q to %v\n%s", who, p.Header.Get("Subject"), raw.To, p.Text)
		}
	}
	if seen["Ann"] != 5 || seen["Ben"] != 5 {
		t.Fatalf("test emails %v, want 5 as each recipient receives it", seen)
	}
	e.NoMoreEmail(t)
	after := e.find(t, m.ID)
	if !after.SendDate.Equal(before.SendDate) || !after.RemindAt.Equal(before.RemindAt) || !after.DueAt.Equal(before.DueAt) ||
		after.Status != before.Status || after.RemindersSent != 0 {
		t.Fatalf("a test send changed the schedule: %+v", after)
	}
	// Another author cannot test it; tomorrow it works again.
	other := e.MustUser(t, "eve@example.com", "", core.PlanPro)
	if _, err := e.Messages.SendTest(e.As(other.ID), m.ID); core.ErrorCode(err) != core.EMessageNotFound {
		t.Fatalf("another author's test send: %v", err)
	}
	e.Clock.Add(24 * time.Hour)
	if _, err := e.Messages.SendTest(e.As(u.ID), m.ID); err != nil {
		t.Fatalf("the next day: %v", err)
	}
}

// The preview renders each recipient's email before anything is stored.
func TestPreviewRendersEachRecipientsEmail(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
	ps, err := e.Messages.Preview(e.As(u.ID), core.MessageInput{Title: "T", Body: "Look <there>",
		Recipients: []core.RecipientInput{{Name: "Ann", Address: "ann@example.com"}, {Name: "Ben", Address: "ben@example.com"}}})
	if err != nil || len(ps) != 2 || ps[1].To.Address != "ben@example.com" || !strings.Contains(ps[1].Text, "Dear Ben,") ||
		!strings.Contains(ps[0].HTML, "Look &lt;there&gt;") || ps[0].Subject == "" {
		t.Fatalf("preview %+v %v", ps, err)
	}
	if n, _ := e.DB.CountMessages(e.Ctx, u.ID); n != 0 {
		t.Fatalf("a preview stored %d messages", n)
	}
	_, err = e.Messages.Preview(e.As(u.ID), core.MessageInput{Title: "T", Name: "Ann", Recipient: "ann@example.com"})
	if f := fieldsOf(t, err); f["message"] != "Please enter a message" {
		t.Fatalf("an empty body: %v", f)
	}
}

// A stored message's preview says the day it was written, in the author's
// zone, as its delivery will; with changes, the changed message, still
// written then; nothing is stored, and only the author may preview it.
func TestPreviewMessageSaysWhenItWasWritten(t *testing.T) {
	e := MustDeliveryEnv(t, march1.Add(-8*time.Hour)) // 01:00 UTC: still Feb 28 in Chicago
	u := e.MustUser(t, "ada@example.com", "America/Chicago", core.PlanPro)
	m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "T", Name: "Ann", Recipient: "ann@example.com", Body: "The key is under the mat."})
	if err != nil {
		t.Fatal(err)
	}
	e.Clock.Add(40 * 24 * time.Hour)
	written := "on Saturday, 28 February 2026 at 19:00"

	ps, err := e.Messages.PreviewMessage(e.As(u.ID), m.ID, core.MessageUpdate{})
	if err != nil || len(ps) != 1 || ps[0].To.Address != "ann@example.com" {
		t.Fatalf("preview %+v %v", ps, err)
	}
	if !strings.Contains(ps[0].Text, written) || !strings.Contains(ps[0].HTML, written) || !strings.Contains(ps[0].Text, "under the mat") {
		t.Fatalf("the preview does not say %q:\n%s", written, ps[0].Text)
	}

	body := "The key is with the neighbour."
	rs := []core.RecipientInput{{Name: "Ann", Address: "ann@example.com"}, {Name: "Ben", Address: "ben@example.com"}}
	ps, err = e.Messages.PreviewMessage(e.As(u.ID), m.ID, core.MessageUpdate{Body: &body, Recipients: &rs})
	if err != nil || len(ps) != 2 || !strings.Contains(ps[1].Text, "Dear Ben,") || !strings.Contains(ps[1].Text, "with the neighbour") ||
		!strings.Contains(ps[1].Text, written) {
		t.Fatalf("preview of an edit %+v %v", ps, err)
	}
	if after := e.find(t, m.ID); after.Body != m.Body || len(after.RecipientList()) != 1 || !after.UpdatedAt.Equal(m.UpdatedAt) {
		t.Fatalf("a preview changed the message: %+v", after)
	}

	empty := ""
	_, err = e.Messages.PreviewMessage(e.As(u.ID), m.ID, core.MessageUpdate{Body: &empty})
	if f := fieldsOf(t, err); f["message"] != "Please enter a message" {
		t.Fatalf("an empty body: %v", f)
	}
	other := e.MustUser(t, "eve@example.com", "", core.PlanPro)
	if _, err := e.Messages.PreviewMessage(e.As(other.ID), m.ID, core.MessageUpdate{}); core.ErrorCode(err) != core.EMessageNotFound {
		t.Fatalf("another author's preview: %v", err)
	}
	if _, err := e.Messages.PreviewMessage(e.As(u.ID), "no-such-id", core.MessageUpdate{}); core.ErrorCode(err) != core.EMessageNotFound {
		t.Fatalf("an unknown id: %v", err)
	}
	if _, err := e.Messages.PreviewMessage(e.Ctx, m.ID, core.MessageUpdate{}); core.ErrorCode(err) != core.EInvalidToken {
		t.Fatalf("no one signed in: %v", err)
	}
}

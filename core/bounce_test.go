package core_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

func mustBounceEnv(t *testing.T) (*deliveryEnv, *core.User, *core.Message) {
	t.Helper()
	e := &deliveryEnv{testenv.New(t, testenv.Config{Start: march1, BounceDomain: "bounces.example.net"})}
	e.Delivery.Reminders = nil
	u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
	e.MustVerify(t, u.ID)
	m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "For the children", Body: "Dear all,\nhello",
		Recipients: []core.RecipientInput{{Name: "Ann", Address: "ann@example.com"}, {Name: "Ben", Address: "ben@example.com"}}})
	if err != nil {
		t.Fatal(err)
	}
	return e, u, m
}

// notice sends "tell the recipient now" to address and returns its return
// path, as the mail server received it.
func (e *deliveryEnv) notice(t *testing.T, owner, id, address string) string {
	t.Helper()
	if err := e.Messages.NotifyRecipient(e.As(owner), id, address); err != nil {
		t.Fatal(err)
	}
	e.pass(t, core.PassResult{})
	_, raw := e.nextEmail(t, address)
	return raw.From
}

func (e *deliveryEnv) events(t *testing.T, id string, kind core.EventKind) []*core.MessageEvent {
	t.Helper()
	all, err := e.Store.ListMessageEvents(e.Ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []*core.MessageEvent
	for _, ev := range all {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

// A hard bounce of a notice marks that recipient bouncing with the remote
// server's words, writes the timeline and tells the author once an hour;
// a soft one is counted; a forged return path does nothing; editing the
// address clears the mark.
func TestHardBounceMarksTheRecipientAndTellsTheAuthor(t *testing.T) {
	e, u, m := mustBounceEnv(t)
	annPath := e.notice(t, u.ID, m.ID, "ann@example.com")
	benPath := e.notice(t, u.ID, m.ID, "ben@example.com")
	b := e.Graph.BounceReports

	reason := "550 5.1.1 <ann@example.com>: Recipient address rejected:\r\n User unknown"
	if got, err := b.Process(e.Ctx, core.BounceReport{ReturnPath: annPath, Kind: core.BounceHard, Status: "5.1.1", Reason: reason, Source: "smtp"}); err != nil || got != core.BounceMarked {
		t.Fatalf("Process = %v, %v", got, err)
	}
	r := e.find(t, m.ID).RecipientList()
	if !r[0].Bouncing() || r[0].Bounce.Reason != "550 5.1.1 <ann@example.com>: Recipient address rejected: User unknown" ||
		r[0].Bounce.Email != core.BounceNotice || r[0].Bounce.Status != "5.1.1" || r[1].Bouncing() {
		t.Fatalf("recipients %+v", r)
	}
	if ev := e.events(t, m.ID, core.EventBounced); len(ev) != 1 || ev[0].Recipient != "ann@example.com" || !strings.Contains(ev[0].Detail, "User unknown") {
		t.Fatalf("timeline %+v", ev)
	}
	e.pass(t, core.PassResult{}) // the outbox sends the author's email
	p, _ := e.nextEmail(t, "ada@example.com")
	if subj := p.Header.Get("Subject"); !strings.Contains(subj, "ann@example.com") || !strings.Contains(subj, "returned your notice") ||
		!strings.Contains(p.Text, "User unknown") || !strings.Contains(p.Text, "change it before") ||
		!strings.Contains(p.Text, e.BaseURL+"/dashboard?edit="+m.ID) || !strings.Contains(p.Text, "For the children") {
		t.Fatalf("author's email %q:\n%s", subj, p.Text)
	}

	// A second bounce within the hour: marked, but no second email.
	if got, _ := b.Process(e.Ctx, core.BounceReport{ReturnPath: benPath, Kind: core.BounceHard, Reason: "550 no such domain"}); got != core.BounceMarked {
		t.Fatalf("Ben's bounce: %v", got)
	}
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)

	// Soft: counted. Forged, altered, unknown: ignored.
	if got, _ := b.Process(e.Ctx, core.BounceReport{ReturnPath: annPath, Kind: core.BounceSoft, Reason: "452 mailbox full"}); got != core.BounceCounted {
		t.Fatalf("soft: %v", got)
	}
	forged := strings.Replace(annPath, "bounces+", "bounces+a", 1)
	for _, path := range []string{forged, "bounces+abc@bounces.example.net", "ann@example.com", ""} {
		if got, err := b.Process(e.Ctx, core.BounceReport{ReturnPath: path, Kind: core.BounceHard, Reason: "x"}); err != nil || got != core.BounceIgnored {
			t.Fatalf("%q: %v %v", path, got, err)
		}
	}
	if r := e.find(t, m.ID).RecipientList(); r[0].SoftBounces != 1 || r[0].Bounce.Reason == "x" {
		t.Fatalf("after soft and forged: %+v", r[0])
	}

	// Editing Ann's address clears her mark and keeps Ben's.
	recips := []core.RecipientInput{{Name: "Ann", Address: "ann@example.org"}, {Name: "Ben", Address: "BEN@example.com"}}
	if _, err := e.Messages.Update(e.As(u.ID), m.ID, core.MessageUpdate{Recipients: &recips}); err != nil {
		t.Fatal(err)
	}
	r = e.find(t, m.ID).RecipientList()
	if r[0].Bouncing() || r[0].SoftBounces != 0 || !r[1].Bouncing() {
		t.Fatalf("after the edit: %+v", r)
	}
	// A late bounce of the old address marks nothing.
	if got, _ := b.Process(e.Ctx, core.BounceReport{ReturnPath: annPath, Kind: core.BounceHard, Reason: "late"}); got != core.BounceIgnored {
		t.Fatalf("a bounce of a replaced address: %v", got)
	}
	// A deleted message: ignored.
	if err := e.Messages.Delete(e.As(u.ID), m.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Process(e.Ctx, core.BounceReport{ReturnPath: benPath, Kind: core.BounceHard, Reason: "x"}); err != nil || got != core.BounceIgnored {
		t.Fatalf("deleted: %v %v", got, err)
	}
}

// A complaint suppresses the recipient's address (the store's, never the
// report's): no notice, no delivery, no test email to it, no reminder
// copy, until an operator removes it.
func TestComplaintSuppressesTheAddress(t *testing.T) {
	e, u, m := mustBounceEnv(t)
	benPath := e.notice(t, u.ID, m.ID, "ben@example.com")
	got, err := e.Graph.BounceReports.Process(e.Ctx, core.BounceReport{ReturnPath: benPath, Kind: core.BounceComplaint, Reason: "abuse", Source: "smtp"})
	if err != nil || got != core.BounceSuppressed {
		t.Fatalf("Process = %v, %v", got, err)
	}
	l, err := e.Store.ListSuppressions(e.Ctx)
	if err != nil || len(l) != 1 || l[0].Address != "ben@example.com" || !strings.Contains(l[0].Reason, "abuse") {
		t.Fatalf("suppressions %+v %v", l, err)
	}
	if ev := e.events(t, m.ID, core.EventComplained); len(ev) != 1 || ev[0].Recipient != "ben@example.com" {
		t.Fatalf("timeline %+v", ev)
	}
	e.Clock.Add(25 * time.Hour)
	if err := e.Messages.NotifyRecipient(e.As(u.ID), m.ID, "ben@example.com"); core.ErrorCode(err) != core.ERecipientRefused {
		t.Fatalf("a notice to a suppressed address: %v", err)
	}
	e.Clock.Set(m.SendDate)
	e.pass(t, core.PassResult{Delivered: 1, Failed: 1})
	e.nextEmail(t, "ann@example.com")
	if r := e.find(t, m.ID).RecipientList(); r[1].Status != core.RecipientRefused {
		t.Fatalf("Ben: %+v", r[1])
	}
	e.pass(t, core.PassResult{}) // the author's notice of the failure
	e.nextEmail(t, "ada@example.com")
	e.NoMoreEmail(t)

	// An author whose own address complained gets no test email either.
	m2, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "t", Body: "Hi", Name: "Ann", Recipient: "ann@example.com", Interval: core.Interval1M})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Suppress(e.Ctx, &core.Suppression{Address: "ADA@example.com", At: e.Clock.Now(), Reason: "complaint"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Messages.SendTest(e.As(u.ID), m2.ID); core.ErrorCode(err) != core.ETestEmailsRefused {
		t.Fatalf("a test email to a suppressed author: %v", err)
	}
	if removed, err := e.Store.Unsuppress(e.Ctx, "ada@example.com"); err != nil || !removed {
		t.Fatal(removed, err)
	}
	if _, err := e.Messages.SendTest(e.As(u.ID), m2.ID); err != nil {
		t.Fatalf("after the removal: %v", err)
	}
}

// Before each reminder, the reminder lists the bouncing recipients with
// their reason and the link to change them.
func TestReminderListsBouncingRecipients(t *testing.T) {
	e := &deliveryEnv{testenv.New(t, testenv.Config{Start: march1, BounceDomain: "bounces.example.net"})}
	u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
	e.MustVerify(t, u.ID)
	m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "T", Body: "Dear all,\nhello", Interval: core.Interval1M,
		Recipients: []core.RecipientInput{{Name: "Ann", Address: "ann@example.com"}, {Name: "Ben", Address: "ben@example.com"}}})
	if err != nil {
		t.Fatal(err)
	}
	path := e.notice(t, u.ID, m.ID, "ann@example.com")
	e.Graph.BounceReports.AuthorEvery = time.Nanosecond
	if _, err := e.Graph.BounceReports.Process(e.Ctx, core.BounceReport{ReturnPath: path, Kind: core.BounceHard, Reason: "550 5.1.1 User unknown"}); err != nil {
		t.Fatal(err)
	}
	e.pass(t, core.PassResult{})
	e.nextEmail(t, "ada@example.com") // the bounce's email
	e.Clock.Set(m.SendDate.Add(-core.ReminderLeadTime))
	e.pass(t, core.PassResult{Reminded: 1})
	p, _ := e.nextEmail(t, "ada@example.com")
	if !strings.Contains(p.Text, "Ann <ann@example.com>: 550 5.1.1 User unknown") || strings.Contains(p.Text, "ben@example.com") ||
		!strings.Contains(p.Text, "/dashboard?edit="+m.ID) || !strings.Contains(p.HTML, "ann@example.com") {
		t.Fatalf("reminder:\n%s", p.Text)
	}
}

// A burst of bounces, arriving together, marks every recipient and sends
// the author one email.
func TestBurstOfBouncesSendsOneEmail(t *testing.T) {
	e, u, _ := mustBounceEnv(t)
	var in []core.RecipientInput
	for i := range core.MaxRecipients {
		in = append(in, core.RecipientInput{Name: "R", Address: fmt.Sprintf("r%d@example.com", i)})
	}
	m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "Burst", Body: "Dear all,\nhi", Recipients: in})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i, r := range in {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := e.Graph.Bounces.Address(core.BounceRef{MessageID: m.ID, Recipient: i, Email: core.BounceDelivery, Address: r.Address})
			if got, err := e.Graph.BounceReports.Process(e.Ctx, core.BounceReport{ReturnPath: path, Kind: core.BounceHard, Reason: "550 gone"}); err != nil || got != core.BounceMarked {
				t.Errorf("%d: %v %v", i, got, err)
			}
		}()
	}
	wg.Wait()
	for i, r := range e.find(t, m.ID).RecipientList() {
		if !r.Bouncing() {
			t.Fatalf("recipient %d not marked", i)
		}
	}
	e.pass(t, core.PassResult{})
	if p, _ := e.nextEmail(t, "ada@example.com"); !strings.Contains(p.Header.Get("Subject"), "returned your message") {
		t.Fatalf("subject %q", p.Header.Get("Subject"))
	}
	e.NoMoreEmail(t)
}

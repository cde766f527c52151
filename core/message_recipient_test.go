package core_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

func tenRecipients() []core.RecipientInput {
	var rs []core.RecipientInput
	for i := range core.MaxRecipients {
		rs = append(rs, core.RecipientInput{Name: fmt.Sprintf("Reader %d", i), Address: fmt.Sprintf("reader%d@example.com", i)})
	}
	return rs
}

// Ten recipients get one email each, with their own Message-ID; the one
// address that is refused for good does not hold back the others, who get
// it once, and the author is told about that one.
func TestTenRecipientsDeliveredIndependently(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.Delivery.Reminders = nil
	u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
	m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "To all", Body: "Dear all,\nthank you.", Recipients: tenRecipients()})
	if err != nil {
		t.Fatal(err)
	}
	e.SMTP.Reject("reader3@example.com", 550, "no such user")
	e.Clock.Set(m.SendDate)
	e.pass(t, core.PassResult{Delivered: 9, Failed: 1})

	ids := map[string]bool{}
	for i, r := range tenRecipients() {
		if i == 3 {
			continue
		}
		p, raw := e.nextEmail(t, r.Address)
		if len(raw.To) != 1 || p.Header.Get("Cc") != "" || p.Header.Get("Bcc") != "" {
			t.Fatalf("the email to %s went to %v (cc %q)", r.Address, raw.To, p.Header.Get("Cc"))
		}
		if !strings.Contains(p.Header.Get("To"), r.Name) {
			t.Fatalf("the email to %s is addressed %q", r.Address, p.Header.Get("To"))
		}
		id := p.Header.Get("Message-Id")
		if ids[id] {
			t.Fatalf("Message-ID %s used twice", id)
		}
		ids[id] = true
		if !strings.Contains(p.Header.Get("List-Unsubscribe"), "/unsubscribe/") {
			t.Fatalf("the email to %s has no refusal link of its own", r.Address)
		}
	}
	notice, _ := e.nextEmail(t, "ada@example.com")
	if !strings.Contains(notice.Text, "reader3@example.com") || !strings.Contains(notice.Text, "no such user") {
		t.Fatalf("the author's notice does not name the address and why:\n%s", notice.Text)
	}
	e.NoMoreEmail(t)

	got := e.find(t, m.ID)
	if got.Status != core.StatusDelivered || len(got.Recipients) != 10 {
		t.Fatalf("message %s with %d recipients", got.Status, len(got.Recipients))
	}
	for i, r := range got.Recipients {
		want := core.RecipientSent
		if i == 3 {
			want = core.RecipientFailed
		}
		if r.Status != want || r.EmailMessageID == "" {
			t.Fatalf("recipient %d: %s, Message-ID %q", i, r.Status, r.EmailMessageID)
		}
	}
	// Later passes send nobody anything again.
	e.Clock.Add(24 * time.Hour)
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
}

// A temporary failure of one recipient retries that recipient alone, on
// their own schedule, with the same Message-ID; the message is delivered
// when the last one is.
func TestOneRecipientRetriesAlone(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.Delivery.Reminders = nil
	u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
	m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "Two", Body: "Hello", Recipients: []core.RecipientInput{
		{Name: "Grace", Address: "grace@example.com"}, {Name: "Alan", Address: "alan@example.com"}}})
	if err != nil {
		t.Fatal(err)
	}
	e.Clock.Set(m.SendDate)
	e.SMTP.FailNext(1, 451, "greylisted") // the first RCPT: Grace's
	e.pass(t, core.PassResult{Delivered: 1, Retried: 1})
	e.nextEmail(t, "alan@example.com")
	e.NoMoreEmail(t)
	got := e.find(t, m.ID)
	if got.Status != core.StatusScheduled || got.Recipients[0].Attempts != 1 || got.Recipients[1].Status != core.RecipientSent {
		t.Fatalf("after one failure: %s %+v", got.Status, got.Recipients)
	}
	firstID := got.Recipients[0].EmailMessageID
	if _, err := e.Messages.Postpone(e.As(u.ID), m.ID); core.ErrorCode(err) != core.EConflict {
		t.Fatalf("postponing a message that reached one recipient: %v", err)
	}
	e.Clock.Add(core.RetryDelays[0])
	e.pass(t, core.PassResult{Delivered: 1})
	p, _ := e.nextEmail(t, "grace@example.com")
	if p.Header.Get("Message-Id") != "<"+firstID+">" {
		t.Fatalf("the retry's Message-ID %s, want %s", p.Header.Get("Message-Id"), firstID)
	}
	e.NoMoreEmail(t)
	if got := e.find(t, m.ID); got.Status != core.StatusDelivered {
		t.Fatalf("after the retry: %s", got.Status)
	}
}

// The free plan keeps one recipient; Pro has up to ten; eleven is never
// valid; each row is checked with the messages of SPEC.md section 5.
func TestRecipientLimits(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	free := e.MustUser(t, "free@example.com", "", core.PlanStarter)
	pro := e.MustUser(t, "pro@example.com", "", core.PlanPro)
	two := []core.RecipientInput{{Name: "A", Address: "a@example.com"}, {Name: "B", Address: "b@example.com"}}
	_, err := e.Messages.Create(e.As(free.ID), core.MessageInput{Title: "T", Body: "B", Recipients: two})
	if core.ErrorCode(err) != core.EPlanLimit || !strings.Contains(core.ErrorMessage(err), "1 recipient") {
		t.Fatalf("free plan with 2 recipients: %v", err)
	}
	eleven := append(tenRecipients(), core.RecipientInput{Name: "K", Address: "k@example.com"})
	_, err = e.Messages.Create(e.As(pro.ID), core.MessageInput{Title: "T", Body: "B", Recipients: eleven})
	if f := fieldsOf(t, err); f["recipients"] != "A message has at most 10 recipients" {
		t.Fatalf("11 recipients: %v %v", err, f)
	}
	bad := []core.RecipientInput{{Name: "A", Address: "a@example.com"}, {Name: "", Address: "A@example.com"}, {Name: "C", Address: ""}}
	_, err = e.Messages.Create(e.As(pro.ID), core.MessageInput{Title: "T", Body: "B", Recipients: bad})
	f := fieldsOf(t, err)
	if f["recipients[1].name"] != "Please enter a recipient name" || f["recipients[1].recipient"] != "This address is already a recipient of this message" ||
		f["recipients[2].recipient"] != "Please enter a recipient email address" {
		t.Fatalf("bad rows: %v", f)
	}
	m, err := e.Messages.Create(e.As(pro.ID), core.MessageInput{Title: "T", Body: "B", Recipients: two})
	if err != nil || m.Name != "A" || m.Recipient != "a@example.com" || len(m.Recipients) != 2 {
		t.Fatalf("pro with 2 recipients: %v %+v", err, m)
	}
	// An edit replaces the list; name and recipient stay the first's.
	three := append(two, core.RecipientInput{Name: "C", Address: "c@example.com"})
	up, err := e.Messages.Update(e.As(pro.ID), m.ID, core.MessageUpdate{Recipients: &three})
	if err != nil || len(up.Recipients) != 3 {
		t.Fatalf("edit to 3: %v", err)
	}
	one := "z@example.com"
	up, err = e.Messages.Update(e.As(pro.ID), m.ID, core.MessageUpdate{Recipient: &one})
	if err != nil || up.Recipients[0].Address != one || up.Recipient != one || len(up.Recipients) != 3 {
		t.Fatalf("edit of the first address: %v %+v", err, up)
	}
}

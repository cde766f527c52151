package core_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// "Tell the recipient now": the recipient gets a notice naming the author
// and nothing of the message, with a one-click refusal that works: after
// it, no notice and no delivery goes to that address.
func TestNotifyRecipient(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
	ctx := e.As(u.ID)
	m, err := e.Messages.Create(ctx, core.MessageInput{Title: "Secret title", Body: "The key is under the mat.",
		Recipients: []core.RecipientInput{{Name: "Ann", Address: "ann@example.com"}, {Name: "Ben", Address: "ben@example.com"}}})
	if err != nil {
		t.Fatal(err)
	}
	// Nothing the author causes goes to anyone before they confirm their address.
	if err := e.Messages.NotifyRecipient(ctx, m.ID, "ann@example.com"); core.ErrorCode(err) != core.EEmailNotVerified {
		t.Fatalf("an unverified author: %v", err)
	}
	e.MustVerify(t, u.ID)
	if err := e.Messages.NotifyRecipient(ctx, m.ID, "eve@example.com"); core.ErrorCode(err) != core.EValidation {
		t.Fatalf("not a recipient: %v", err)
	}
	if err := e.Messages.NotifyRecipient(e.As(e.MustUser(t, "eve@example.com", "", core.PlanPro).ID), m.ID, "ann@example.com"); core.ErrorCode(err) != core.EMessageNotFound {
		t.Fatalf("another user's message: %v", err)
	}
	if err := e.Messages.NotifyRecipient(ctx, m.ID, "ANN@example.com"); err != nil {
		t.Fatal(err)
	}
	e.pass(t, core.PassResult{}) // the outbox sends it
	p, raw := e.nextEmail(t, "ann@example.com")
	if len(raw.To) != 1 || !strings.Contains(p.Header.Get("Subject"), "Ada Lovelace has written you a message") ||
		!strings.Contains(p.Text, "Hello Ann,") || !strings.Contains(p.Text, "nothing to do") ||
		strings.Contains(p.Text+p.HTML+p.Header.Get("Subject"), "key") || strings.Contains(p.Text+p.HTML, "Secret title") {
		t.Fatalf("notice %q to %v:\n%s", p.Header.Get("Subject"), raw.To, p.Text)
	}
	e.NoMoreEmail(t)

	// One a day for each address.
	if err := e.Messages.NotifyRecipient(ctx, m.ID, "ann@example.com"); core.ErrorCode(err) != core.ETooManyRequests {
		t.Fatalf("a second notice the same day: %v", err)
	}
	if err := e.Messages.NotifyRecipient(ctx, m.ID, "ben@example.com"); err != nil {
		t.Fatalf("another recipient: %v", err)
	}
	e.pass(t, core.PassResult{})
	e.nextEmail(t, "ben@example.com")

	// Ann refuses with the notice's one-click link.
	unsub := strings.Trim(p.Header.Get("List-Unsubscribe"), "<>")
	if p.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" || !strings.HasPrefix(unsub, e.BaseURL+"/unsubscribe/") {
		t.Fatalf("no one-click refusal: %q", unsub)
	}
	if _, err := e.Refuse.Refuse(e.Ctx, strings.TrimPrefix(unsub, e.BaseURL+"/unsubscribe/")); err != nil {
		t.Fatal(err)
	}
	e.Clock.Add(25 * time.Hour)
	if err := e.Messages.NotifyRecipient(ctx, m.ID, "ann@example.com"); core.ErrorCode(err) != core.ERecipientRefused {
		t.Fatalf("a notice after the refusal: %v", err)
	}
	e.Clock.Set(m.SendDate)
	e.pass(t, core.PassResult{Delivered: 1, Failed: 1}) // Ben's delivery; Ann's refused
	e.nextEmail(t, "ben@example.com")
}

package core_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// watchingMailer sends through next and, before the send to last, waits
// until the store shows every earlier recipient sent, as a kill at that
// moment would find it.
type watchingMailer struct {
	next  core.Mailer
	store core.MessageStore
	id    string
	last  string
	err   chan error
}

func (w *watchingMailer) Send(ctx context.Context, e *core.Email) error {
	if e.To[0].Address == w.last {
		w.err <- w.earlierSent()
	}
	return w.next.Send(ctx, e)
}

func (w *watchingMailer) earlierSent() error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		m, err := w.store.FindMessageByID(context.Background(), w.id)
		if err != nil {
			return err
		}
		sent := 0
		for _, r := range m.RecipientList() {
			if r.Status == core.RecipientSent {
				sent++
			}
		}
		if sent == len(m.RecipientList())-1 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("while the last recipient is sent, %d of the %d before it are recorded sent", sent, len(m.RecipientList())-1)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A mail server's acceptance is recorded as soon as it comes, not after the
// message's other recipients were sent: a pass killed while it sends to the
// last recipient sends none of the others again.
func TestAnAcceptanceIsRecordedBeforeTheNextRecipientIsSent(t *testing.T) {
	testenv.Backends(t, testenv.Config{Start: march1}, func(t *testing.T, te *testenv.Env) {
		e := &deliveryEnv{te}
		e.Delivery.Reminders = nil
		u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
		var rs []core.RecipientInput
		for i := range 4 {
			rs = append(rs, core.RecipientInput{Name: fmt.Sprintf("Reader %d", i), Address: fmt.Sprintf("reader%d@example.com", i)})
		}
		m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "To all", Body: "Hello.", Recipients: rs, Interval: core.Interval1M})
		if err != nil {
			t.Fatal(err)
		}
		w := &watchingMailer{next: e.Mailer, store: e.Store, id: m.ID, last: "reader3@example.com", err: make(chan error, 1)}
		e.Delivery.Mailer = w
		e.Clock.Set(m.SendDate)
		e.pass(t, core.PassResult{Delivered: 4})
		if err := <-w.err; err != nil {
			t.Fatal(err)
		}
		got := e.find(t, m.ID)
		if got.Status != core.StatusDelivered {
			t.Fatalf("status %s", got.Status)
		}
		events, err := e.Store.ListMessageEvents(e.Ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		sent := map[string]int{}
		for _, ev := range events {
			if ev.Kind == core.EventSent {
				sent[ev.Recipient]++
			}
		}
		if len(sent) != 4 || sent["reader0@example.com"] != 1 || sent["reader3@example.com"] != 1 {
			t.Fatalf("sent entries %v", sent)
		}
		e.NextEach(t, "reader0@example.com", "reader1@example.com", "reader2@example.com", "reader3@example.com")
		e.NoMoreEmail(t)
	})
}

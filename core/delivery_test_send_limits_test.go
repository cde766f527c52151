package core_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// The probe of issue 26: a free account that never verified its address
// sent 101 emails of its own text in 7 s (create, 5 tests, delete, again).

// sent is how many emails the mail server received once the outbox left.
func sent(e *testenv.Env) int {
	e.Mailbox.Flush()
	return len(e.Mailbox.SMTP.Messages())
}

// probeMessage is the probe's message: the author's own text, to anyone.
func probeMessage(t *testing.T, e *testenv.Env, uid string) *core.Message {
	t.Helper()
	m, err := e.Messages.Create(e.As(uid), core.MessageInput{Title: "T", Name: "Bob", Recipient: "bob@example.com",
		Body: "Cheap pills at https://spam.example"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// An account whose address is not verified sends no test: the refusal says
// to confirm the address first, nothing is queued or sent, and the refused
// tries count for nothing once the address is confirmed.
func TestSendTestNeedsAVerifiedAddress(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		u := e.MustUser(t, "victim@example.com", "", core.PlanStarter)
		m := probeMessage(t, e, u.ID)
		for range 10 {
			n, err := e.Messages.SendTest(e.As(u.ID), m.ID)
			if core.ErrorCode(err) != core.EEmailNotVerified || n != 0 ||
				!strings.Contains(core.ErrorMessage(err), "confirm your email address") {
				t.Fatalf("a test from an unverified account: %d %v", n, err)
			}
		}
		if got := sent(e); got != 0 {
			t.Fatalf("an unverified account sent %d emails", got)
		}
		if pending, _, err := e.Store.CountOutbox(e.Ctx); err != nil || pending != 0 {
			t.Fatalf("%d emails queued (%v)", pending, err)
		}
		e.MustVerify(t, u.ID)
		if n, err := e.Messages.SendTest(e.As(u.ID), m.ID); err != nil || n != 1 {
			t.Fatalf("the test once verified: %d %v", n, err)
		}
		e.Next(t, "victim@example.com")
	})
}

// The limit is the account's, not the message's: create, test until
// refused, delete, again, sends 5 an hour and 20 a day, however many
// messages come and go; the refusal is a 429 with the wait.
func TestSendTestIsLimitedPerAccountNotPerMessage(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		u := e.MustUser(t, "ada@example.com", "", core.PlanStarter)
		e.MustVerify(t, u.ID)
		ok := 0
		round := func() {
			t.Helper()
			for range 3 { // three messages an hour, each tested until refused
				m := probeMessage(t, e, u.ID)
				for {
					_, err := e.Messages.SendTest(e.As(u.ID), m.ID)
					if err != nil {
						ce, _ := core.AsError(err)
						if core.ErrorCode(err) != core.ETooManyRequests || ce.RetryAfter <= 0 {
							t.Fatalf("after %d tests: %v", ok, err)
						}
						break
					}
					ok++
				}
				if err := e.Messages.Delete(e.As(u.ID), m.ID); err != nil {
					t.Fatal(err)
				}
			}
		}
		round()
		if ok != core.LimitTestSendsAccountHour.Max || sent(e) != ok {
			t.Fatalf("%d tests in an hour (%d emails), want %d", ok, sent(e), core.LimitTestSendsAccountHour.Max)
		}
		for range 10 {
			e.Clock.Add(time.Hour)
			round()
		}
		if ok != core.LimitTestSendsAccountDay.Max || sent(e) != ok {
			t.Fatalf("%d tests in 11 hours (%d emails), want %d", ok, sent(e), core.LimitTestSendsAccountDay.Max)
		}
		e.Clock.Add(14 * time.Hour) // a day after the first
		round()
		if ok != core.LimitTestSendsAccountDay.Max+core.LimitTestSendsAccountHour.Max {
			t.Fatalf("%d tests the next day", ok-core.LimitTestSendsAccountDay.Max)
		}
	})
}

// The limit is the receiving address's too: an address that received 5
// tests of one account this hour receives none of another that took it
// over; the first account, at its new address, is held by its own count.
func TestSendTestIsLimitedPerAddress(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		first := e.MustUser(t, "shared@example.com", "", core.PlanStarter)
		e.MustVerify(t, first.ID)
		m := probeMessage(t, e, first.ID)
		for i := range core.LimitTestSendsAddressHour.Max {
			if _, err := e.Messages.SendTest(e.As(first.ID), m.ID); err != nil {
				t.Fatalf("test %d: %v", i+1, err)
			}
		}
		if _, err := e.Store.UpdateUser(e.Ctx, first.ID, func(u *core.User) error {
			u.Email = "elsewhere@example.com" // verified again below
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		second := e.MustUser(t, "Shared@Example.com", "", core.PlanStarter)
		e.MustVerify(t, second.ID)
		other := probeMessage(t, e, second.ID)
		if _, err := e.Messages.SendTest(e.As(second.ID), other.ID); core.ErrorCode(err) != core.ETooManyRequests {
			t.Fatalf("a second account's test to the same address: %v", err)
		}
		if _, err := e.Messages.SendTest(e.As(first.ID), m.ID); core.ErrorCode(err) != core.ETooManyRequests {
			t.Fatalf("the first account at its new address: %v", err)
		}
		if got := sent(e); got != core.LimitTestSendsAddressHour.Max {
			t.Fatalf("%d emails, want %d", got, core.LimitTestSendsAddressHour.Max)
		}
		e.Clock.Add(time.Hour)
		if _, err := e.Messages.SendTest(e.As(second.ID), other.ID); err != nil {
			t.Fatalf("an hour later: %v", err)
		}
	})
}

// A test email carries the one-click refusal of further test emails to its
// address (RFC 8058); once used, no test is sent to that address, while
// deliveries to it go on. A delivery's refusal of every message stops
// tests too; neither kind of token passes for the other.
func TestTestEmailsCarryAOneClickRefusal(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		u := e.MustUser(t, "ada@example.com", "", core.PlanStarter)
		e.MustVerify(t, u.ID)
		m := probeMessage(t, e, u.ID)
		if _, err := e.Messages.SendTest(e.As(u.ID), m.ID); err != nil {
			t.Fatal(err)
		}
		p, _ := e.Next(t, "ada@example.com")
		link := p.Header.Get("List-Unsubscribe")
		prefix := "<" + e.BaseURL + "/unsubscribe/"
		if !strings.HasPrefix(link, prefix) || !strings.HasSuffix(link, ">") ||
			p.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
			t.Fatalf("List-Unsubscribe %q, List-Unsubscribe-Post %q", link, p.Header.Get("List-Unsubscribe-Post"))
		}
		token := strings.TrimSuffix(strings.TrimPrefix(link, prefix), ">")
		if _, err := e.Refusals.Address(token); core.ErrorCode(err) != core.EInvalid {
			t.Fatalf("a test email's token passed for a refusal of every message: %v", err)
		}
		if kind, err := e.Refuse.Check(token); err != nil || kind != core.RefuseTestEmails {
			t.Fatalf("check: %v %v", kind, err)
		}
		if kind, err := e.Refuse.Refuse(e.Ctx, token); err != nil || kind != core.RefuseTestEmails {
			t.Fatalf("refuse: %v %v", kind, err)
		}
		n, err := e.Messages.SendTest(e.As(u.ID), m.ID)
		if core.ErrorCode(err) != core.ETestEmailsRefused || n != 0 || !strings.Contains(core.ErrorMessage(err), "ada@example.com refused test emails") {
			t.Fatalf("a test after the refusal: %d %v", n, err)
		}
		e.NoMoreEmail(t)
		if refused, err := e.Store.AddressRefused(e.Ctx, "ada@example.com"); err != nil || refused {
			t.Fatalf("refusing test emails refused every message: %v %v", refused, err)
		}

		// A delivery's refusal of every message stops tests to the address.
		v := e.MustUser(t, "ben@example.com", "", core.PlanStarter)
		e.MustVerify(t, v.ID)
		vm := probeMessage(t, e, v.ID)
		if kind, err := e.Refuse.Refuse(e.Ctx, e.Refusals.Token("Ben@example.com")); err != nil || kind != core.RefuseMessages {
			t.Fatalf("refuse every message: %v %v", kind, err)
		}
		if _, err := e.Messages.SendTest(e.As(v.ID), vm.ID); core.ErrorCode(err) != core.ETestEmailsRefused {
			t.Fatalf("a test to an address that refused every message: %v", err)
		}
		e.NoMoreEmail(t)
	})
}

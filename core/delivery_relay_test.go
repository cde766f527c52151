package core_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/mailer"
)

// The service's relay goes by a name the tests can look for: what an author
// reads of a failed send (the timeline, lastError, the failure notice) is
// the mail server's reply or neutral words, never the relay's host, port or
// an internal address.
const (
	relayHost = "relay.internal.sendlater-ops.test"
	relayPort = 2525
	relayIP   = "10.0.0.5"
)

// relayMailer sends through relayHost:relayPort, which it dials at addr.
func relayMailer(t *testing.T, addr string) core.Mailer {
	t.Helper()
	m, err := mailer.NewSMTP(mailer.SMTPConfig{
		Host: relayHost, Port: relayPort, TLS: mailer.TLSNone, Timeout: 5 * time.Second,
		From: core.Address{Address: testenv.Sender},
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "tcp", addr)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// closedAddr is an address where nothing listens.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// routeMailer sends the email to down through a relay that cannot be
// reached, and every other email through up.
type routeMailer struct {
	up, broken core.Mailer
	down       string
}

func (r *routeMailer) Send(ctx context.Context, e *core.Email) error {
	if len(e.To) > 0 && e.To[0].Address == r.down {
		return r.broken.Send(ctx, e)
	}
	return r.up.Send(ctx, e)
}

// leaksRelay names what of the relay a text shows, "" when nothing.
func leaksRelay(text string) string {
	for _, s := range []string{relayHost, "2525", relayIP, "127.0.0.1", "dial tcp", "mailer:", "RCPT TO", "send via"} {
		if strings.Contains(text, s) {
			return s
		}
	}
	return ""
}

// authorTexts are the texts an author reads of message id: its lastError,
// its recipients' and its timeline's details.
func authorTexts(t *testing.T, e *deliveryEnv, id string) []string {
	t.Helper()
	m, err := e.Store.FindMessageByID(e.Ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{m.LastError}
	for _, r := range m.RecipientList() {
		texts = append(texts, r.LastError)
	}
	events, err := e.Store.ListMessageEvents(e.Ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		texts = append(texts, ev.Detail)
	}
	return texts
}

func TestAuthorsReadTheRemoteReplyNotTheRelay(t *testing.T) {
	testenv.Backends(t, testenv.Config{Start: march1}, func(t *testing.T, te *testenv.Env) {
		e := &deliveryEnv{te}
		e.Delivery.Reminders = nil
		e.Delivery.Mailer = relayMailer(t, e.SMTP.Addr())
		// A relay that names itself and the client's address in its reply.
		e.SMTP.Reject("charles@example.com", 550,
			"<charles@example.com>: Recipient address rejected: User unknown at "+relayHost+" (client ["+relayIP+"])")
		u := e.mustUser(t, "ada@example.com", "")
		m := e.mustMessage(t, u.ID, core.Interval1M)
		e.Clock.Set(m.SendDate)
		e.pass(t, core.PassResult{Failed: 1})

		texts := authorTexts(t, e, m.ID)
		joined := strings.Join(texts, "\n")
		if leak := leaksRelay(joined); leak != "" {
			t.Fatalf("the author reads %q:\n%s", leak, joined)
		}
		if !strings.Contains(joined, "550 5.0.0 <charles@example.com>: Recipient address rejected: User unknown at [hidden] (client [hidden])") {
			t.Fatalf("the reply is not there:\n%s", joined)
		}
		p, _ := e.Next(t, "ada@example.com") // the failure notice
		if leak := leaksRelay(p.Text + p.HTML); leak != "" || !strings.Contains(p.Text, "550 5.0.0 <charles@example.com>") {
			t.Fatalf("the notice shows %q:\n%s", leak, p.Text)
		}
	})
}

func TestAuthorsReadNeutralWordsWhenTheRelayIsUnreachable(t *testing.T) {
	testenv.Backends(t, testenv.Config{Start: march1}, func(t *testing.T, te *testenv.Env) {
		e := &deliveryEnv{te}
		e.Delivery.Reminders = nil
		e.Delivery.Mailer = &routeMailer{up: relayMailer(t, e.SMTP.Addr()),
			broken: relayMailer(t, closedAddr(t)), down: "charles@example.com"}
		u := e.mustUser(t, "ada@example.com", "")
		m := e.mustMessage(t, u.ID, core.Interval1M)
		e.Clock.Set(m.SendDate)
		e.pass(t, core.PassResult{Retried: 1})
		for range len(core.RetryDelays) - 1 {
			e.Clock.Set(e.find(t, m.ID).NextAttemptAt)
			e.pass(t, core.PassResult{Retried: 1})
		}
		e.Clock.Set(e.find(t, m.ID).NextAttemptAt)
		e.pass(t, core.PassResult{Failed: 1})

		texts := authorTexts(t, e, m.ID)
		joined := strings.Join(texts, "\n")
		if leak := leaksRelay(joined); leak != "" || strings.Contains(joined, "refused") {
			t.Fatalf("the author reads %q:\n%s", leak, joined)
		}
		if !strings.Contains(joined, "Our mail server could not be reached") {
			t.Fatalf("no neutral words:\n%s", joined)
		}
		p, _ := e.Next(t, "ada@example.com")
		if leak := leaksRelay(p.Text + p.HTML); leak != "" || !strings.Contains(p.Text, "could not be reached") {
			t.Fatalf("the notice shows %q:\n%s", leak, p.Text)
		}
	})
}

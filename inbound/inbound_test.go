package inbound_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/emersion/go-smtp"
	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/inbound"
	"github.com/sendlater/sendlater/internal/testenv"
)

const bounceDomain = "bounces.sendlater.test"

func start(t testing.TB, e *testenv.Env, cfg inbound.Config) string {
	t.Helper()
	cfg.Addresses, cfg.Processor = e.Graph.Bounces, e.Graph.BounceReports
	srv, err := inbound.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// deliver sends raw over SMTP to the listener at addr, from the null
// sender (as bounces come) to rcpt.
func deliver(addr, rcpt string, raw []byte) error {
	c, err := smtp.Dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Hello("mx.example.org"); err != nil {
		return err
	}
	if err := c.Mail("", nil); err != nil {
		return err
	}
	if err := c.Rcpt(rcpt, nil); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(raw); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixturePath(name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fixturePath is the path of the bounce fixture name (mailer/bounce's testdata).
func fixturePath(name string) string {
	return filepath.Join("..", "mailer", "bounce", "testdata", name)
}

// Each fixture, delivered over SMTP to the listener at the return path of
// a notice, ends in the right recipient's mark, the author's email and the
// timeline event; a complaint in the suppression list; a success notice or
// an email that is no report in nothing.
func TestFixturesOverSMTP(t *testing.T) {
	testenv.Backends(t, testenv.Config{BounceDomain: bounceDomain}, fixturesOverSMTP)
}

func fixturesOverSMTP(t *testing.T, e *testenv.Env) {
	addr := start(t, e, inbound.Config{})
	for i, c := range []struct {
		file, recipient string
		want            core.BounceOutcome
		reason          string
	}{
		{"postfix-hard.eml", "bob@example.org", core.BounceMarked, "User unknown in virtual mailbox table"},
		{"gmail-hard.eml", "frank.nobody@gmail.com", core.BounceMarked, "The email account that you tried to reach does not exist"},
		{"m365-hard.eml", "grace@contoso.com", core.BounceMarked, "RESOLVER.ADR.RecipientNotFound"},
		{"exim-hard-and-soft.eml", "dan@example.com", core.BounceMarked, "550 No such user here"},
		{"postfix-delayed.eml", "carol@slow.example.net", core.BounceCounted, ""},
		{"arf-yahoo.eml", "ivy@yahoo.com", core.BounceSuppressed, ""},
		{"arf-headers-only.eml", "jack@outlook.com", core.BounceSuppressed, ""},
		{"delivered.eml", "henry@example.org", core.BounceIgnored, ""},
		{"not-a-report.eml", "kim@example.org", core.BounceIgnored, ""},
	} {
		t.Run(c.file, func(t *testing.T) {
			u := e.MustUser(t, fmt.Sprintf("author%d@example.com", i), "", core.PlanPro)
			e.MustVerify(t, u.ID)
			m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "Letter " + c.file, Body: "Dear you,\nhello",
				Name: "R", Recipient: c.recipient, Interval: core.Interval1M})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Messages.NotifyRecipient(e.As(u.ID), m.ID, c.recipient); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Delivery.Run(e.Ctx); err != nil {
				t.Fatal(err)
			}
			_, notice := e.Next(t, c.recipient)
			if err := deliver(addr, notice.From, fixture(t, c.file)); err != nil {
				t.Fatalf("delivering the report: %v", err)
			}
			got, err := e.Store.FindMessageByID(e.Ctx, m.ID)
			if err == nil {
				err = core.JoinBounceMarks(e.Ctx, e.Store, got)
			}
			if err != nil {
				t.Fatal(err)
			}
			r := got.RecipientList()[0]
			events, err := e.Store.ListMessageEvents(e.Ctx, m.ID)
			if err != nil {
				t.Fatal(err)
			}
			last := events[len(events)-1]
			suppressed, _ := e.Store.AddressRefused(e.Ctx, c.recipient)
			if _, err := e.Delivery.Run(e.Ctx); err != nil { // sends the author's email, if any
				t.Fatal(err)
			}
			switch c.want {
			case core.BounceMarked:
				if !r.Bouncing() || !strings.Contains(r.Bounce.Reason, c.reason) || last.Kind != core.EventBounced || last.Recipient != c.recipient {
					t.Fatalf("recipient %+v, last event %+v", r, last)
				}
				p, _ := e.Next(t, u.Email)
				if !strings.Contains(p.Header.Get("Subject"), c.recipient+"> returned your notice") || !strings.Contains(p.Text, c.reason) {
					t.Fatalf("author's email %q:\n%s", p.Header.Get("Subject"), p.Text)
				}
			case core.BounceCounted:
				if r.Bouncing() || r.SoftBounces != 1 {
					t.Fatalf("recipient %+v", r)
				}
			case core.BounceSuppressed:
				if !suppressed || last.Kind != core.EventComplained || r.Bouncing() {
					t.Fatalf("suppressed %v, last event %+v", suppressed, last)
				}
			default:
				if r.Bouncing() || r.SoftBounces != 0 || suppressed || last.Kind == core.EventBounced {
					t.Fatalf("recipient %+v, suppressed %v", r, suppressed)
				}
			}
			e.NoMoreEmail(t)
		})
	}
}

// Mail for any other address is refused; so is one too large, and more
// than the rate allows from one client.
func TestListenerRefusals(t *testing.T) {
	e := testenv.New(t, testenv.Config{BounceDomain: bounceDomain})
	addr := start(t, e, inbound.Config{MaxSize: 8192, RatePerMinute: 5})
	raw := fixture(t, "postfix-hard.eml")
	var se *smtp.SMTPError
	for _, rcpt := range []string{"postmaster@" + bounceDomain, "bounces+x@example.com", "ann@example.com"} {
		if err := deliver(addr, rcpt, raw); !errors.As(err, &se) || se.Code != 550 {
			t.Fatalf("RCPT %s: %v", rcpt, err)
		}
	}
	big := append([]byte("Subject: x\r\n\r\n"), []byte(strings.Repeat("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n", 200))...)
	if err := deliver(addr, "bounces+x@"+bounceDomain, big); !errors.As(err, &se) || se.Code != 552 {
		t.Fatalf("too large: %v", err)
	}
	// A forged token is taken (a bounce server is never told which
	// tokens exist) and changes nothing.
	if err := deliver(addr, "bounces+aaaaaaaaaaaaaaaaaaaaaaaa@"+bounceDomain, raw); err != nil {
		t.Fatalf("a forged token: %v", err)
	}
	if l, _ := e.Store.ListSuppressions(e.Ctx); len(l) != 0 {
		t.Fatal(l)
	}
	// Five emails so far: the rate of 5 a minute refuses the sixth.
	if err := deliver(addr, "bounces+x@"+bounceDomain, raw); !errors.As(err, &se) || se.Code != 421 {
		t.Fatalf("beyond the rate: %v", err)
	}
}

// A feedback loop that sends its complaint reports (ARF) to the fixed
// address fbl@<bounce domain> instead of the return path: a report
// quoting our return path (Original-Mail-From, or the returned message's
// Return-Path) suppresses that email's recipient; one quoting none of
// ours (a headers-only report without Return-Path, a forged token), and a
// DSN sent there, change nothing. The same report sent to both addresses
// counts once.
func TestFeedbackLoopAddress(t *testing.T) {
	testenv.Backends(t, testenv.Config{BounceDomain: bounceDomain}, feedbackLoopAddress)
}

func feedbackLoopAddress(t *testing.T, e *testenv.Env) {
	addr := start(t, e, inbound.Config{})
	fbl := e.Graph.Bounces.FeedbackAddress()
	if fbl != "fbl@"+bounceDomain {
		t.Fatalf("feedback address %q", fbl)
	}
	u := e.MustUser(t, "ann@example.com", "", core.PlanPro)
	e.MustVerify(t, u.ID)
	send := func(recipient string) (*core.Message, string) {
		m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "To " + recipient, Body: "Dear you,\nhello",
			Name: "R", Recipient: recipient, Interval: core.Interval1M})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Messages.NotifyRecipient(e.As(u.ID), m.ID, recipient); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Delivery.Run(e.Ctx); err != nil {
			t.Fatal(err)
		}
		_, notice := e.Next(t, recipient)
		return m, notice.From
	}
	// The Yahoo report names its return path in Original-Mail-From and
	// in the returned message's Return-Path; each alone is enough.
	yahoo := string(fixture(t, "arf-yahoo.eml"))
	const quoted = "bounces+tok7@bounces.sendlater.test"
	onlyReturnPath := strings.Replace(yahoo, "Original-Mail-From: <"+quoted+">\r\n", "", 1)
	if onlyReturnPath == yahoo {
		t.Fatal("the fixture has no Original-Mail-From")
	}
	for _, c := range []struct {
		name, recipient, raw string
		suppressed           bool
	}{
		{"original-mail-from and return-path", "ivy@yahoo.com", yahoo, true},
		{"return-path alone", "ivy2@yahoo.com", onlyReturnPath, true},
		{"no return path quoted", "jack@outlook.com", string(fixture(t, "arf-headers-only.eml")), false},
		{"a dsn", "bob@example.org", string(fixture(t, "postfix-hard.eml")), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, path := send(c.recipient)
			raw := strings.ReplaceAll(c.raw, quoted, path)
			if raw == c.raw && c.suppressed {
				t.Fatal("the fixture quotes no return path")
			}
			if err := deliver(addr, strings.ToUpper(fbl), []byte(raw)); err != nil {
				t.Fatalf("delivering the report: %v", err)
			}
			suppressed, err := e.Store.AddressRefused(e.Ctx, c.recipient)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Store.FindMessageByID(e.Ctx, m.ID)
			if err == nil {
				err = core.JoinBounceMarks(e.Ctx, e.Store, got)
			}
			if err != nil {
				t.Fatal(err)
			}
			if r := got.RecipientList()[0]; suppressed != c.suppressed || r.Bouncing() || r.SoftBounces != 0 {
				t.Fatalf("suppressed %v (want %v), recipient %+v", suppressed, c.suppressed, r)
			}
			if _, err := e.Delivery.Run(e.Ctx); err != nil {
				t.Fatal(err)
			}
			e.NoMoreEmail(t)
		})
	}
	// A forged token quoted is ignored; the report sent to the return
	// path and to the loop's address in one transaction counts once (one
	// complained event).
	m, path := send("kim@example.org")
	forged := strings.ReplaceAll(yahoo, quoted, "bounces+aaaaaaaaaaaaaaaaaaaaaaaa@"+bounceDomain)
	if err := deliver(addr, fbl, []byte(forged)); err != nil {
		t.Fatal(err)
	}
	if l, _ := e.Store.ListSuppressions(e.Ctx); len(l) != 2 {
		t.Fatalf("%d suppressed after a forged token, want the 2 before", len(l))
	}
	c, err := smtp.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SendMail("", []string{path, fbl}, strings.NewReader(strings.ReplaceAll(yahoo, quoted, path))); err != nil {
		t.Fatal(err)
	}
	events, err := e.Store.ListMessageEvents(e.Ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	complained := 0
	for _, ev := range events {
		if ev.Kind == core.EventComplained {
			complained++
		}
	}
	if complained != 1 {
		t.Fatalf("%d complained events, want 1", complained)
	}
}

// A mail server pipelining its commands (RFC 2920: MAIL, RCPT and DATA in
// one write, as Postfix and Exim do where PIPELINING is announced) gets
// every reply, the listener writing them together before it reads again,
// and each of its reports on one connection marks its recipient.
func TestPipelinedReports(t *testing.T) {
	e := testenv.New(t, testenv.Config{BounceDomain: bounceDomain})
	u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
	paths := targets(t, e, u, 3)
	addr := start(t, e, inbound.Config{})
	m, err := dialMTA(addr, "mx.example.org")
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	payload := dataPayload(fixture(t, "postfix-hard.eml"))
	for _, p := range paths {
		if err := m.send(p, payload); err != nil {
			t.Fatalf("sending to %s: %v", p, err)
		}
	}
	for _, p := range paths {
		ref, _ := e.Graph.Bounces.Read(p)
		marks, err := e.Store.ListBounceMarks(e.Ctx, []string{ref.MessageID})
		if err != nil {
			t.Fatal(err)
		}
		if len(marks) != 1 || marks[0].Bounce.Reason == "" {
			t.Errorf("message %s: marks %+v, want one hard bounce", ref.MessageID, marks)
		}
	}
}

package mailer_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

var sender = core.Address{Name: "Sendlater", Address: "noreply@sendlater.example"}

// MustSMTP returns a transport to srv in plain text; edit changes the config.
func MustSMTP(tb testing.TB, srv *smtptest.Server, edit ...func(*mailer.SMTPConfig)) *mailer.SMTP {
	tb.Helper()
	cfg := mailer.SMTPConfig{
		Host: srv.Host(), Port: srv.Port(), TLS: mailer.TLSNone, From: sender,
		Timeout: 5 * time.Second, Helo: "test.local",
	}
	for _, e := range edit {
		e(&cfg)
	}
	m, err := mailer.NewSMTP(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = m.Close() })
	return m
}

func sampleEmail() *core.Email {
	return &core.Email{
		To:      []core.Address{{Name: "Ann Reader", Address: "ann@example.com"}},
		ReplyTo: &core.Address{Name: "Bob Author", Address: "bob@example.com"},
		Subject: "A message from Bob Author",
		Text:    "Dear Ann,\n\nline one\nline two\n",
		HTML:    "<p>Dear Ann,</p><p>line one<br>line two</p>",
		Headers: map[string]string{
			"List-Unsubscribe":      "<https://sendlater.example/refuse/abc>",
			"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
		},
	}
}

// MustReceiveOne waits for the only message srv receives and takes it apart.
func MustReceiveOne(tb testing.TB, srv *smtptest.Server) (smtptest.Message, *smtptest.Parsed) {
	tb.Helper()
	msgs, err := srv.WaitFor(1, 5*time.Second)
	if err != nil {
		tb.Fatal(err)
	}
	if len(msgs) != 1 {
		tb.Fatalf("received %d messages, want 1", len(msgs))
	}
	p, err := msgs[0].Parse()
	if err != nil {
		tb.Fatal(err)
	}
	return msgs[0], p
}

func TestSMTPSend(t *testing.T) {
	srv := smtptest.Start(t)
	m := MustSMTP(t, srv)
	e := sampleEmail()
	if err := m.Send(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(e.MessageID, "@sendlater.example") || strings.ContainsAny(e.MessageID, "<>") {
		t.Errorf("generated MessageID = %q, want random@sendlater.example", e.MessageID)
	}
	if e.Date.IsZero() {
		t.Error("Date was not filled in")
	}

	got, p := MustReceiveOne(t, srv)
	if got.From != sender.Address || len(got.To) != 1 || got.To[0] != "ann@example.com" {
		t.Errorf("envelope = %q -> %q", got.From, got.To)
	}
	want := map[string]string{
		"Message-Id":            "<" + e.MessageID + ">",
		"From":                  `"Sendlater" <noreply@sendlater.example>`,
		"To":                    `"Ann Reader" <ann@example.com>`,
		"Reply-To":              `"Bob Author" <bob@example.com>`,
		"List-Unsubscribe":      "<https://sendlater.example/refuse/abc>",
		"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
	}
	for k, v := range want {
		if g := p.Header.Get(k); g != v {
			t.Errorf("%s = %q, want %q", k, g, v)
		}
	}
	if p.Subject != e.Subject {
		t.Errorf("Subject = %q, want %q", p.Subject, e.Subject)
	}
	if d, err := p.Header.Date(); err != nil || !d.Equal(e.Date.Truncate(time.Second)) {
		t.Errorf("Date = %v (%v), want %v", d, err, e.Date)
	}
	if !strings.HasPrefix(p.Header.Get("Content-Type"), "multipart/alternative") {
		t.Errorf("Content-Type = %q", p.Header.Get("Content-Type"))
	}
	if normalize(p.Text) != e.Text || normalize(p.HTML) != e.HTML {
		t.Errorf("bodies = %q / %q", p.Text, p.HTML)
	}
}

// normalize undoes the CRLF line ends of the wire.
func normalize(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// A transaction is MAIL, RCPT, DATA and the body: no NOOP on a new
// connection or one used within the last second, no RSET after an email
// the server took. A connection idle for longer is checked with a NOOP.
func TestSMTPSendsNoNoopOrRsetOnABusyConnection(t *testing.T) {
	srv := smtptest.Start(t)
	m := MustSMTP(t, srv)
	for range 3 {
		if err := m.Send(context.Background(), sampleEmail()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := srv.WaitFor(3, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	for verb, want := range map[string]int{"EHLO": 1, "MAIL": 3, "RCPT": 3, "DATA": 3, "NOOP": 0, "RSET": 0} {
		if got := srv.Commands(verb); got != want {
			t.Errorf("%s sent %d times, want %d", verb, got, want)
		}
	}
	time.Sleep(1100 * time.Millisecond)
	if err := m.Send(context.Background(), sampleEmail()); err != nil {
		t.Fatal(err)
	}
	if got := srv.Commands("NOOP"); got != 1 {
		t.Errorf("after a second idle, NOOP sent %d times, want 1", got)
	}
	if got := srv.Commands("RSET"); got != 0 {
		t.Errorf("RSET sent %d times, want 0", got)
	}
}

func TestSMTPSendKeepsCallerMessageIDAndDate(t *testing.T) {
	srv := smtptest.Start(t)
	m := MustSMTP(t, srv)
	date := time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)
	for _, id := range []string{"delivery-42@sendlater.example", "<delivery-42@sendlater.example>"} {
		srv.Reset()
		e := sampleEmail()
		e.MessageID, e.Date = id, date
		if err := m.Send(context.Background(), e); err != nil {
			t.Fatal(err)
		}
		_, p := MustReceiveOne(t, srv)
		if g := p.Header.Get("Message-Id"); g != "<delivery-42@sendlater.example>" {
			t.Errorf("Message-ID for %q = %q", id, g)
		}
		if e.MessageID != "delivery-42@sendlater.example" {
			t.Errorf("Email.MessageID = %q", e.MessageID)
		}
		if d, _ := p.Header.Date(); !d.Equal(date) {
			t.Errorf("Date = %v, want %v", d, date)
		}
	}
}

func TestSMTPHeaderInjection(t *testing.T) {
	srv := smtptest.Start(t)
	m := MustSMTP(t, srv)
	e := sampleEmail()
	e.Subject = "Hello\r\nBcc: evil@example.net"
	e.To[0].Name = "Ann\nBcc: evil@example.net"
	e.Headers["List-Unsubscribe"] = "<https://x.example/r>\r\nBcc: evil@example.net"
	if err := m.Send(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	got, p := MustReceiveOne(t, srv)
	if len(got.To) != 1 || p.Header.Get("Bcc") != "" || strings.Contains(string(got.Data), "\r\nBcc:") {
		t.Fatalf("injected header arrived: rcpts %q\n%s", got.To, got.Data)
	}

	e = sampleEmail()
	e.Headers["Bcc"] = "evil@example.net"
	err := m.Send(context.Background(), e)
	var temp *core.TemporaryError
	if err == nil || errors.As(err, &temp) {
		t.Fatalf("reserved header: err = %v, want a permanent error", err)
	}
}

func TestSMTPConcurrentSends(t *testing.T) {
	srv := smtptest.Start(t)
	m := MustSMTP(t, srv, func(c *mailer.SMTPConfig) { c.PoolSize = 3 })
	const n = 150
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			e := sampleEmail()
			e.To = []core.Address{{Address: fmt.Sprintf("r%d@example.com", i)}}
			e.Text = fmt.Sprintf("body %d\n%s", i, strings.Repeat("x", 5000))
			e.MessageID = fmt.Sprintf("m%d@sendlater.example", i)
			errs <- m.Send(context.Background(), e)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := srv.WaitFor(n, 5*time.Second)
	if err != nil || len(msgs) != n {
		t.Fatalf("received %d messages (%v), want %d", len(msgs), err, n)
	}
	seen := map[string]bool{}
	for _, msg := range msgs {
		p, err := msg.Parse()
		if err != nil {
			t.Fatal(err)
		}
		var i int
		if _, err := fmt.Sscanf(p.Header.Get("Message-Id"), "<m%d@sendlater.example>", &i); err != nil {
			t.Fatalf("Message-ID %q: %v", p.Header.Get("Message-Id"), err)
		}
		if msg.To[0] != fmt.Sprintf("r%d@example.com", i) || normalize(p.Text) != fmt.Sprintf("body %d\n%s", i, strings.Repeat("x", 5000)) {
			t.Fatalf("message %d arrived mixed up or incomplete: to %q", i, msg.To)
		}
		seen[msg.To[0]] = true
	}
	if len(seen) != n {
		t.Fatalf("%d distinct recipients, want %d", len(seen), n)
	}
}

// BenchmarkSMTPSend measures throughput through the pool into the local
// test server. Run: go test -run '^$' -bench SMTPSend ./mailer/
func BenchmarkSMTPSend(b *testing.B) {
	srv := smtptest.Start(b)
	m := MustSMTP(b, srv, func(c *mailer.SMTPConfig) { c.PoolSize = 8 })
	var sent atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := m.Send(context.Background(), sampleEmail()); err != nil {
				b.Error(err)
				return
			}
			sent.Add(1)
		}
	})
	b.ReportMetric(float64(sent.Load())/b.Elapsed().Seconds(), "msgs/s")
}

func TestSMTPPipelinesTheEnvelopeWhenTheServerOffersIt(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []smtptest.Option
		want [][]string // the arrivals of a transaction on a busy connection
	}{
		{"offered", nil, [][]string{{"MAIL", "RCPT", "DATA"}}},
		{"not offered", []smtptest.Option{smtptest.WithoutPipelining()}, [][]string{{"MAIL"}, {"RCPT"}, {"DATA"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := smtptest.Start(t, tc.opts...)
			m := MustSMTP(t, srv)
			if err := m.Send(context.Background(), sampleEmail()); err != nil {
				t.Fatal(err)
			}
			MustReceiveOne(t, srv)
			srv.Reset()
			if err := m.Send(context.Background(), sampleEmail()); err != nil {
				t.Fatal(err)
			}
			_, p := MustReceiveOne(t, srv)
			if p.Header.Get("Subject") != "A message from Bob Author" {
				t.Errorf("subject %q", p.Header.Get("Subject"))
			}
			if got := srv.Arrivals(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("commands arrived as %v, want %v", got, tc.want)
			}
		})
	}
}

// A pipelining server may take DATA although it refused one of the
// recipients; the body must then not go to the others.
func TestSMTPPipelinedSendWithARefusedRecipientSendsNothing(t *testing.T) {
	srv := smtptest.Start(t)
	m := MustSMTP(t, srv)
	e := sampleEmail()
	e.To = append(e.To, core.Address{Address: "gone@example.com"})
	srv.Reject("gone@example.com", 550, "no such user")
	err := m.Send(context.Background(), e)
	var temp *core.TemporaryError
	if err == nil || errors.As(err, &temp) || !strings.Contains(err.Error(), "RCPT TO") {
		t.Fatalf("err = %v, want a permanent RCPT TO refusal", err)
	}
	if got := srv.Arrivals(); !slices.ContainsFunc(got, func(a []string) bool {
		return reflect.DeepEqual(a, []string{"MAIL", "RCPT", "RCPT", "DATA"})
	}) {
		t.Fatalf("commands arrived as %v, want MAIL, both RCPTs and DATA together", got)
	}
	// The next send goes through, and the refused one never arrived.
	if err := m.Send(context.Background(), sampleEmail()); err != nil {
		t.Fatal(err)
	}
	msg, _ := MustReceiveOne(t, srv)
	if !reflect.DeepEqual(msg.To, []string{"ann@example.com"}) {
		t.Fatalf("received for %v", msg.To)
	}
}

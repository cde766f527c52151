package testenv

import (
	"slices"
	"testing"
	"time"

	"github.com/sendlater/sendlater/mailer/smtptest"
)

// Mailbox reads what the test SMTP server received, in order.
type Mailbox struct {
	SMTP *smtptest.Server
	seen int // emails already taken by Next
}

// Next returns the next email received, waiting up to 5 seconds for it; it
// must go to to.
func (b *Mailbox) Next(tb testing.TB, to string) (*smtptest.Parsed, smtptest.Message) {
	tb.Helper()
	msgs, err := b.SMTP.WaitFor(b.seen+1, 5*time.Second)
	if err != nil {
		tb.Fatal(err)
	}
	m := msgs[b.seen]
	b.seen++
	if !slices.Equal(m.To, []string{to}) {
		tb.Fatalf("email to %v, want %s", m.To, to)
	}
	p, err := m.Parse()
	if err != nil {
		tb.Fatal(err)
	}
	return p, m
}

// NoMoreEmail checks that nothing was received beyond what Next took.
func (b *Mailbox) NoMoreEmail(tb testing.TB) {
	tb.Helper()
	if msgs := b.SMTP.Messages(); len(msgs) > b.seen {
		p, _ := msgs[b.seen].Parse()
		tb.Fatalf("unexpected email to %v: %q", msgs[b.seen].To, p.Subject)
	}
}

// Seen is how many emails Next took.
func (b *Mailbox) Seen() int { return b.seen }

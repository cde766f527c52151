package core_test

import (
	"slices"
	"testing"
	"time"

	"github.com/sendlater/sendlater/mailer/smtptest"
)

// mailbox reads what the test SMTP server received, in order: the test
// environments embed it.
type mailbox struct {
	smtp *smtptest.Server
	seen int // emails already taken by nextEmail
}

// next returns the next email received, which must go to to.
func (b *mailbox) next(tb testing.TB, to string) (*smtptest.Parsed, smtptest.Message) {
	tb.Helper()
	msgs, err := b.smtp.WaitFor(b.seen+1, 5*time.Second)
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

// noMoreEmail checks that nothing else was sent.
func (b *mailbox) noMoreEmail(tb testing.TB) {
	tb.Helper()
	if msgs := b.smtp.Messages(); len(msgs) > b.seen {
		p, _ := msgs[b.seen].Parse()
		tb.Fatalf("unexpected email to %v: %q", msgs[b.seen].To, p.Subject)
	}
}

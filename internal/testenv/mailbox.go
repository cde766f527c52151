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
	// Flush, when set, sends what waits to be sent (the outbox) before the
	// mailbox is read.
	Flush func()
	seen  int // emails already taken by Next
}

func (b *Mailbox) flush() {
	if b.Flush != nil {
		b.Flush()
	}
}

// Next returns the next email received, waiting up to 5 seconds for it; it
// must go to to.
func (b *Mailbox) Next(tb testing.TB, to string) (*smtptest.Parsed, smtptest.Message) {
	tb.Helper()
	b.flush()
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

// NextEach returns the next len(to) emails, one to each address of to, in
// the order of to whatever order they came in: emails that leave together
// (one outbox pass) arrive in no set order.
func (b *Mailbox) NextEach(tb testing.TB, to ...string) []*smtptest.Parsed {
	tb.Helper()
	b.flush()
	msgs, err := b.SMTP.WaitFor(b.seen+len(to), 5*time.Second)
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]*smtptest.Parsed, len(to))
	for _, m := range msgs[b.seen : b.seen+len(to)] {
		i := slices.IndexFunc(to, func(addr string) bool {
			return slices.Equal(m.To, []string{addr}) && out[slices.Index(to, addr)] == nil
		})
		if i < 0 {
			tb.Fatalf("email to %v, want one each to %v", m.To, to)
		}
		p, err := m.Parse()
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = p
	}
	b.seen += len(to)
	return out
}

// NoMoreEmail checks that nothing was received beyond what Next took.
func (b *Mailbox) NoMoreEmail(tb testing.TB) {
	tb.Helper()
	b.flush()
	if msgs := b.SMTP.Messages(); len(msgs) > b.seen {
		p, _ := msgs[b.seen].Parse()
		tb.Fatalf("unexpected email to %v: %q", msgs[b.seen].To, p.Subject)
	}
}

// Seen is how many emails Next took.
func (b *Mailbox) Seen() int { return b.seen }

// Package mailertest holds a core.Mailer that captures emails instead of
// sending them, for tests of the packages that send email.
package mailertest

import (
	"context"
	"sync"

	"github.com/sendlater/sendlater/core"
)

// Mailer records every email it is asked to send. It is safe for concurrent
// use; the zero value is ready.
type Mailer struct {
	mu   sync.Mutex
	sent []core.Email
	err  error
}

var _ core.Mailer = (*Mailer)(nil)

// Send records a copy of e, or returns the error set by FailWith.
func (m *Mailer) Send(ctx context.Context, e *core.Email) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	if err := ctx.Err(); err != nil {
		return &core.TemporaryError{Err: err}
	}
	m.sent = append(m.sent, *e)
	return nil
}

// FailWith makes every following Send return err; nil sends again.
func (m *Mailer) FailWith(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.err = err
}

// Sent returns the emails recorded so far, oldest first.
func (m *Mailer) Sent() []core.Email {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]core.Email(nil), m.sent...)
}

// Last returns the last recorded email and whether there is one.
func (m *Mailer) Last() (core.Email, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.sent) == 0 {
		return core.Email{}, false
	}
	return m.sent[len(m.sent)-1], true
}

// Reset forgets the recorded emails and the failure.
func (m *Mailer) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent, m.err = nil, nil
}

package mailertest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer/mailertest"
)

func TestMailerCaptures(t *testing.T) {
	var m mailertest.Mailer
	e := &core.Email{To: []core.Address{{Address: "a@example.com"}}, Subject: "hi"}
	if err := m.Send(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	e.Subject = "changed after sending"
	if last, ok := m.Last(); !ok || last.Subject != "hi" || len(m.Sent()) != 1 {
		t.Fatalf("captured %v", m.Sent())
	}
	boom := &core.TemporaryError{Err: errors.New("boom")}
	m.FailWith(boom)
	if err := m.Send(context.Background(), e); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	m.Reset()
	if len(m.Sent()) != 0 {
		t.Fatal("Reset kept emails")
	}
}

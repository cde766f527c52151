package mailer_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

func TestSMTPFailures(t *testing.T) {
	srv := smtptest.Start(t)
	m := MustSMTP(t, srv)
	for _, tc := range []struct {
		name      string
		fail      func()
		temporary bool
	}{
		{"451 at RCPT", func() { srv.FailNext(1, 451, "try again later") }, true},
		{"550 at RCPT", func() { srv.FailNext(1, 550, "no such user") }, false},
		{"452 at DATA", func() { srv.FailNextData(1, 452, "mailbox full") }, true},
		{"554 at DATA", func() { srv.FailNextData(1, 554, "content rejected") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv.Reset()
			tc.fail()
			err := m.Send(context.Background(), sampleEmail())
			if err == nil {
				t.Fatal("send succeeded")
			}
			var temp *core.TemporaryError
			if errors.As(err, &temp) != tc.temporary {
				t.Fatalf("err = %v (%T), temporary = %v", err, err, !tc.temporary)
			}
			// The pool recovers: the next send goes through.
			if err := m.Send(context.Background(), sampleEmail()); err != nil {
				t.Fatalf("send after the failure: %v", err)
			}
			MustReceiveOne(t, srv)
		})
	}
}

func TestSMTPServerDownIsTemporary(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	m, err := mailer.NewSMTP(mailer.SMTPConfig{Host: "127.0.0.1", Port: port, TLS: mailer.TLSNone, From: sender, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = m.Send(context.Background(), sampleEmail())
	var temp *core.TemporaryError
	if !errors.As(err, &temp) {
		t.Fatalf("err = %v, want temporary", err)
	}
}

func TestSMTPServerGoneAfterUse(t *testing.T) {
	srv := smtptest.Start(t)
	m := MustSMTP(t, srv)
	if err := m.Send(context.Background(), sampleEmail()); err != nil {
		t.Fatal(err)
	}
	srv.Close() // the pooled connection dies with it
	err := m.Send(context.Background(), sampleEmail())
	var temp *core.TemporaryError
	if !errors.As(err, &temp) {
		t.Fatalf("err = %v, want temporary", err)
	}
}

func TestSMTPTimeoutIsTemporary(t *testing.T) {
	srv := smtptest.Start(t)
	srv.SetDelay(2 * time.Second)
	m := MustSMTP(t, srv, func(c *mailer.SMTPConfig) { c.Timeout = 200 * time.Millisecond })
	start := time.Now()
	err := m.Send(context.Background(), sampleEmail())
	var temp *core.TemporaryError
	if !errors.As(err, &temp) {
		t.Fatalf("err = %v, want temporary", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("send took %v with a 200ms timeout", d)
	}
}

func TestSMTPClosed(t *testing.T) {
	srv := smtptest.Start(t)
	m := MustSMTP(t, srv)
	if err := m.Send(context.Background(), sampleEmail()); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	err := m.Send(context.Background(), sampleEmail())
	var temp *core.TemporaryError
	if !errors.As(err, &temp) {
		t.Fatalf("send after Close: err = %v, want temporary", err)
	}
}

func TestNewSMTPRejectsBadConfig(t *testing.T) {
	for name, cfg := range map[string]mailer.SMTPConfig{
		"no host": {Port: 25, From: sender},
		"no port": {Host: "localhost", From: sender},
		"no from": {Host: "localhost", Port: 25},
		"bad tls": {Host: "localhost", Port: 25, From: sender, TLS: "ssl3"},
	} {
		if _, err := mailer.NewSMTP(cfg); err == nil {
			t.Errorf("%s: NewSMTP succeeded", name)
		}
	}
}

// A pooled connection the server dropped is found out before anything is
// sent on it and the email goes on a new one: by the NOOP of a connection
// idle for more than a second, by the failed MAIL of one used just before.
func TestSMTPReconnectsWhenPooledConnectionDropped(t *testing.T) {
	for name, idle := range map[string]time.Duration{"just used": 0, "idle": 1100 * time.Millisecond} {
		t.Run(name, func(t *testing.T) {
			srv := smtptest.Start(t)
			m := MustSMTP(t, srv)
			if err := m.Send(context.Background(), sampleEmail()); err != nil {
				t.Fatal(err)
			}
			srv.DropConnections()
			time.Sleep(idle)
			if err := m.Send(context.Background(), sampleEmail()); err != nil {
				t.Fatalf("send after the server dropped the pooled connection: %v", err)
			}
			if _, err := srv.WaitFor(2, 5*time.Second); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A temporary refusal of MAIL on a connection used just before (no NOOP
// checked it) is taken for a stale connection: the email goes again on a
// new one. A permanent refusal is the email's and is not retried.
func TestSMTPRetriesATemporaryMailRefusalOnANewConnection(t *testing.T) {
	srv := smtptest.Start(t)
	m := MustSMTP(t, srv)
	if err := m.Send(context.Background(), sampleEmail()); err != nil {
		t.Fatal(err)
	}
	srv.FailNextMail(1, 421, "closing the channel")
	if err := m.Send(context.Background(), sampleEmail()); err != nil {
		t.Fatalf("send after a 421 to MAIL: %v", err)
	}
	if _, err := srv.WaitFor(2, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	srv.FailNextMail(1, 553, "sender refused")
	err := m.Send(context.Background(), sampleEmail())
	var temp *core.TemporaryError
	if err == nil || errors.As(err, &temp) {
		t.Fatalf("err = %v, want a permanent error", err)
	}
	if got := srv.Commands("MAIL"); got != 4 {
		t.Fatalf("MAIL sent %d times, want 4 (the 553 tried once)", got)
	}
}

// A discarding test server (the benchmarks') takes every email, counts it
// and keeps none.
func TestSMTPTestServerDiscarding(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Discarding())
	m := MustSMTP(t, srv)
	for range 3 {
		if err := m.Send(context.Background(), sampleEmail()); err != nil {
			t.Fatal(err)
		}
	}
	if n, kept := srv.Received(), len(srv.Messages()); n != 3 || kept != 0 {
		t.Fatalf("received %d, kept %d: want 3 received, none kept", n, kept)
	}
	srv.Reset()
	if n := srv.Received(); n != 0 {
		t.Fatalf("received %d after Reset", n)
	}
}

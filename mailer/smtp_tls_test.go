package mailer_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

func TestSMTPTLSAndAuth(t *testing.T) {
	serverTLS, clientTLS := smtptest.SelfSignedTLS(t)
	for _, tc := range []struct {
		mode string
		opt  smtptest.Option
	}{
		{mailer.TLSStartTLS, smtptest.WithStartTLS(serverTLS)},
		{mailer.TLSImplicit, smtptest.WithImplicitTLS(serverTLS)},
		{mailer.TLSNone, nil},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			opts := []smtptest.Option{smtptest.WithAuth("mailer", "s3cret-pw")}
			if tc.opt != nil {
				opts = append(opts, tc.opt)
			}
			srv := smtptest.Start(t, opts...)
			m := MustSMTP(t, srv, func(c *mailer.SMTPConfig) {
				c.TLS, c.Username, c.Password = tc.mode, "mailer", "s3cret-pw"
				if tc.mode != mailer.TLSNone {
					c.TLSConfig = clientTLS
				}
			})
			if err := m.Send(context.Background(), sampleEmail()); err != nil {
				t.Fatal(err)
			}
			MustReceiveOne(t, srv)

			bad := MustSMTP(t, srv, func(c *mailer.SMTPConfig) {
				c.TLS, c.Username, c.Password = tc.mode, "mailer", "wrong-pw-value"
				c.TLSConfig = clientTLS
			})
			err := bad.Send(context.Background(), sampleEmail())
			if err == nil {
				t.Fatal("send with a wrong password succeeded")
			}
			if strings.Contains(err.Error(), "wrong-pw-value") {
				t.Errorf("error leaks the password: %v", err)
			}
			var temp *core.TemporaryError
			if !errors.As(err, &temp) {
				t.Errorf("failed AUTH = %v, want temporary (transport problem, not the email's)", err)
			}
		})
	}
}

func TestSMTPStartTLSRequiresTrustedCert(t *testing.T) {
	serverTLS, _ := smtptest.SelfSignedTLS(t)
	srv := smtptest.Start(t, smtptest.WithStartTLS(serverTLS))
	m := MustSMTP(t, srv, func(c *mailer.SMTPConfig) { c.TLS = mailer.TLSStartTLS })
	if err := m.Send(context.Background(), sampleEmail()); err == nil {
		t.Fatal("send to an untrusted certificate succeeded")
	}
	if n := len(srv.Messages()); n != 0 {
		t.Fatalf("server received %d messages", n)
	}
}

package mailer_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

func TestSMTPTLSAndAuth(t *testing.T) {
	serverTLS, clientTLS := selfSignedTLS(t)
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
	serverTLS, _ := selfSignedTLS(t)
	srv := smtptest.Start(t, smtptest.WithStartTLS(serverTLS))
	m := MustSMTP(t, srv, func(c *mailer.SMTPConfig) { c.TLS = mailer.TLSStartTLS })
	if err := m.Send(context.Background(), sampleEmail()); err == nil {
		t.Fatal("send to an untrusted certificate succeeded")
	}
	if n := len(srv.Messages()); n != 0 {
		t.Fatalf("server received %d messages", n)
	}
}

// selfSignedTLS returns a server config with a fresh certificate for
// 127.0.0.1 and a client config that trusts exactly that certificate.
func selfSignedTLS(tb testing.TB) (server, client *tls.Config) {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "smtptest"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost"},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	server = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}}, MinVersion: tls.VersionTLS12}
	client = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return server, client
}

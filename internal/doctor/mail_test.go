package doctor_test

import (
	"bytes"
	"context"
	"crypto"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/dnscheck"
	"github.com/sendlater/sendlater/dnscheck/dnstest"
	"github.com/sendlater/sendlater/internal/doctor"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

// world is a healthy installation: sendlater.test publishes SPF, the DKIM
// key and DMARC; the SMTP server offers STARTTLS and AUTH.
type world struct {
	dns  *dnstest.Server
	smtp *smtptest.Server
	mail doctor.Mail
}

func healthy(t *testing.T, smtpOpts ...smtptest.Option) *world {
	t.Helper()
	key, _, err := mailer.GenerateDKIMKey(mailer.DKIMKeyEd25519)
	if err != nil {
		t.Fatal(err)
	}
	record, _ := mailer.DKIMRecord(key)
	dns := dnstest.MustStart(t)
	dns.Add(t,
		`sendlater.test. 300 IN TXT "v=spf1 ip4:127.0.0.1 -all"`,
		`sendlater.test. 300 IN TXT "google-site-verification=abc"`,
		`s1._domainkey.sendlater.test. 300 IN TXT "`+record+`"`,
		`_dmarc.sendlater.test. 300 IN TXT "v=DMARC1; p=quarantine; rua=mailto:dmarc@sendlater.test"`,
	)
	serverTLS, clientTLS := smtptest.SelfSignedTLS(t)
	if smtpOpts == nil {
		smtpOpts = []smtptest.Option{smtptest.WithStartTLS(serverTLS)}
	}
	srv := smtptest.Start(t, append(smtpOpts, smtptest.WithAuth("mailer", "s3cret-pw"))...)
	res, err := dnscheck.NewResolver(dns.Addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return &world{dns: dns, smtp: srv, mail: doctor.Mail{
		From:     "noreply@sendlater.test",
		DKIM:     &mailer.DKIM{Domain: "sendlater.test", Selector: "s1", Key: key},
		Resolver: res,
		SMTP: doctor.SMTP{Host: srv.Host(), Port: srv.Port(), TLS: mailer.TLSStartTLS, Username: "mailer", Password: "s3cret-pw",
			Timeout: 5 * time.Second, TLSConfig: clientTLS},
	}}
}

// failed is the names of the failed checks of m.
func failed(t *testing.T, m doctor.Mail) []string {
	t.Helper()
	s := doctor.CheckMail(context.Background(), m)
	var names []string
	for _, c := range s.Checks {
		if !c.OK {
			names = append(names, c.Name)
			if c.Fix == "" {
				t.Errorf("%s failed without saying what to fix", c.Name)
			}
		}
	}
	return names
}

func TestHealthyMailIsAllChecked(t *testing.T) {
	w := healthy(t)
	s := doctor.CheckMail(context.Background(), w.mail)
	var out bytes.Buffer
	if n := doctor.Write(&out, s); n != 0 || len(s.Checks) != 7 {
		t.Fatalf("%d problems in %d checks:\n%s", n, len(s.Checks), out.String())
	}
	for _, want := range []string{"✓ SPF: v=spf1 ip4:127.0.0.1 -all", "✓ DKIM: s1._domainkey.sendlater.test publishes", "✓ DMARC: _dmarc.sendlater.test",
		"✓ SMTP connect", "✓ SMTP EHLO", "✓ SMTP TLS: STARTTLS", "✓ SMTP AUTH: signed in as mailer"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
}

// Each broken part is its own ✗, and only it.
func TestEachBrokenPartFailsAlone(t *testing.T) {
	otherKey := func() crypto.Signer {
		k, _, err := mailer.GenerateDKIMKey(mailer.DKIMKeyEd25519)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, w *world)
		want  string
	}{
		{"no SPF", func(t *testing.T, w *world) {
			w.dns.Remove("sendlater.test")
			w.dns.Add(t, `sendlater.test. 300 IN TXT "google-site-verification=abc"`)
		}, "SPF"},
		{"two SPF", func(t *testing.T, w *world) { w.dns.Add(t, `sendlater.test. 300 IN TXT "v=spf1 mx -all"`) }, "SPF"},
		{"DKIM off", func(t *testing.T, w *world) { w.mail.DKIM = nil }, "DKIM"},
		{"DKIM key not the one published", func(t *testing.T, w *world) { w.mail.DKIM.Key = otherKey() }, "DKIM"},
		{"DKIM record missing", func(t *testing.T, w *world) { w.dns.Remove("s1._domainkey.sendlater.test") }, "DKIM"},
		{"DKIM domain not aligned", func(t *testing.T, w *world) { w.mail.DKIM.Domain = "elsewhere.test" }, "DKIM"},
		{"no DMARC", func(t *testing.T, w *world) { w.dns.Remove("_dmarc.sendlater.test") }, "DMARC"},
		{"SMTP down", func(t *testing.T, w *world) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			w.mail.SMTP.Port = l.Addr().(*net.TCPAddr).Port
			l.Close()
		}, "SMTP connect"},
		{"no STARTTLS", func(t *testing.T, w *world) {
			srv := smtptest.Start(t, smtptest.WithAuth("mailer", "s3cret-pw"))
			w.mail.SMTP.Port = srv.Port()
		}, "SMTP TLS"},
		{"wrong password", func(t *testing.T, w *world) { w.mail.SMTP.Password = "wrong" }, "SMTP AUTH"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := healthy(t)
			tc.spoil(t, w)
			if got := failed(t, w.mail); len(got) != 1 || got[0] != tc.want {
				t.Fatalf("failed %v, want only %s", got, tc.want)
			}
		})
	}
}

// A DNS server that does not answer fails the DNS checks, saying so.
func TestDNSDown(t *testing.T) {
	w := healthy(t)
	w.dns.Silence(true)
	res, _ := dnscheck.NewResolver(w.dns.Addr, 100*time.Millisecond)
	w.mail.Resolver = res
	if got := failed(t, w.mail); strings.Join(got, ",") != "SPF,DKIM,DMARC" {
		t.Fatalf("failed %v", got)
	}
}

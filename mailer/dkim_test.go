package mailer_test

import (
	"context"
	"crypto"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/dnscheck/dnstest"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

// dkimWorld is a DNS server that publishes key's public half at
// sel._domainkey.sendlater.example, and an SMTP server that refuses any
// email whose DKIM signature does not verify against it.
func dkimWorld(t *testing.T, published crypto.Signer) *smtptest.Server {
	t.Helper()
	record, err := mailer.DKIMRecord(published)
	if err != nil {
		t.Fatal(err)
	}
	dns := dnstest.MustStart(t)
	dns.Add(t, `sel._domainkey.sendlater.example. 300 IN TXT "`+record+`"`)
	return smtptest.Start(t, smtptest.WithDKIM(dns.LookupTXT))
}

func mustKey(t *testing.T, kind string) crypto.Signer {
	t.Helper()
	key, _, err := mailer.GenerateDKIMKey(kind)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// Each email is signed with the key of either kind, its one-click refusal
// headers covered, and verifies against the published record.
func TestDKIMSignsEveryEmail(t *testing.T) {
	for _, kind := range []string{mailer.DKIMKeyRSA, mailer.DKIMKeyEd25519} {
		t.Run(kind, func(t *testing.T) {
			key := mustKey(t, kind)
			srv := dkimWorld(t, key)
			m := MustSMTP(t, srv, func(c *mailer.SMTPConfig) {
				c.DKIM = &mailer.DKIM{Domain: "sendlater.example", Selector: "sel", Key: key}
			})
			for range 3 {
				if err := m.Send(context.Background(), sampleEmail()); err != nil {
					t.Fatal(err)
				}
			}
			msgs, err := srv.WaitFor(3, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			for _, msg := range msgs {
				sig := msg.Header.Get("Dkim-Signature")
				if len(msg.DKIM) != 1 || msg.DKIM[0] != "sendlater.example" || !strings.Contains(strings.ToLower(sig), "list-unsubscribe-post") {
					t.Fatalf("verified %v, signature %q", msg.DKIM, sig)
				}
			}
		})
	}
}

// An email signed with another key than the one published is refused by
// the verifying server: the test world catches a broken key.
func TestDKIMWithTheWrongKeyFails(t *testing.T) {
	srv := dkimWorld(t, mustKey(t, mailer.DKIMKeyRSA))
	m := MustSMTP(t, srv, func(c *mailer.SMTPConfig) {
		c.DKIM = &mailer.DKIM{Domain: "sendlater.example", Selector: "sel", Key: mustKey(t, mailer.DKIMKeyRSA)}
	})
	err := m.Send(context.Background(), sampleEmail())
	var temp *core.TemporaryError
	if err == nil || !strings.Contains(err.Error(), "5.7.20") || errors.As(err, &temp) {
		t.Fatalf("want a permanent DKIM refusal, got %v", err)
	}
	if n := len(srv.Messages()); n != 0 {
		t.Fatalf("%d emails were taken", n)
	}
	// Unsigned mail fails the same way.
	m = MustSMTP(t, srv)
	if err := m.Send(context.Background(), sampleEmail()); err == nil {
		t.Fatal("an unsigned email was taken")
	}
}

func TestLoadDKIMKey(t *testing.T) {
	dir := t.TempDir()
	_, pemKey, err := mailer.GenerateDKIMKey(mailer.DKIMKeyEd25519)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "dkim.pem")
	if err := os.WriteFile(file, pemKey, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := mailer.LoadDKIMKey(file); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := mailer.LoadDKIMKey(file); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("a key others may read: %v", err)
	}
	junk := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(junk, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := mailer.LoadDKIMKey(junk); err == nil {
		t.Fatal("junk was taken for a key")
	}
}

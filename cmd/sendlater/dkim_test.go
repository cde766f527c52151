package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/dnscheck/dnstest"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

// dkim keygen writes a key and prints its record; published in DNS, with
// the key configured, every email the binary sends verifies at the
// receiving server. A key others may read stops the command.
func TestDKIMKeygenAndSigning(t *testing.T) {
	dir := t.TempDir()
	_, ms := seed(t, dir)
	keyFile := filepath.Join(dir, "dkim", "sendlater.pem")
	r := mustRunEnv(t, dir, nil, "dkim", "keygen", "--out", keyFile, "--domain", "sendlater.test", "--selector", "s2026")
	record := strings.TrimSpace(r.stdout)
	if !strings.HasPrefix(record, "s2026._domainkey.sendlater.test. IN TXT \"v=DKIM1; k=rsa; p=") {
		t.Fatalf("record %q", record)
	}
	if fi, err := os.Stat(keyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, %v", fi, err)
	}
	if r := run(t, dir, nil, "dkim", "keygen", "--out", keyFile, "--domain", "sendlater.test", "--selector", "s2026"); r.code == 0 || !strings.Contains(r.stderr, "exists") {
		t.Fatalf("a second keygen over the key: %+v", r)
	}

	dns := dnstest.MustStart(t)
	dns.Add(t, record)
	mail := smtptest.Start(t, smtptest.WithDKIM(dns.LookupTXT))
	env := smtpEnv(mail, "SENDLATER_MAIL_DKIM_DOMAIN=sendlater.test", "SENDLATER_MAIL_DKIM_SELECTOR=s2026",
		"SENDLATER_MAIL_DKIM_PRIVATE_KEY_FILE="+keyFile)
	mustRunEnv(t, dir, env, "messages", "reschedule", ms[0].ID, "--at", "now")
	if r := mustRunEnv(t, dir, env, "send-due"); !strings.Contains(r.stdout, "delivered 1,") {
		t.Fatalf("send-due: %s", r.stdout)
	}
	got, err := mail.WaitFor(1, 5*time.Second)
	if err != nil || len(got) != 1 || len(got[0].DKIM) != 1 || got[0].DKIM[0] != "sendlater.test" {
		t.Fatalf("received %+v, %v", got, err)
	}

	if err := os.Chmod(keyFile, 0o640); err != nil {
		t.Fatal(err)
	}
	if r := run(t, dir, env, "send-due"); r.code == 0 || !strings.Contains(r.stderr, "mail.dkim.private_key_file") || !strings.Contains(r.stderr, "chmod 600") {
		t.Fatalf("a key others may read: %+v", r)
	}
}

package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/dnscheck/dnstest"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

// doctor mail on a healthy installation marks every check ✓ and exits 0;
// a wrong SMTP password is its own ✗, with what to fix, and exit status 1.
func TestDoctorMail(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "dkim.pem")
	r := mustRunEnv(t, dir, nil, "dkim", "keygen", "--type", "ed25519", "--out", keyFile, "--domain", "sendlater.test", "--selector", "s1")
	dns := dnstest.MustStart(t)
	dns.Add(t, strings.TrimSpace(r.stdout),
		`sendlater.test. 300 IN TXT "v=spf1 ip4:127.0.0.1 -all"`,
		`_dmarc.sendlater.test. 300 IN TXT "v=DMARC1; p=reject"`)
	mail := smtptest.Start(t, smtptest.WithAuth("mailer", "s3cret-pw"))
	env := []string{
		"SENDLATER_MAIL_FROM=Sendlater <noreply@sendlater.test>", "SENDLATER_MAIL_DNS_SERVER=" + dns.Addr,
		"SENDLATER_MAIL_SMTP_HOST=127.0.0.1", fmt.Sprintf("SENDLATER_MAIL_SMTP_PORT=%d", mail.Port()), "SENDLATER_MAIL_SMTP_TLS=none",
		"SENDLATER_MAIL_SMTP_USERNAME=mailer", "SENDLATER_MAIL_SMTP_PASSWORD=s3cret-pw",
		"SENDLATER_MAIL_DKIM_DOMAIN=sendlater.test", "SENDLATER_MAIL_DKIM_SELECTOR=s1", "SENDLATER_MAIL_DKIM_PRIVATE_KEY_FILE=" + keyFile,
	}
	r = mustRunEnv(t, dir, env, "doctor", "mail")
	if strings.Count(r.stdout, "✓") != 7 || strings.Contains(r.stdout, "✗") {
		t.Fatalf("a healthy installation:\n%s", r.stdout)
	}

	r = run(t, dir, append(env, "SENDLATER_MAIL_SMTP_PASSWORD=wrong"), "doctor", "mail")
	if r.code != 1 || strings.Count(r.stdout, "✗") != 1 || !strings.Contains(r.stdout, "✗ SMTP AUTH") ||
		!strings.Contains(r.stdout, "fix: check mail.smtp.username and mail.smtp.password") || strings.Contains(r.stdout, "wrong") ||
		!strings.Contains(r.stderr, "doctor found 1 problem") {
		t.Fatalf("a wrong password: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// doctor alone runs every section, mail among them (here without a
	// store or a server: TestDoctorChecksADeployment has them).
	if r := run(t, dir, env, "doctor"); !strings.Contains(r.stdout, "Mail: sending as noreply@sendlater.test") ||
		!strings.Contains(r.stdout, "✓ SMTP AUTH: signed in as mailer") || !strings.Contains(r.stdout, "Store: bbolt") {
		t.Fatalf("doctor: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// The config section: a feature without its secret, a secret file others
// can read, and a value that stops the configuration (then nothing else
// is checked).
func TestDoctorConfigSection(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "smtp-password")
	if err := os.WriteFile(pw, []byte("s3cret\n"), 0o604); err != nil {
		t.Fatal(err)
	}
	smtp := []string{"SENDLATER_MAIL_SMTP_HOST=smtp.example.com", "SENDLATER_MAIL_SMTP_USERNAME=mailer"}
	r := run(t, dir, smtp, "doctor", "config")
	assertOneProblem(t, "no SMTP password", r, "✗ secrets: mail.smtp.username is set but no password",
		"put the password in a file (mode 0600) and set mail.smtp.password_file to it")

	r = run(t, dir, append(smtp, "SENDLATER_MAIL_SMTP_PASSWORD_FILE="+pw), "doctor", "config")
	assertOneProblem(t, "a readable password file", r, "✗ secret file: "+pw+" is mode 0604", "chmod 600 "+pw)
	if !strings.Contains(r.stdout, "✓ secrets: set: the SMTP password") {
		t.Fatalf("the password file's secret:\n%s", r.stdout)
	}

	r = run(t, dir, []string{"SENDLATER_LOG_LEVEL=loud"}, "doctor")
	assertOneProblem(t, "a bad value", r, "✗ values: log.level must be one of debug, info, warn, error", "correct it as said")
	if strings.Contains(r.stdout, "Store:") || !strings.Contains(r.stdout, "Configuration:") {
		t.Fatalf("doctor went on without a configuration:\n%s", r.stdout)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("doctor created %v", entries)
	}
}

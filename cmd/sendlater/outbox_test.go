package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/mailer/smtptest"
)

// TestServeOutboxLogsTheVerificationLink: in outbox mode (no
// mail.smtp.host), the verification link of a sign-up can be followed from
// the server's log, decoded, without opening the quoted-printable .eml
// (issue 28, item 11); with SMTP no link is logged.
func TestServeOutboxLogsTheVerificationLink(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	signUp(t, srv.url, "ann@example.com")
	var line string
	for deadline := time.Now().Add(10 * time.Second); line == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, l := range strings.Split(srv.logs.String(), "\n") {
			if strings.Contains(l, `msg="email written to the outbox"`) {
				line = l
			}
		}
	}
	if line == "" {
		t.Fatalf("no outbox line in the log:\n%s", srv.logs)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "data", "outbox", "*.eml"))
	if len(files) != 1 {
		t.Fatalf("the outbox holds %d emails, want 1", len(files))
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	p, err := smtptest.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	link := p.Link(srv.url + "/")
	if link == "" || !strings.Contains(link, "oobCode=") {
		t.Fatalf("no verification link in the email: %v", p.Links())
	}
	if !strings.Contains(line, link) || strings.Contains(line, "=3D") {
		t.Errorf("the log line does not give the link %s as it is:\n%s", link, line)
	}
	if !strings.Contains(line, "to=a***@example.com") || strings.Contains(srv.logs.String(), "ann@example.com") {
		t.Errorf("the recipient is not masked:\n%s", line)
	}
	if !strings.Contains(line, "outbox mode: links are logged so you can follow them; configure mail.smtp.host to send") {
		t.Errorf("the first outbox line does not say why links are logged:\n%s", line)
	}

	// With SMTP, nothing of an email's content reaches the log.
	mail := smtptest.Start(t)
	srv2 := startServer(t, t.TempDir(), smtpEnv(mail)...)
	signUp(t, srv2.url, "bob@example.com")
	if _, err := mail.WaitFor(1, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if logs := srv2.logs.String(); strings.Contains(logs, "oobCode") || strings.Contains(logs, "links=") {
		t.Errorf("with SMTP the log shows links:\n%s", logs)
	}
}

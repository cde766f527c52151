package main_test

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The bounce webhooks' keys are checked, with the key and the rule named,
// and their password is a secret: masked, readable from a file.
func TestBounceWebhookConfig(t *testing.T) {
	const topic = "arn:aws:sns:eu-west-1:123456789012:sendlater-bounces"
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"SENDLATER_MAIL_BOUNCE_DOMAIN=bounces.example.com", "SENDLATER_MAIL_SES_TOPIC_ARN=sendlater-bounces"}, "mail.ses.topic_arn must be SNS topic ARNs"},
		{[]string{"SENDLATER_MAIL_SES_TOPIC_ARN=" + topic}, "mail.ses.topic_arn needs mail.bounce_domain"},
		{[]string{"SENDLATER_MAIL_POSTMARK_WEBHOOK_USER=postmark", "SENDLATER_MAIL_POSTMARK_WEBHOOK_PASSWORD=0123456789abcdef"}, "mail.postmark.webhook_password needs mail.bounce_domain"},
		{[]string{"SENDLATER_MAIL_BOUNCE_DOMAIN=bounces.example.com", "SENDLATER_MAIL_POSTMARK_WEBHOOK_PASSWORD=0123456789abcdef"}, "mail.postmark.webhook_user must be set with webhook_password"},
		{[]string{"SENDLATER_MAIL_BOUNCE_DOMAIN=bounces.example.com", "SENDLATER_MAIL_POSTMARK_WEBHOOK_USER=postmark", "SENDLATER_MAIL_POSTMARK_WEBHOOK_PASSWORD=short"}, "mail.postmark.webhook_password must be at least 16 characters"},
		{[]string{"SENDLATER_MAIL_POSTMARK_WEBHOOK_PASSWORD_FILE=/nonexistent/file"}, "mail.postmark.webhook_password_file"},
	} {
		r := run(t, t.TempDir(), c.env, "config")
		if r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.env, r.code, r.stderr, c.want)
		}
	}
	dir := t.TempDir()
	secret := filepath.Join(dir, "postmark-webhook-password")
	os.WriteFile(secret, []byte("a-password-from-a-file\n"), 0o600)
	r := run(t, dir, []string{"SENDLATER_MAIL_BOUNCE_DOMAIN=bounces.example.com", "SENDLATER_MAIL_SES_TOPIC_ARN=" + topic,
		"SENDLATER_MAIL_POSTMARK_WEBHOOK_USER=postmark", "SENDLATER_MAIL_POSTMARK_WEBHOOK_PASSWORD_FILE=" + secret}, "config")
	if r.code != 0 || !strings.Contains(r.stdout, "mail.postmark.webhook_password = ********\n") ||
		!strings.Contains(r.stdout, "mail.ses.topic_arn = ["+topic+"]\n") || strings.Contains(r.stdout, "a-password-from-a-file") {
		t.Fatalf("%+v", r)
	}
}

// serve mounts the webhooks configured, and only those: Postmark's behind
// its credentials; SES's 404 without a topic.
func TestServeMountsBounceWebhooks(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir, "SENDLATER_MAIL_BOUNCE_DOMAIN=bounces.example.com",
		"SENDLATER_MAIL_POSTMARK_WEBHOOK_USER=postmark", "SENDLATER_MAIL_POSTMARK_WEBHOOK_PASSWORD=0123456789abcdef")
	post := func(path, user, password string) int {
		req, _ := http.NewRequest(http.MethodPost, s.url+path, bytes.NewReader([]byte(
			`{"RecordType":"Bounce","ID":42,"Type":"HardBounce","TypeCode":1,"Email":"john@example.com","Details":"test bounce","BouncedAt":"2099-01-01T00:00:00Z"}`)))
		if user != "" {
			req.SetBasicAuth(user, password)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post("/api/webhooks/postmark", "postmark", "wrong-password-0000"); got != http.StatusUnauthorized {
		t.Fatalf("wrong password: %d", got)
	}
	// Postmark's "Send test": no metadata of ours, nothing to act on.
	if got := post("/api/webhooks/postmark", "postmark", "0123456789abcdef"); got != http.StatusOK {
		t.Fatalf("the right credentials: %d\n%s", got, s.logs)
	}
	if got := post("/api/webhooks/ses", "", ""); got != http.StatusNotFound {
		t.Fatalf("SES without a topic: %d", got)
	}
}

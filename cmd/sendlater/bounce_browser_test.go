package main_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/sendlater/sendlater/dnscheck/dnstest"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

// TestBounceInABrowser makes a real asynchronous bounce and drives
// web/ui/e2e/bounce.mjs: the server sends through the in-process SMTP
// server, with a bounce domain and its inbound listener; the author tells
// the recipient now; the test takes the notice's envelope sender (the VERP
// return path) from the SMTP server and sends a Postfix-style DSN to it on
// the listener, as the recipient's server would; the dashboard then shows
// the bouncing row with "Change the address", and the new address saved
// in the dialog clears it (the API agrees).
func TestBounceInABrowser(t *testing.T) {
	b := needBrowser(t)
	mail := smtptest.Start(t)
	dns := dnstest.MustStart(t)
	dns.Add(t, "example.com. 300 IN MX 10 mx.example.com.")
	const bounceDomain = "bounces.sendlater.test"
	inbound := freeAddr(t)
	dir := t.TempDir()
	env := smtpEnv(mail, "SENDLATER_MAIL_DNS_SERVER="+dns.Addr, "SENDLATER_MAIL_BOUNCE_DOMAIN="+bounceDomain,
		"SENDLATER_MAIL_INBOUND_ADDR="+inbound)
	srv := startServer(t, dir, env...)

	const email, password = "bounce@example.com", "plum-kettle-orbit-47"
	const title, bounced, fixed = "For Bob, whose address died", "bob@example.com", "bob.new@example.com"
	signUpAuthor(t, srv, email, password)
	// Notices go only from a confirmed address: follow the link first.
	verifyFirstEmail(t, srv, mail)
	code, s := authCall(t, srv.url, "/api/auth/signin", map[string]string{"email": email, "password": password}, "")
	if code != http.StatusOK {
		t.Fatalf("sign in: %d", code)
	}
	var created struct{ Data struct{ ID string } }
	msg, _ := json.Marshal(map[string]string{"title": title, "name": "Bob", "recipient": bounced,
		"message": "Dear Bob,\nthe key is under the mat.", "interval": "6M"})
	if code := apiCall(t, srv, "POST", "/api/messages", s.idToken, string(msg), &created); code != http.StatusCreated || created.Data.ID == "" {
		t.Fatalf("create: %d %+v", code, created)
	}
	if code := apiCall(t, srv, "POST", "/api/messages/"+created.Data.ID+"/notify", s.idToken, `{"recipient":"`+bounced+`"}`, nil); code/100 != 2 {
		t.Fatalf("tell the recipient now: %d", code)
	}
	sent, err := mail.WaitFor(2, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	notice := sent[1]
	if strings.Join(notice.To, ",") != bounced || !strings.HasPrefix(notice.From, "bounces+") || !strings.HasSuffix(notice.From, "@"+bounceDomain) {
		t.Fatalf("the notice went from %q to %v: want a return path at %s", notice.From, notice.To, bounceDomain)
	}

	// The recipient's server bounces it later, to the return path.
	dsn, err := os.ReadFile(filepath.Join("..", "..", "mailer", "bounce", "testdata", "postfix-hard.eml"))
	if err != nil {
		t.Fatal(err)
	}
	// As Bob's server would write it: about Bob's address.
	dsn = bytes.ReplaceAll(dsn, []byte("bob@example.org"), []byte(bounced))
	c, err := smtp.Dial(inbound)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SendMail("", []string{notice.From}, bytes.NewReader(dsn)); err != nil {
		t.Fatalf("the DSN to %s: %v", notice.From, err)
	}
	c.Close()
	type listed struct {
		Data []struct {
			ID         string
			Recipients []struct {
				Recipient string
				Bouncing  *struct{ Reason, Email string }
			}
		}
	}
	var got listed
	if code := apiCall(t, srv, "GET", "/api/messages", s.idToken, "", &got); code != http.StatusOK || len(got.Data) != 1 ||
		got.Data[0].Recipients[0].Bouncing == nil || !strings.Contains(got.Data[0].Recipients[0].Bouncing.Reason, "User unknown") {
		t.Fatalf("after the DSN: %d %+v", code, got)
	}

	b.run(t, srv, 3*time.Minute, "bounce.mjs", email, password, title, bounced, fixed)
	got = listed{}
	if code := apiCall(t, srv, "GET", "/api/messages", s.idToken, "", &got); code != http.StatusOK || len(got.Data) != 1 ||
		got.Data[0].Recipients[0].Recipient != fixed || got.Data[0].Recipients[0].Bouncing != nil {
		t.Fatalf("after the fix: %d %+v", code, got)
	}
}

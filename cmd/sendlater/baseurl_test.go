package main_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/mailer/smtptest"
)

// TestEmailLinksFollowAddr: without base_url, email links point at the
// address the server listens on (before: http://localhost:8080 whatever
// addr said), the log says so once, and `sendlater config` shows it.
func TestEmailLinksFollowAddr(t *testing.T) {
	for _, tt := range []struct{ env, want string }{
		{"SENDLATER_ADDR=127.0.0.1:18880", "base_url = http://127.0.0.1:18880\n"},
		{"SENDLATER_ADDR=:8080", "base_url = http://localhost:8080\n"},
		{"SENDLATER_ADDR=0.0.0.0:9090", "base_url = http://localhost:9090\n"},
		{"SENDLATER_ADDR=[::1]:9090", "base_url = http://[::1]:9090\n"},
	} {
		r := run(t, t.TempDir(), []string{tt.env}, "config")
		if r.code != 0 || !strings.Contains(r.stdout, tt.want) || !strings.Contains(r.stderr, "base_url is not set") {
			t.Errorf("%s: %+v, want %q", tt.env, r, tt.want)
		}
	}
	r := run(t, t.TempDir(), []string{"SENDLATER_ADDR=127.0.0.1:18880", "SENDLATER_BASE_URL=https://sendlater.example"}, "config")
	if !strings.Contains(r.stdout, "base_url = https://sendlater.example\n") || r.stderr != "" {
		t.Errorf("a base_url that is set: %+v", r)
	}

	// The verification email of a sign-up on a server at a fixed address.
	mail := smtptest.Start(t)
	dir := t.TempDir()
	var srv *server
	for attempt := 1; srv == nil; attempt++ {
		addr := freeAddr(t)
		cmd := exec.Command(binary, "serve")
		cmd.Dir = dir
		cmd.Env = append(cleanEnv(), smtpEnv(mail, "SENDLATER_ADDR="+addr)...)
		s, err := launchServer(cmd)
		if err != nil && (attempt == 5 || !strings.Contains(err.Error(), "address already in use")) {
			t.Fatal(err)
		}
		if err == nil {
			t.Cleanup(func() { s.stop(t) })
			srv = s
		}
	}
	signUp(t, srv.url, "ann@example.com")
	msgs, err := mail.WaitFor(1, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p, err := msgs[0].Parse()
	if err != nil {
		t.Fatal(err)
	}
	if link := p.Link(srv.url + "/"); link == "" {
		t.Errorf("no link to %s in the email: %v", srv.url, p.Links())
	}
	if want := "base_url is not set: email links use " + srv.url; strings.Count(srv.logs.String(), want) != 1 {
		t.Errorf("the log does not say %q once:\n%s", want, srv.logs)
	}

	// ":0": the links name the port the server got.
	srv0 := startServer(t, t.TempDir())
	if want := "base_url is not set: email links use " + srv0.url + ","; !strings.Contains(srv0.logs.String(), want) {
		t.Errorf("the log does not say %q:\n%s", want, srv0.logs)
	}
}

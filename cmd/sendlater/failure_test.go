package main_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

// A message whose author's failure notice is refused too: `messages show`
// says nobody was told, and /healthz counts it.
func TestAFailureNobodyWasToldShows(t *testing.T) {
	// The delivery, then the notice.
	dir, env, srv, ms := failNow(t, 2, "5.1.1 mailbox unavailable", "outbox item failed for good")
	r := mustRunEnv(t, dir, env, "messages", "show", ms[0].ID)
	if !strings.Contains(r.stdout, "failed") || !strings.Contains(r.stdout, "Author's notice") || !strings.Contains(r.stdout, "FAILED for good") {
		t.Fatalf("messages show:\n%s", r.stdout)
	}
	r = mustRunEnv(t, dir, env, "messages", "show", ms[0].ID, "--json")
	var shown struct {
		Outbox struct {
			Kind     string
			FailedAt int64
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &shown); err != nil || shown.Outbox.Kind != "failure-notice" || shown.Outbox.FailedAt == 0 {
		t.Fatalf("messages show --json: %s", r.stdout)
	}
	resp, err := http.Get(srv.url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var health struct {
		Outbox struct{ Pending, Failed int }
	}
	json.NewDecoder(resp.Body).Decode(&health)
	if health.Outbox.Failed != 1 {
		t.Fatalf("healthz: %+v", health)
	}
}

// failNow starts serve on a seeded store with a mail server that refuses
// the next fails emails with reply, sends the first message now and waits
// (20 s at most) for the log to say logged.
func failNow(t *testing.T, fails int, reply, logged string) (dir string, env []string, srv *server, ms []*core.Message) {
	t.Helper()
	dir = t.TempDir()
	_, ms = seed(t, dir)
	mail := smtptest.Start(t)
	mail.FailNext(fails, 550, reply)
	env = smtpEnv(mail, "SENDLATER_SCHEDULER_INTERVAL=1s")
	srv = startServer(t, dir, env...)
	mustRunEnv(t, dir, env, "messages", "reschedule", ms[0].ID, "--at", "now")
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(srv.logs.String(), logged) {
		if time.Now().After(deadline) {
			t.Fatalf("the log never said %q:\n%s", logged, srv.logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return dir, env, srv, ms
}

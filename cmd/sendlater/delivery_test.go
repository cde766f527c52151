package main_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/mailer/smtptest"
)

// smtpEnv points sendlater at the test SMTP server.
func smtpEnv(srv *smtptest.Server, extra ...string) []string {
	return append([]string{
		"SENDLATER_MAIL_SMTP_HOST=" + srv.Host(),
		fmt.Sprintf("SENDLATER_MAIL_SMTP_PORT=%d", srv.Port()),
		"SENDLATER_MAIL_SMTP_TLS=none",
		"SENDLATER_MAIL_FROM=Sendlater <noreply@sendlater.test>",
	}, extra...)
}

func mustRunEnv(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	r := run(t, dir, env, args...)
	if r.code != 0 {
		t.Fatalf("sendlater %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

func messageStatus(t *testing.T, dir string, env []string, id string) string {
	t.Helper()
	r := mustRunEnv(t, dir, env, "messages", "show", id, "--json")
	var v struct{ Status string }
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("messages show --json: %v\n%s", err, r.stdout)
	}
	return v.Status
}

func TestSendDueWithoutAServer(t *testing.T) {
	dir := t.TempDir()
	_, ms := seed(t, dir)
	mail := smtptest.Start(t)
	env := smtpEnv(mail)

	// Nothing is due for a month.
	r := mustRunEnv(t, dir, env, "send-due", "--verbose")
	if !strings.Contains(r.stderr, "opened the store") || !strings.Contains(r.stdout, "delivered 0, reminded 0, retried 0, failed 0") {
		t.Fatalf("%+v", r)
	}
	// Reminders are due 10 days before (after 20 days), deliveries after a month.
	r = mustRunEnv(t, dir, env, "send-due", "--dry-run", "--at", "+500h")
	if !strings.Contains(r.stdout, "reminder") || !strings.Contains(r.stdout, "Ada@Example.com") || strings.Contains(r.stdout, "delivery") {
		t.Fatalf("dry run by +500h:\n%s", r.stdout)
	}
	r = mustRunEnv(t, dir, env, "send-due", "--dry-run", "--at", "+800h")
	if !strings.Contains(r.stdout, "delivery") || !strings.Contains(r.stdout, ms[0].ID) || strings.Contains(r.stdout, "reminder") {
		t.Fatalf("dry run by +800h:\n%s", r.stdout)
	}
	if len(mail.Messages()) != 0 {
		t.Fatal("a dry run sent email")
	}

	// Pause the second message, make both due, and pass.
	mustRunEnv(t, dir, env, "messages", "pause", ms[1].ID)
	for _, m := range ms {
		mustRunEnv(t, dir, env, "messages", "reschedule", m.ID, "--at", "now")
	}
	r = mustRunEnv(t, dir, env, "send-due")
	if !strings.Contains(r.stdout, "delivered 1,") {
		t.Fatalf("send-due: %s", r.stdout)
	}
	got, err := mail.WaitFor(1, 5*time.Second)
	if err != nil || len(got) != 1 || got[0].To[0] != "charles@example.com" {
		t.Fatalf("received %v, %v", got, err)
	}
	p, _ := got[0].Parse()
	if !strings.Contains(p.Text, "The key is under the blue pot.") || strings.Contains(p.Text, "Letter 1") {
		t.Fatalf("delivery email:\n%s", p.Text)
	}
	if s := messageStatus(t, dir, env, ms[0].ID); s != "delivered" {
		t.Fatalf("status %s", s)
	}
	if s := messageStatus(t, dir, env, ms[1].ID); s != "paused" {
		t.Fatalf("paused message status %s", s)
	}
	r = run(t, dir, env, "messages", "reschedule", ms[0].ID, "--at", "+1h")
	if r.code == 0 || !strings.Contains(r.stderr, "has been delivered") {
		t.Fatalf("reschedule of a delivered message: %+v", r)
	}

	// Resumed and delivered now.
	r = run(t, dir, env, "messages", "deliver-now", ms[1].ID)
	if r.code == 0 || !strings.Contains(r.stderr, "paused") {
		t.Fatalf("deliver-now of a paused message: %+v", r)
	}
	mustRunEnv(t, dir, env, "messages", "resume", ms[1].ID)
	r = mustRunEnv(t, dir, env, "messages", "deliver-now", ms[1].ID)
	if !strings.Contains(r.stdout, "is delivered") {
		t.Fatalf("deliver-now: %s", r.stdout)
	}
	if _, err := mail.WaitFor(2, 5*time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestSendDueFailsWhenTheMailServerIsDown(t *testing.T) {
	dir := t.TempDir()
	_, ms := seed(t, dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing listens there now
	env := []string{"SENDLATER_MAIL_SMTP_HOST=127.0.0.1", fmt.Sprintf("SENDLATER_MAIL_SMTP_PORT=%d", port), "SENDLATER_MAIL_SMTP_TLS=none"}
	mustRunEnv(t, dir, env, "messages", "reschedule", ms[0].ID, "--at", "now")
	r := run(t, dir, env, "send-due")
	if r.code == 0 || !strings.Contains(r.stderr, "mail server could not be reached") || !strings.Contains(r.stdout, "retried 1") {
		t.Fatalf("send-due with the mail server down: %+v", r)
	}
	// The message waits for its retry; its reason is the author's, without
	// the relay's address (which the log has).
	r = mustRunEnv(t, dir, env, "messages", "show", ms[0].ID)
	if !strings.Contains(r.stdout, "Attempts:") || !strings.Contains(r.stdout, "could not be reached") ||
		strings.Contains(r.stdout, fmt.Sprintf(":%d", port)) {
		t.Fatalf("after a failed pass:\n%s", r.stdout)
	}
}

func TestSendDueAndSteeringThroughTheServer(t *testing.T) {
	dir := t.TempDir()
	_, ms := seed(t, dir)
	mail := smtptest.Start(t)
	// An hour between ticks: only send-due delivers in this test.
	env := smtpEnv(mail, "SENDLATER_SCHEDULER_INTERVAL=1h")
	srv := startServer(t, dir, env...)

	r := mustRunEnv(t, dir, env, "messages", "reschedule", ms[0].ID, "--at", "now", "--verbose")
	if !strings.Contains(r.stderr, "admin socket") {
		t.Fatalf("reschedule did not use the server: %s", r.stderr)
	}
	r = mustRunEnv(t, dir, env, "send-due", "--dry-run")
	if !strings.Contains(r.stdout, ms[0].ID) {
		t.Fatalf("dry run through the server:\n%s", r.stdout)
	}
	r = mustRunEnv(t, dir, env, "send-due", "--verbose", "--json")
	var res struct{ Delivered int }
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Delivered != 1 || !strings.Contains(r.stderr, "admin socket") {
		t.Fatalf("send-due through the server: %+v", r)
	}
	if _, err := mail.WaitFor(1, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	mustRunEnv(t, dir, env, "messages", "pause", ms[1].ID)
	mustRunEnv(t, dir, env, "messages", "resume", ms[1].ID)
	r = mustRunEnv(t, dir, env, "messages", "deliver-now", ms[1].ID)
	if !strings.Contains(r.stdout, "is delivered") {
		t.Fatalf("deliver-now: %s", r.stdout)
	}
	if _, err := mail.WaitFor(2, 5*time.Second); err != nil {
		t.Fatal(err)
	}

	var health struct{ Status, Scheduler string }
	resp, err := http.Get(srv.url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&health)
	resp.Body.Close()
	if health.Status != "ok" || health.Scheduler != "ok" {
		t.Fatalf("healthz: %+v", health)
	}
}

func TestTheServersSchedulerDelivers(t *testing.T) {
	dir := t.TempDir()
	_, ms := seed(t, dir)
	mail := smtptest.Start(t)
	beat := make(chan struct{}, 100)
	hb := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { beat <- struct{}{} })}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go hb.Serve(ln)
	t.Cleanup(func() { hb.Close() })
	env := smtpEnv(mail, "SENDLATER_SCHEDULER_INTERVAL=1s", "SENDLATER_SCHEDULER_HEARTBEAT_URL=http://"+ln.Addr().String()+"/ping")
	startServer(t, dir, env...)
	select {
	case <-beat:
	case <-time.After(10 * time.Second):
		t.Fatal("no heartbeat after a pass")
	}
	mustRunEnv(t, dir, env, "messages", "reschedule", ms[0].ID, "--at", "now")
	got, err := mail.WaitFor(1, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].To[0] != "charles@example.com" {
		t.Fatalf("sent to %v", got[0].To)
	}
}

func TestServeWithoutScheduler(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, nil, "serve", "--help")
	if !strings.Contains(r.stdout, "--no-scheduler") {
		t.Fatalf("serve --help:\n%s", r.stdout)
	}
}

// A reset email leaves as soon as it is asked for, not at the scheduler's
// next tick (an hour here): the request wakes the scheduler.
func TestAResetEmailLeavesAtOnce(t *testing.T) {
	dir := t.TempDir()
	seed(t, dir)
	mail := smtptest.Start(t)
	s := startServer(t, dir, smtpEnv(mail, "SENDLATER_SCHEDULER_INTERVAL=1h")...)
	time.Sleep(500 * time.Millisecond) // the scheduler's first pass is over
	start := time.Now()
	resp, err := http.Post(s.url+"/api/auth/password-reset", "application/json", strings.NewReader(`{"email":"ada@example.com"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("reset: %d", resp.StatusCode)
	}
	got, err := mail.WaitFor(1, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].To[0] != "Ada@Example.com" {
		t.Fatalf("sent to %v", got[0].To)
	}
	t.Logf("the reset email left %v after the request", time.Since(start))
}

// `messages postpone` on a message made today says the date stays; after
// a reschedule to an earlier date it moves and says to when; the timeline
// calls the reschedule "rescheduled", not "postponed".
func TestMessagesPostponeSaysWhatItDid(t *testing.T) {
	dir := t.TempDir()
	_, ms := seed(t, dir)
	r := mustRunEnv(t, dir, nil, "messages", "postpone", ms[0].ID)
	if !strings.Contains(r.stdout, "Postponing today would not move the date: it is already ") || strings.Contains(r.stdout, "postponed") {
		t.Fatalf("postpone on the day it was made: %+v", r)
	}
	mustRunEnv(t, dir, nil, "messages", "reschedule", ms[0].ID, "--at", "+48h")
	r = mustRunEnv(t, dir, nil, "messages", "postpone", ms[0].ID)
	if !strings.Contains(r.stdout, "The message is postponed! It will be delivered on ") {
		t.Fatalf("postpone after a reschedule: %+v", r)
	}
	r = mustRunEnv(t, dir, nil, "messages", "show", ms[0].ID)
	if !strings.Contains(r.stdout, "rescheduled") || !strings.Contains(r.stdout, "postponed") {
		t.Fatalf("timeline:\n%s", r.stdout)
	}
}

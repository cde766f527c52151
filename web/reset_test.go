package web_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/internal/stats"
)

// With the mail server down, a password reset for an account answers as
// for an address without one, and sign-up and verification still answer:
// the emails wait in the outbox until the server is back.
func TestIdentityEmailsDoNotWaitForTheMailServer(t *testing.T) {
	a := mustIdentityAPI(t)
	a.signUp(nil, "ann@example.com")
	a.SMTP.Close()
	reset := func(email string) (int, string) {
		resp, body := a.raw("POST", "/api/auth/password-reset", map[string]string{"Content-Type": "application/json"},
			`{"email":"`+email+`"}`)
		return resp.StatusCode, body
	}
	knownStatus, knownBody := reset("ann@example.com")
	unknownStatus, unknownBody := reset("nobody@example.com")
	if knownStatus != 200 || knownStatus != unknownStatus || knownBody != unknownBody {
		t.Fatalf("known: %d %s; unknown: %d %s", knownStatus, knownBody, unknownStatus, unknownBody)
	}
	var tok tokensReply
	a.ok(nil, http.StatusCreated, "POST", "/api/auth/signup", "", map[string]string{"email": "bob@example.com", "password": pw}, &tok)
	a.ok(nil, http.StatusOK, "POST", "/api/me/verify-email", tok.IDToken, nil, nil)

	// The pass finds the mail server down: the reset (now with its link) and
	// both verification emails wait for a retry; the unknown address's
	// request is done, nothing sent.
	if err := a.Delivery.RunOutbox(context.Background()); err != nil {
		t.Fatal(err)
	}
	if pending, failed, _ := a.DB.CountOutbox(context.Background()); pending != 3 || failed != 0 {
		t.Fatalf("outbox: %d pending, %d failed; want 3 waiting", pending, failed)
	}
}

// 1,000 timed resets of addresses with an account and 1,000 of addresses
// without, in random order, against the server with its scheduler woken by
// each reset (as serve runs): the two samples of reply times are compared
// with the two-sample Kolmogorov–Smirnov test (internal/stats), which must
// not tell them apart at the 0.1% level. Medians and 95th percentiles are
// logged (go test -v -run ResetTiming ./web).
func TestPasswordResetTimingTellsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 timed requests")
	}
	a := mustIdentityAPI(t)
	a.runScheduler()
	const n = 1000
	type request struct {
		email string
		known bool
	}
	var reqs []request
	for i := range n {
		email := fmt.Sprintf("known%d@example.com", i)
		a.MustUser(t, email, "", "")
		reqs = append(reqs, request{email, true}, request{fmt.Sprintf("unknown%d@example.com", i), false})
	}
	rand.Shuffle(len(reqs), func(i, j int) { reqs[i], reqs[j] = reqs[j], reqs[i] })
	client := &http.Client{Timeout: 10 * time.Second}
	send := func(i int, email string) time.Duration {
		req, _ := http.NewRequest("POST", a.srv.URL()+"/api/auth/password-reset", strings.NewReader(`{"email":"`+email+`"}`))
		req.Header.Set("Content-Type", "application/json")
		// Each from its own client, as a crowd would: no client limit applies.
		req.Header.Set("X-Forwarded-For", fmt.Sprintf("10.%d.%d.%d", i>>16, i>>8&255, i&255))
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(start)
		if resp.StatusCode != 200 || string(body) != `{"status":"success","data":null}`+"\n" {
			t.Fatalf("reset of %s: %d %s", email, resp.StatusCode, body)
		}
		return took
	}
	for i := range 50 { // warm up: connections, caches
		send(1<<20+i, fmt.Sprintf("warmup%d@example.com", i))
	}
	var known, unknown []time.Duration
	for i, r := range reqs {
		if d := send(i, r.email); r.known {
			known = append(known, d)
		} else {
			unknown = append(unknown, d)
		}
	}
	ks := stats.KSTest(known, unknown)
	t.Logf("known: median %v, p95 %v; unknown: median %v, p95 %v; Kolmogorov–Smirnov D %.3f, P %.3f",
		stats.Quantile(known, 0.5), stats.Quantile(known, 0.95),
		stats.Quantile(unknown, 0.5), stats.Quantile(unknown, 0.95), ks.D, ks.P)
	if ks.P < 0.001 {
		t.Fatalf("the reply times tell known addresses from unknown ones: D %.3f, P %.5f", ks.D, ks.P)
	}
	// And the known addresses did get their emails, the others none.
	msgs, err := a.SMTP.WaitFor(n, 60*time.Second)
	if err != nil || len(msgs) != n {
		t.Fatalf("%d emails after the resets, want %d: %v", len(msgs), n, err)
	}
	for _, m := range msgs {
		if !strings.HasPrefix(m.To[0], "known") {
			t.Fatalf("an email to %v", m.To)
		}
	}
}

package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer/smtptest"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/seal"
	"github.com/sendlater/sendlater/store/storetest"
	"github.com/sendlater/sendlater/store/transfer"
)

const clusterPassword = "a long passphrase for the cluster"

// session is a signed-in client: its ID token and refresh cookie.
type session struct{ idToken, refresh string }

// authCall posts to one of the /api/auth routes, with a refresh cookie when
// given, and returns the reply's status and session.
func authCall(t *testing.T, url, path string, body any, cookie string) (int, session) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: "sl_refresh", Value: cookie})
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Data struct {
			IDToken string `json:"idToken"`
		}
	}
	json.NewDecoder(resp.Body).Decode(&env)
	s := session{idToken: env.Data.IDToken}
	for _, c := range resp.Cookies() {
		if c.Name == "sl_refresh" {
			s.refresh = c.Value
		}
	}
	return resp.StatusCode, s
}

func signUp(t *testing.T, url, email string) session {
	t.Helper()
	return signWith(t, url, "/api/auth/signup", email, http.StatusCreated)
}

func signIn(t *testing.T, url, email string) session {
	t.Helper()
	return signWith(t, url, "/api/auth/signin", email, http.StatusOK)
}

// signWith signs email up or in (path) on url with clusterPassword.
func signWith(t *testing.T, url, path, email string, want int) session {
	t.Helper()
	code, s := authCall(t, url, path, map[string]string{"email": email, "password": clusterPassword}, "")
	if code != want || s.idToken == "" || s.refresh == "" {
		t.Fatalf("%s of %s on %s: %d", path, email, url, code)
	}
	return s
}

// refresh exchanges a refresh cookie on url and wants the status code.
func refresh(t *testing.T, url, cookie string, want int) session {
	t.Helper()
	code, s := authCall(t, url, "/api/auth/token", nil, cookie)
	if code != want {
		t.Fatalf("refresh on %s: %d, want %d", url, code, want)
	}
	return s
}

// awaitList waits at most a second for a list of the live stream that ok
// accepts.
func awaitList(t *testing.T, lists <-chan core.MessageList, ok func([]*core.Message) bool) {
	t.Helper()
	deadline := time.After(time.Second)
	for {
		select {
		case l, open := <-lists:
			if !open || l.Err != nil {
				t.Fatalf("the live list ended: %v", l.Err)
			}
			if ok(l.Messages) {
				return
			}
		case <-deadline:
			t.Fatal("the live list did not show the change within a second")
		}
	}
}

type health struct {
	Status, Store, Scheduler string
	LastPass                 int64
}

func healthOf(t *testing.T, url string) health {
	t.Helper()
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h health
	json.NewDecoder(resp.Body).Decode(&h)
	return h
}

func regexpContains(s, pattern string) bool { return regexp.MustCompile(pattern).MatchString(s) }

// seedUser stores a user on a pro plan and returns its id.
func seedUser(t *testing.T, db *postgres.DB, email string) string {
	t.Helper()
	now := time.Now()
	u := &core.User{ID: core.NewID(), Email: email, CreatedAt: now, UpdatedAt: now}
	if err := db.CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// makeDue stores n messages of a new author due now, in one transaction,
// addressed to r<round>-<i>@example.com.
func makeDue(t *testing.T, db *postgres.DB, round, n int) string {
	t.Helper()
	owner := seedUser(t, db, fmt.Sprintf("author-of-round-%d@example.com", round))
	sealer, err := seal.New(pgtest.Key)
	if err != nil {
		t.Fatal(err)
	}
	recs := &transfer.Records{}
	for _, m := range storetest.DueMessages(owner, n, func(i int) string { return fmt.Sprintf("r%d-%d@example.com", round, i) }, time.Now()) {
		sm := sealer.SealMessage(m)
		recs.Messages = append(recs.Messages, &sm)
	}
	if _, err := db.Import(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	return owner
}

// awaitDelivered waits until every message of owner is delivered.
func awaitDelivered(t *testing.T, db *postgres.DB, owner string, timeout time.Duration) {
	t.Helper()
	awaitDeliveredOnceSent(t, db, owner, timeout, nil)
}

// awaitDeliveredOnceSent is awaitDelivered, with sent (nil: none) saying
// cheaply whether every message was sent, as the mailbox shows: until it
// does, the store is listed once a second rather than every 200 ms. The
// list of thousands of messages, each one decrypted, costs the -race test
// process far more CPU than the replicas can spare on two cores; the
// outcomes are recorded right after the sends, and a failed message still
// shows within a second.
func awaitDeliveredOnceSent(t *testing.T, db *postgres.DB, owner string, timeout time.Duration, sent func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var listed time.Time
	for {
		if sent != nil && time.Since(listed) < time.Second && !sent() && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		listed = time.Now()
		ms, _, err := db.ListMessages(context.Background(), core.MessageFilter{Owner: owner})
		if err != nil {
			t.Fatal(err)
		}
		waiting := 0
		for _, m := range ms {
			switch m.Status {
			case core.StatusDelivered:
			case core.StatusFailed:
				t.Fatalf("message %s failed: %s", m.ID, m.LastError)
			default:
				waiting++
			}
		}
		if waiting == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d messages still not delivered after %s", waiting, len(ms), timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// receivedAll reports whether mail holds an email for each of round's n
// recipients (r<round>-<i>@example.com).
func receivedAll(mail *smtptest.Server, round, n int) bool {
	return len(roundMail(mail, round)) >= n
}

// roundMail is the Message-IDs of the emails each of round's recipients
// received, by address.
func roundMail(mail *smtptest.Server, round int) map[string][]string {
	prefix := fmt.Sprintf("r%d-", round)
	ids := map[string][]string{}
	for _, m := range mail.Messages() {
		if len(m.To) == 1 && strings.HasPrefix(m.To[0], prefix) {
			ids[m.To[0]] = append(ids[m.To[0]], m.Header.Get("Message-Id"))
		}
	}
	return ids
}

// checkMailbox checks that each of round's n recipients received their
// message, all copies with one Message-ID, and returns how many copies were
// duplicates.
func checkMailbox(t *testing.T, mail *smtptest.Server, round, n int) int {
	t.Helper()
	ids := roundMail(mail, round)
	dups := 0
	for i := range n {
		to := fmt.Sprintf("r%d-%d@example.com", round, i)
		got := ids[to]
		if len(got) == 0 {
			t.Fatalf("round %d: %s received nothing", round, to)
		}
		for _, id := range got {
			if id == "" || id != got[0] {
				t.Fatalf("round %d: %s received copies with Message-IDs %q", round, to, got)
			}
		}
		dups += len(got) - 1
	}
	return dups
}

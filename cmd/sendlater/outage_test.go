package main_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer/smtptest"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/web"
)

// TestDatabaseOutage: while its database is away a replica answers 503
// with a sentence a user can read and changes nothing; when the database is
// back it recovers by itself and delivers what fell due meanwhile.
func TestDatabaseOutage(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	proxy := pgtest.StartProxy(t, url)
	mail := smtptest.Start(t)
	env := pgEnv(proxy.URL, smtpEnv(mail, "SENDLATER_SCHEDULER_INTERVAL=1s")...)
	srv := startServer(t, t.TempDir(), env...)
	token := signUp(t, srv.url, "ann@example.com").idToken
	ann := web.NewAPIClient(srv.url, token, 0)
	m, err := ann.Create(ctx, core.MessageInput{Title: "Before", Name: "Grace", Recipient: "grace@example.com", Body: "Kept."})
	if err != nil {
		t.Fatal(err)
	}

	proxy.Down()
	const down = "The database cannot be reached at the moment. Please try again shortly."
	req, _ := http.NewRequest("GET", srv.url+"/api/messages", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var env503 struct{ Status, Code, Message string }
	json.NewDecoder(resp.Body).Decode(&env503)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || env503.Code != core.EUnavailable || env503.Message != down {
		t.Fatalf("list while the database is down: %d %+v", resp.StatusCode, env503)
	}
	if _, err := ann.Create(ctx, core.MessageInput{Title: "During", Name: "Grace", Recipient: "grace@example.com", Body: "Refused."}); core.ErrorCode(err) != core.EUnavailable {
		t.Fatalf("create while the database is down: %v", err)
	}
	if h := healthOf(t, srv.url); h.Status != "unavailable" {
		t.Fatalf("healthz while the database is down: %+v", h)
	}
	// Meanwhile messages fall due (written past the proxy), and the
	// scheduler's passes fail.
	db := openPostgres(t, url)
	owner := makeDue(t, db, 0, 5)
	time.Sleep(2 * time.Second)

	proxy.Up()
	deadline := time.Now().Add(20 * time.Second)
	for healthOf(t, srv.url).Status != "ok" {
		if time.Now().After(deadline) {
			t.Fatal("the replica did not recover")
		}
		time.Sleep(200 * time.Millisecond)
	}
	page, err := ann.List(ctx, core.Page{})
	if err != nil || len(page.Messages) != 1 || page.Messages[0].ID != m.ID || page.Messages[0].Body != m.Body {
		t.Fatalf("after the outage: %v %v", page, err)
	}
	awaitDelivered(t, db, owner, 20*time.Second)
	checkMailbox(t, mail, 0, 5)
}

package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/web"
)

// startPostgresAPI is mustIdentityAPI over a PostgreSQL store at url (a
// pgtest.Proxy's, to cut its connections).
func startPostgresAPI(t *testing.T, url string) *identityAPI {
	t.Helper()
	logs := &lockedBuffer{}
	e := testenv.New(t, testenv.Config{Backend: testenv.Postgres, PostgresURL: url, BaseURL: identityBaseURL,
		Start: time.Now(), Logger: slogDiscard()})
	e.Messages.Recheck = testHeartbeat
	s := &web.Server{
		Logger: slogDiscard(), BaseURL: identityBaseURL, AppName: "Sendlater", Clock: e.Clock,
		Identities: e.Auth, Messages: e.Messages, Contact: e.Contact,
		Postpone: e.Postpone, Refusals: e.Refuse, WebhookSecrets: e.WebhookSecrets, Social: e.Social,
		StreamHeartbeat: testHeartbeat, Outbox: e.Store,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
	}
	if err := s.Open("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return &identityAPI{Env: e, t: t, srv: s, logs: logs}
}

// A create whose COMMIT left but whose answer the connection lost answers
// service/outcome-unknown (503, Retry-After), not service/unavailable
// ("nothing changed"): the message may be stored. The retry with the same
// Idempotency-Key tells the truth: the message the first request stored,
// or, when its COMMIT never reached the server, the message made now;
// either way one message.
func TestCreateWithLostCommitAnswer(t *testing.T) {
	url := pgtest.URL(t)
	p := pgtest.StartProxy(t, url)
	a := startPostgresAPI(t, p.URL)
	ann := a.author("ann@example.com")
	_, err := a.Store.UpdateUser(a.Ctx, ann.uid, func(u *core.User) error { // more than one message
		u.StripePriceID, u.StripeSubscriptionStatus = core.PriceMap{}.PriceFor(core.PlanPro), "active"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	post := func(key, title string) (*http.Response, envelope) {
		body, _ := json.Marshal(newMessage(map[string]any{"title": title}))
		resp, text := a.raw("POST", "/api/messages", map[string]string{"Content-Type": "application/json",
			"Authorization": "Bearer " + ann.token, web.IdempotencyKeyHeader: key}, string(body))
		return resp, decodeEnvelope(t, text)
	}
	want := 0
	for _, committed := range []bool{true, false} {
		key, title := core.NewID(), "Committed"
		if !committed {
			title = "Rolled back"
		}
		cut := p.CutAtCommit(committed, "insert into messages")
		resp, env := post(key, title)
		<-cut.Done
		if resp.StatusCode != http.StatusServiceUnavailable || env.Code != core.EOutcomeUnknown ||
			env.Message != "We could not confirm that the message was saved. Try again: with the same Idempotency-Key it will not be made twice. Or reload to check." {
			t.Fatalf("committed %v: %d %+v, want 503 %s", committed, resp.StatusCode, env, core.EOutcomeUnknown)
		}
		if resp.Header.Get("Retry-After") == "" {
			t.Fatal("no Retry-After")
		}
		var first messageReply
		for i := 0; ; i++ { // the pool may hand out a connection the cut left dead first
			resp, env = post(key, title)
			if env.Code != core.EUnavailable || i == 5 {
				break
			}
		}
		json.Unmarshal(env.Data, &first)
		if resp.StatusCode != http.StatusCreated || first.Title != title {
			t.Fatalf("committed %v: the retry: %d %+v", committed, resp.StatusCode, env)
		}
		want++
		ms := a.listMessages(ann)
		if len(ms) != want || !slices.ContainsFunc(ms, func(m messageReply) bool { return m.ID == first.ID }) {
			t.Fatalf("committed %v: %d messages after the retry, want %d", committed, len(ms), want)
		}
	}
}

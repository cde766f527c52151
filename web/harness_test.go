package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/mailer/mailertest"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/web"
)

// Helpers shared by the message, stream, contact and hardening tests, over
// the server of mustIdentityAPI.

// testHeartbeat is the message streams' heartbeat in tests.
const testHeartbeat = 200 * time.Millisecond

// operatorEmail is contact.to in tests.
const operatorEmail = "operator@sendlater.test"

// lockedBuffer is a bytes.Buffer safe for the server's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// author is a signed-up user of the API.
type author struct {
	uid, email, token string
}

// author signs a new account up through the API.
func (a *identityAPI) author(email string) author {
	a.t.Helper()
	tok := a.signUp(browserClient(a.t), email)
	return author{uid: tok.User.UID, email: email, token: tok.IDToken}
}

// signInAgain gives who a fresh ID token, after the clock moved past the
// last one's hour.
func (a *identityAPI) signInAgain(who author) author {
	a.t.Helper()
	who.token = a.signIn(browserClient(a.t), who.email, pw).IDToken
	return who
}

// grantPlan puts the user on an active plan, as `sendlater users set-plan`.
func (a *identityAPI) grantPlan(uid string, plan core.PlanID) {
	a.t.Helper()
	_, err := a.db.UpdateUser(context.Background(), uid, func(u *core.User) error {
		u.StripePriceID = core.PriceMap{}.PriceFor(plan)
		u.StripeSubscriptionStatus = "active"
		return nil
	})
	if err != nil {
		a.t.Fatal(err)
	}
}

// messageReply is a message as API.md sends it.
type messageReply struct {
	ID             string `json:"id"`
	Owner          string `json:"owner"`
	Title          string `json:"title"`
	Name           string `json:"name"`
	Recipient      string `json:"recipient"`
	Message        string `json:"message"`
	Interval       string `json:"interval"`
	SendDate       int64  `json:"sendDate"`
	IsActive       bool   `json:"isActive"`
	Featured       bool   `json:"featured"`
	CreatedAt      int64  `json:"createdAt"`
	Status         string `json:"status"`
	ReminderSentAt *int64 `json:"reminderSentAt"`
	DeliveredAt    *int64 `json:"deliveredAt"`
}

// newMessage is a valid create body; change overrides fields (nil deletes).
func newMessage(change map[string]any) map[string]any {
	m := map[string]any{
		"title": "For my sister", "name": "Ann", "recipient": "ann@example.com",
		"message": "The key is under the blue pot.",
	}
	for k, v := range change {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return m
}

// createMessage creates a message through the API.
func (a *identityAPI) createMessage(who author, change map[string]any) messageReply {
	a.t.Helper()
	var m messageReply
	a.ok(nil, http.StatusCreated, "POST", "/api/messages", who.token, newMessage(change), &m)
	return m
}

// listMessages lists who's messages through the API.
func (a *identityAPI) listMessages(who author) []messageReply {
	a.t.Helper()
	var ms []messageReply
	a.ok(nil, http.StatusOK, "GET", "/api/messages", who.token, nil, &ms)
	return ms
}

// raw sends a request with the given headers and body and returns the reply
// and its body, whatever they are.
func (a *identityAPI) raw(method, path string, header map[string]string, body string) (*http.Response, string) {
	a.t.Helper()
	req, err := http.NewRequest(method, a.srv.URL()+path, strings.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp, b.String()
}

// decodeEnvelope decodes a reply body that must be an envelope.
func decodeEnvelope(t *testing.T, body string) envelope {
	t.Helper()
	var env envelope
	if err := json.Unmarshal([]byte(body), &env); err != nil {
		t.Fatalf("reply is no envelope: %v: %q", err, body)
	}
	return env
}

// slogDiscard is a production-like logger writing nowhere.
func slogDiscard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// handlerEnv is the API's handler over a temp store with a capturing mailer
// and cheap password hashing, without a listening server: for fuzz tests and
// benchmarks, which call the handler directly.
type handlerEnv struct {
	db       *bolt.DB
	auth     *core.Auth
	messages *core.MessageService
	clock    *core.ManualClock
}

func newHandlerEnv(tb testing.TB) *handlerEnv {
	tb.Helper()
	db, err := bolt.Open(filepath.Join(tb.TempDir(), "sendlater.db"), bolt.Options{
		Key: []byte("k3y-0f-32-bytes-for-aes-256-gcm!"), NoSync: true,
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	emails, err := mailer.NewTemplates("Sendlater", identityBaseURL)
	if err != nil {
		tb.Fatal(err)
	}
	clock := core.NewManualClock(time.Now())
	return &handlerEnv{
		db:    db,
		clock: clock,
		auth: &core.Auth{
			Users: db, Sessions: db, AccessTokens: db, ActionCodes: db, Messages: db,
			Mailer: &mailertest.Mailer{}, Emails: emails, Clock: clock, BaseURL: identityBaseURL,
			SigningKey:     []byte("an ID token signing key of 32+ bytes"),
			PasswordParams: core.PasswordParams{Memory: 64, Time: 1, Threads: 1},
		},
		messages: &core.MessageService{Messages: db, Users: db, Clock: clock},
	}
}

// handler is the server's complete handler over the env.
func (e *handlerEnv) handler(logger *slog.Logger) http.Handler {
	return (&web.Server{
		Logger: logger, BaseURL: identityBaseURL, Clock: e.clock, Users: e.db,
		Auth: e.auth, Messages: e.messages, Watcher: e.db,
	}).Handler()
}

// proAuthor signs email up and grants an active Pro plan.
func (e *handlerEnv) proAuthor(tb testing.TB, email string) *core.Tokens {
	tb.Helper()
	ctx := context.Background()
	tok, err := e.auth.SignUp(ctx, core.SignUpInput{Email: email, Password: pw}, core.Client{})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := e.db.UpdateUser(ctx, tok.User.ID, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = core.PriceMap{}.PriceFor(core.PlanPro), "active"
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	return tok
}

package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
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
	_, err := a.DB.UpdateUser(context.Background(), uid, func(u *core.User) error {
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

// newTestEnv is the test environment of the API tests: the clock starts now,
// since browsers' cookie jars expire cookies by the wall clock, and the
// contact form forwards to operatorEmail.
func newTestEnv(tb testing.TB, log *slog.Logger) *testenv.Env {
	tb.Helper()
	e := testenv.New(tb, testenv.Config{BaseURL: identityBaseURL, Start: time.Now(), Logger: log})
	e.Contact.To = core.Address{Address: operatorEmail}
	e.Messages.Recheck = testHeartbeat
	return e
}

// newTestServer is the public server over the environment, wired as cmd
// wires it.
// The test client is a trusted proxy, so a test may speak for other clients
// (clientFrom).
func newTestServer(e *testenv.Env, log *slog.Logger) *web.Server {
	return &web.Server{
		Logger: log, BaseURL: identityBaseURL, AppName: "Sendlater", Clock: e.Clock,
		Identities: e.Auth, Messages: e.Messages, Contact: e.Contact,
		Postpone: e.Postpone, Refusals: e.Refuse, WebhookSecrets: e.WebhookSecrets, Drafts: e.Drafts, Social: e.Social, Attachments: e.Attachments,
		StreamHeartbeat: testHeartbeat, Outbox: e.DB, Generations: e.DB,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
	}
}

// clientFrom is a client whose requests come, as the server sees them,
// from the address ip (X-Forwarded-For through the trusted test client).
func clientFrom(ip string) *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: forwardedFor{ip}}
}

type forwardedFor struct{ ip string }

func (f forwardedFor) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Forwarded-For", f.ip)
	return http.DefaultTransport.RoundTrip(r)
}

// handlerEnv is the API's handler over the test environment without a
// listening server: for fuzz tests and benchmarks, which call the handler
// directly.
type handlerEnv struct{ *testenv.Env }

func newHandlerEnv(tb testing.TB) *handlerEnv {
	tb.Helper()
	return &handlerEnv{newTestEnv(tb, slogDiscard())}
}

// handler is the server's complete handler over the env.
func (e *handlerEnv) handler(logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return newTestServer(e.Env, logger).Handler()
}

// proAuthor signs email up and grants an active Pro plan.
func (e *handlerEnv) proAuthor(tb testing.TB, email string) *core.Tokens {
	tb.Helper()
	ctx := context.Background()
	tok, err := e.Auth.SignUp(ctx, core.SignUpInput{Email: email, Password: pw}, core.Client{})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := e.DB.UpdateUser(ctx, tok.User.ID, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = core.PriceMap{}.PriceFor(core.PlanPro), "active"
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	return tok
}

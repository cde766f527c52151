package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/mailer/smtptest"
	"github.com/sendlater/sendlater/web"
)

// The API tests run the real server on port 0 over the test environment: a
// temporary bbolt store, the real email templates and SMTP transport, and
// the test SMTP server. identityAPI is that server and the calls a client
// makes to it.

const identityBaseURL = "http://sendlater.test"

type identityAPI struct {
	*testenv.Env
	t    *testing.T
	srv  *web.Server
	logs *lockedBuffer // the server's log, as JSON lines
}

func mustIdentityAPI(t *testing.T) *identityAPI {
	t.Helper()
	return startIdentityAPI(t, nil)
}

// startIdentityAPI is mustIdentityAPI with configure (unless nil) changing
// the environment and the server before it listens.
func startIdentityAPI(t *testing.T, configure func(e *testenv.Env, s *web.Server, log *slog.Logger)) *identityAPI {
	t.Helper()
	logs := &lockedBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e := newTestEnv(t, log)
	s := newTestServer(e, log)
	if configure != nil {
		configure(e, s, log)
	}
	if err := s.Open("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return &identityAPI{Env: e, t: t, srv: s, logs: logs}
}

// runScheduler runs the delivery scheduler beside the server, woken by
// the outbox, as serve does: queued emails then leave at once, without a
// test reading the mailbox.
func (a *identityAPI) runScheduler() {
	a.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	sched := &core.Scheduler{Delivery: a.Delivery, Interval: time.Hour, Logger: slogDiscard()}
	a.Outbox.Wake = sched.Wake
	done := make(chan struct{})
	go func() {
		defer close(done)
		sched.Run(ctx)
	}()
	a.t.Cleanup(func() {
		cancel()
		<-done
	})
}

// envelope is any reply of the API.
type envelope struct {
	Status  string            `json:"status"`
	Code    string            `json:"code"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields"`
	Data    json.RawMessage   `json:"data"`
}

// browserClient has its own cookie jar, like one browser.
func browserClient(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: 10 * time.Second}
}

// call sends a request with an optional bearer token and JSON body (a string
// is sent as is) and decodes the envelope.
func (a *identityAPI) call(c *http.Client, method, path, bearer string, body any) (*http.Response, envelope) {
	a.t.Helper()
	return callURL(a.t, c, method, a.srv.URL()+path, bearer, body)
}

// callURL is call at the full address u, through c (nil: the default client).
func callURL(t *testing.T, c *http.Client, method, u, bearer string, body any) (*http.Response, envelope) {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, u, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env envelope
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatalf("%s %s: reply is no envelope: %v", method, u, err)
	}
	return resp, env
}

// ok calls and requires a success with status, decoding data into out.
func (a *identityAPI) ok(c *http.Client, status int, method, path, bearer string, body, out any) *http.Response {
	a.t.Helper()
	resp, env := a.call(c, method, path, bearer, body)
	if resp.StatusCode != status || env.Status != "success" {
		a.t.Fatalf("%s %s: %d %+v, want %d success", method, path, resp.StatusCode, env, status)
	}
	if out != nil {
		if err := json.Unmarshal(env.Data, out); err != nil {
			a.t.Fatal(err)
		}
	}
	return resp
}

// fail calls and requires an error with status and code.
func (a *identityAPI) fail(c *http.Client, status int, code, method, path, bearer string, body any) (*http.Response, envelope) {
	a.t.Helper()
	resp, env := a.call(c, method, path, bearer, body)
	if resp.StatusCode != status || env.Status != "error" || env.Code != code || env.Message == "" {
		a.t.Fatalf("%s %s: %d %+v, want %d %s", method, path, resp.StatusCode, env, status, code)
	}
	return resp, env
}

type tokensReply struct {
	IDToken   string               `json:"idToken"`
	ExpiresAt int64                `json:"expiresAt"`
	User      *web.SessionUserJSON `json:"user"`
}

const pw = "a long and unusual passphrase"

// signUp creates an account from c's browser and takes its verification email.
func (a *identityAPI) signUp(c *http.Client, email string) tokensReply {
	a.t.Helper()
	var tok tokensReply
	a.ok(c, http.StatusCreated, "POST", "/api/auth/signup", "", map[string]string{"email": email, "password": pw}, &tok)
	a.email(email)
	return tok
}

func (a *identityAPI) signIn(c *http.Client, email, password string) tokensReply {
	a.t.Helper()
	var tok tokensReply
	a.ok(c, http.StatusOK, "POST", "/api/auth/signin", "", map[string]string{"email": email, "password": password}, &tok)
	return tok
}

// email returns the next email received, which must go to to.
func (a *identityAPI) email(to string) *smtptest.Parsed {
	a.t.Helper()
	p, _ := a.Next(a.t, to)
	return p
}

func (a *identityAPI) noMoreEmail() {
	a.t.Helper()
	a.NoMoreEmail(a.t)
}

// followLink returns the oobCode of the email's /firebase-action link of mode.
func (a *identityAPI) followLink(p *smtptest.Parsed, mode string) string {
	a.t.Helper()
	link := p.Link(identityBaseURL + "/firebase-action?")
	u, err := url.Parse(link)
	if err != nil || link == "" {
		a.t.Fatalf("email %q: no action link in %v", p.Subject, p.Links())
	}
	if u.Query().Get("mode") != mode || u.Query().Get("oobCode") == "" {
		a.t.Fatalf("link %s, want mode %s with an oobCode", link, mode)
	}
	return u.Query().Get("oobCode")
}

func refreshCookie(t *testing.T, resp *http.Response) *http.Cookie {
	t.Helper()
	return cookieNamed(t, resp, "sl_refresh")
}

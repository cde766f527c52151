package web_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/web"
)

// Browsers' cross-origin state-changing requests are refused on every API
// route (CSRF); same-origin browsers and non-browser clients pass, and so do
// safe methods.
func TestCrossOriginRequestsAreRefused(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.author("ann@example.com")
	signin := `{"email":"ann@example.com","password":"` + pw + `"}`
	for _, tc := range []struct {
		name, method, path string
		header             map[string]string
		refused            bool
	}{
		{"cross-site sign-in", "POST", "/api/auth/signin", map[string]string{"Sec-Fetch-Site": "cross-site"}, true},
		{"same-site sign-in", "POST", "/api/auth/signin", map[string]string{"Sec-Fetch-Site": "same-site"}, true},
		{"other origin, no Sec-Fetch-Site", "POST", "/api/auth/signin", map[string]string{"Origin": "https://evil.example"}, true},
		{"cross-site refresh", "POST", "/api/auth/token", map[string]string{"Sec-Fetch-Site": "cross-site"}, true},
		{"cross-site sign-out", "POST", "/api/auth/signout", map[string]string{"Sec-Fetch-Site": "cross-site"}, true},
		{"cross-site create", "POST", "/api/messages", map[string]string{"Sec-Fetch-Site": "cross-site"}, true},
		{"cross-site contact", "POST", "/api/contact", map[string]string{"Sec-Fetch-Site": "cross-site"}, true},
		{"same-origin sign-in", "POST", "/api/auth/signin", map[string]string{"Sec-Fetch-Site": "same-origin"}, false},
		{"base URL origin", "POST", "/api/auth/signin", map[string]string{"Origin": identityBaseURL}, false},
		{"no browser headers", "POST", "/api/auth/signin", nil, false},
		{"cross-site list", "GET", "/api/messages", map[string]string{"Sec-Fetch-Site": "cross-site"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + ann.token}
			for k, v := range tc.header {
				h[k] = v
			}
			body := ""
			if tc.path == "/api/auth/signin" {
				body = signin
			}
			resp, raw := a.raw(tc.method, tc.path, h, body)
			env := decodeEnvelope(t, raw)
			refused := resp.StatusCode == http.StatusForbidden && env.Code == core.ECrossOrigin
			if refused != tc.refused {
				t.Fatalf("%d %+v, refused %v, want %v", resp.StatusCode, env, refused, tc.refused)
			}
		})
	}
}

// A panic is an internal error with no detail for the client and the detail,
// with the request id, in the log.
func TestPanicIsAnInternalError(t *testing.T) {
	logs := &lockedBuffer{}
	s := &web.Server{
		Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		Health: func(context.Context) error { panic("boom at /var/lib/sendlater/sendlater.db") },
	}
	base := startBare(t, s)
	resp, body := get(t, base+"/healthz")
	env := decodeEnvelope(t, body)
	if resp.StatusCode != 500 || env.Status != "error" || env.Code != core.EInternal || env.Message != "Internal error." {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if strings.Contains(body, "boom") || strings.Contains(body, "/var/lib") {
		t.Fatalf("the reply shows the panic: %s", body)
	}
	id := resp.Header.Get("X-Request-Id")
	if id == "" || !strings.Contains(logs.String(), `"request_id":"`+id+`"`) || !strings.Contains(logs.String(), "boom at") {
		t.Fatalf("the panic is not logged with request id %q: %s", id, logs)
	}
	assertSecurityHeaders(t, "panic", resp.Header)
	if resp, _ := get(t, base+"/api/plans"); resp.StatusCode != 200 {
		t.Fatalf("the server did not survive the panic: %d", resp.StatusCode)
	}
}

func assertSecurityHeaders(t *testing.T, what string, h http.Header) {
	t.Helper()
	for k, want := range map[string]string{
		"X-Content-Type-Options":     "nosniff",
		"Referrer-Policy":            "strict-origin-when-cross-origin",
		"X-Frame-Options":            "DENY",
		"Cross-Origin-Opener-Policy": "same-origin-allow-popups",
	} {
		if got := h.Get(k); got != want {
			t.Errorf("%s: %s %q, want %q", what, k, got, want)
		}
	}
	csp := h.Get("Content-Security-Policy")
	for _, d := range []string{"default-src 'self'", "frame-ancestors 'none'", "object-src 'none'"} {
		if !strings.Contains(csp, d) {
			t.Errorf("%s: CSP %q lacks %s", what, csp, d)
		}
	}
	if h.Get("X-Request-Id") == "" {
		t.Errorf("%s: no X-Request-Id", what)
	}
	if pp := h.Get("Permissions-Policy"); !strings.Contains(pp, "camera=()") || !strings.Contains(pp, "geolocation=()") {
		t.Errorf("%s: Permissions-Policy %q", what, pp)
	}
	// The test server's base URL is http: no HSTS (TestHSTSOverHTTPS).
	if hsts := h.Get("Strict-Transport-Security"); hsts != "" {
		t.Errorf("%s: HSTS %q over http", what, hsts)
	}
}

// With an https base URL every reply asks for https (HSTS); the social
// sign-in popup's routes carry no opener policy, which would cut the popup
// off from the page that opened it.
func TestHSTSOverHTTPS(t *testing.T) {
	e := newTestEnv(t, slogDiscard())
	srv := newTestServer(e, slogDiscard())
	srv.BaseURL = "https://sendlater.test"
	h := srv.Handler()
	for _, path := range []string{"/", "/api/plans", "/healthz", "/api/auth/oauth/google/start"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if got := rec.Header().Get("Strict-Transport-Security"); got != "max-age=31536000" {
			t.Errorf("%s: HSTS %q", path, got)
		}
		coop := rec.Header().Get("Cross-Origin-Opener-Policy")
		if oauth := strings.HasPrefix(path, "/api/auth/oauth/"); (coop == "") != oauth {
			t.Errorf("%s: Cross-Origin-Opener-Policy %q", path, coop)
		}
	}
}

// Every kind of reply carries the security headers.
func TestSecurityHeadersOnEveryReply(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.author("ann@example.com")
	auth := map[string]string{"Authorization": "Bearer " + ann.token, "Content-Type": "application/json"}
	for _, c := range []struct {
		name, method, path, body string
		header                   map[string]string
	}{
		{"success", "GET", "/api/messages", "", auth},
		{"created", "POST", "/api/messages", `{"title":"t","name":"n","recipient":"r@example.com","message":"m"}`, auth},
		{"validation", "POST", "/api/messages", `{}`, auth},
		{"unauthorized", "GET", "/api/messages", "", nil},
		{"not found", "GET", "/api/messages/nope", "", auth},
		{"unknown API path", "GET", "/api/nope", "", nil},
		{"method not allowed", "PUT", "/api/messages", "", auth},
		{"too large", "POST", "/api/contact", strings.Repeat(" ", web.MaxBodyBytes+1), map[string]string{"Content-Type": "application/json"}},
		{"cross-origin", "POST", "/api/contact", "{}", map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"SPA", "GET", "/dashboard", "", nil},
		{"health", "GET", "/healthz", "", nil},
	} {
		resp, _ := a.raw(c.method, c.path, c.header, c.body)
		assertSecurityHeaders(t, c.name, resp.Header)
	}

	// The stream too.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", a.srv.URL()+"/api/messages/stream?token="+url.QueryEscape(ann.token), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	assertSecurityHeaders(t, "stream", resp.Header)
}

// A whole session's log holds no password, token, action code, postpone
// code or message content: queries are not logged, bodies never.
func TestLogsHoldNoSecrets(t *testing.T) {
	a := mustIdentityAPI(t)
	c := browserClient(t)
	const body = "SECRET-BODY my bank PIN is 4711"
	const title = "SECRET-TITLE"
	const contact = "SECRET-CONTACT please call me"
	tok := a.signUp(c, "ann@example.com")
	tok2 := a.signIn(c, "ann@example.com", pw)
	a.fail(nil, http.StatusUnauthorized, core.EWrongCredentials, "POST", "/api/auth/signin", "",
		map[string]string{"email": "ann@example.com", "password": "SECRET-WRONG-PASSWORD"})
	var m messageReply
	a.ok(nil, http.StatusCreated, "POST", "/api/messages", tok2.IDToken,
		map[string]any{"title": title, "name": "SECRET-NAME", "recipient": "secret.recipient@example.com", "message": body}, &m)
	a.ok(nil, http.StatusOK, "PATCH", "/api/messages/"+m.ID, tok2.IDToken, map[string]any{"message": body + " v2"}, nil)
	a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, "POST", "/api/messages", tok2.IDToken,
		map[string]any{"title": title, "message": body})
	a.ok(nil, http.StatusOK, "POST", "/api/contact", "", map[string]string{"email": "cy@example.com", "message": contact}, nil)
	a.email(operatorEmail)
	s := openStream(t, a.srv.URL(), tok2.IDToken, true)
	s.list(time.Second)
	a.ok(c, http.StatusOK, "POST", "/api/auth/signout", tok2.IDToken, nil, nil)
	s.next(3 * testHeartbeat) // the error event
	s.ended(time.Second)

	stored, err := a.DB.FindMessageByID(context.Background(), m.ID)
	if err != nil {
		t.Fatal(err)
	}
	log := a.logs.String()
	if !strings.Contains(log, "/api/messages/stream") || !strings.Contains(log, `"path":"/api/contact"`) {
		t.Fatalf("the access log misses requests:\n%s", log)
	}
	for _, secret := range []string{
		pw, "SECRET-WRONG-PASSWORD", tok.IDToken, tok2.IDToken, stored.PostponeCode,
		"SECRET-BODY", title, "SECRET-NAME", "secret.recipient", "SECRET-CONTACT", "token=",
	} {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds %q", secret)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
	}
}

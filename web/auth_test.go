package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/mailer/smtptest"
	"github.com/sendlater/sendlater/web"
)

// The identity API over the real server on port 0, a temp bbolt store, the
// real email templates and SMTP transport, and a test SMTP server.

const identityBaseURL = "http://sendlater.test"

type identityAPI struct {
	*testenv.Env
	t    *testing.T
	srv  *web.Server
	logs *lockedBuffer // the server's log, as JSON lines
}

func mustIdentityAPI(t *testing.T) *identityAPI {
	t.Helper()
	logs := &lockedBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e := newTestEnv(t, log)
	s := newTestServer(e, log)
	if err := s.Open("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return &identityAPI{Env: e, t: t, srv: s, logs: logs}
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
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			a.t.Fatal(err)
		}
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, a.srv.URL()+path, r)
	if err != nil {
		a.t.Fatal(err)
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
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	var env envelope
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		a.t.Fatalf("%s %s: reply is no envelope: %v", method, path, err)
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
	for _, c := range resp.Cookies() {
		if c.Name == "sl_refresh" {
			return c
		}
	}
	t.Fatalf("no refresh cookie in %v", resp.Header["Set-Cookie"])
	return nil
}

func TestIdentityValidationAndFailures(t *testing.T) {
	a := mustIdentityAPI(t)
	a.signUp(nil, "taken@example.com")
	tests := []struct {
		name, method, path string
		body               any
		status             int
		code               string
		fields             map[string]string
	}{
		{"signup empty", "POST", "/api/auth/signup", map[string]string{}, 422, core.EValidation,
			map[string]string{"email": "Please enter your email", "password": "Please enter a password"}},
		{"signup bad email", "POST", "/api/auth/signup", map[string]string{"email": "ann@", "password": pw}, 422, core.EValidation,
			map[string]string{"email": "Please enter a valid email address"}},
		{"signup short password", "POST", "/api/auth/signup", map[string]string{"email": "ann@example.com", "password": "short"}, 422, core.EWeakPassword,
			map[string]string{"password": "The password must be at least 8 characters long."}},
		{"signup common password", "POST", "/api/auth/signup", map[string]string{"email": "ann@example.com", "password": "iloveyou"}, 422, core.EWeakPassword, nil},
		{"signup taken", "POST", "/api/auth/signup", map[string]string{"email": "Taken@example.com", "password": pw}, 409, core.EEmailInUse, nil},
		{"signup unknown field", "POST", "/api/auth/signup", map[string]string{"email": "ann@example.com", "password": pw, "admin": "1"}, 400, core.EInvalidJSON, nil},
		{"signup malformed", "POST", "/api/auth/signup", `{"email":`, 400, core.EInvalidJSON, nil},
		{"signup too large", "POST", "/api/auth/signup", `{"name":"` + strings.Repeat("x", 1<<20) + `"}`, 413, core.ETooLarge, nil},
		{"signin empty", "POST", "/api/auth/signin", map[string]string{}, 422, core.EValidation,
			map[string]string{"email": "Please enter your email", "password": "Please enter a password"}},
		{"signin wrong password", "POST", "/api/auth/signin", map[string]string{"email": "taken@example.com", "password": "wrong password"}, 401, core.EWrongCredentials, nil},
		{"signin unknown email", "POST", "/api/auth/signin", map[string]string{"email": "nobody@example.com", "password": pw}, 401, core.EWrongCredentials, nil},
		{"token without cookie", "POST", "/api/auth/token", nil, 401, core.EInvalidToken, nil},
		{"reset empty", "POST", "/api/auth/password-reset", map[string]string{}, 422, core.EValidation,
			map[string]string{"email": "Please enter your email"}},
		{"confirm unknown code", "POST", "/api/auth/password-reset/confirm", map[string]string{"oobCode": "nope", "password": pw}, 400, core.EInvalidActionCode, nil},
		{"confirm empty password", "POST", "/api/auth/password-reset/confirm", map[string]string{"oobCode": "nope"}, 422, core.EValidation,
			map[string]string{"password": "Please enter a password"}},
		{"check unknown code", "POST", "/api/auth/action/check", map[string]string{"oobCode": "nope"}, 400, core.EInvalidActionCode, nil},
		{"apply unknown code", "POST", "/api/auth/action/apply", map[string]string{"oobCode": ""}, 400, core.EInvalidActionCode, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, env := a.fail(nil, tt.status, tt.code, tt.method, tt.path, "", tt.body)
			for k, v := range tt.fields {
				if env.Fields[k] != v {
					t.Fatalf("fields %v, want %s: %q", env.Fields, k, v)
				}
			}
		})
	}
	// One message for an unknown email and a wrong password.
	_, wrong := a.call(nil, "POST", "/api/auth/signin", "", map[string]string{"email": "taken@example.com", "password": "wrong password"})
	_, unknown := a.call(nil, "POST", "/api/auth/signin", "", map[string]string{"email": "nobody@example.com", "password": pw})
	if wrong.Message != unknown.Message {
		t.Fatalf("%q and %q tell the cases apart", wrong.Message, unknown.Message)
	}
	a.noMoreEmail()
}

func TestIdentityEndpointsNeedABearer(t *testing.T) {
	a := mustIdentityAPI(t)
	tok := a.signUp(nil, "ann@example.com")
	for _, ep := range []struct{ method, path string }{
		{"POST", "/api/auth/signout"}, {"POST", "/api/auth/reauth"}, {"GET", "/api/me"}, {"PATCH", "/api/me"},
		{"DELETE", "/api/me"}, {"POST", "/api/me/password"}, {"POST", "/api/me/verify-email"},
		{"GET", "/api/me/export"}, {"GET", "/api/me/tokens"}, {"POST", "/api/me/tokens"}, {"DELETE", "/api/me/tokens/x"},
	} {
		for _, bearer := range []string{"", "garbage", tok.IDToken[:len(tok.IDToken)-3] + "AAA", core.AccessTokenPrefix + "nope"} {
			a.fail(nil, 401, core.EInvalidToken, ep.method, ep.path, bearer, map[string]string{})
		}
	}
}

func TestSignUpVerifyAndMe(t *testing.T) {
	a := mustIdentityAPI(t)
	c := browserClient(t)
	var tok tokensReply
	resp := a.ok(c, http.StatusCreated, "POST", "/api/auth/signup", "", map[string]string{
		"email": "ann@example.com", "password": pw, "name": "Ann", "timezone": "Europe/Paris",
	}, &tok)
	cookie := refreshCookie(t, resp)
	if !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/api/auth" || cookie.Secure {
		t.Fatalf("cookie %+v: want HttpOnly, SameSite=Strict, Path=/api/auth, not Secure over http", cookie)
	}
	if cookie.MaxAge < int(core.SessionIdleTTL.Seconds())-5 {
		t.Fatalf("cookie lasts %ds", cookie.MaxAge)
	}
	want := web.SessionUserJSON{
		UID: tok.User.UID, Email: "ann@example.com", Name: "Ann", Providers: []string{"password"},
		PlanID: core.PlanStarter, Timezone: "Europe/Paris",
	}
	if tok.IDToken == "" || tok.User.UID == "" || !sessionUserEqual(*tok.User, want) {
		t.Fatalf("reply %+v, want user %+v", tok, want)
	}
	if d := time.UnixMilli(tok.ExpiresAt).Sub(a.Clock.Now()); d < 59*time.Minute || d > time.Hour {
		t.Fatalf("ID token valid for %v", d)
	}

	var me web.SessionUserJSON
	a.ok(nil, 200, "GET", "/api/me", tok.IDToken, nil, &me)
	if !sessionUserEqual(me, want) {
		t.Fatalf("me %+v", me)
	}

	mail := a.email("ann@example.com")
	code := a.followLink(mail, core.ModeVerifyEmail)
	var info web.ActionInfoJSON
	a.ok(nil, 200, "POST", "/api/auth/action/check", "", map[string]string{"oobCode": code}, &info)
	if info != (web.ActionInfoJSON{Mode: "verifyEmail", Email: "ann@example.com"}) {
		t.Fatalf("check %+v", info)
	}
	a.ok(nil, 200, "POST", "/api/auth/action/apply", "", map[string]string{"oobCode": code}, &info)
	a.ok(nil, 200, "GET", "/api/me", tok.IDToken, nil, &me)
	if !me.EmailVerified {
		t.Fatal("email not verified after the link")
	}
	a.fail(nil, 400, core.EInvalidActionCode, "POST", "/api/auth/action/apply", "", map[string]string{"oobCode": code})

	// A new verification email on demand; none once verified.
	a.ok(nil, 200, "POST", "/api/me/verify-email", tok.IDToken, nil, nil)
	a.noMoreEmail()
}

func sessionUserEqual(a, b web.SessionUserJSON) bool {
	return a.UID == b.UID && a.Email == b.Email && a.EmailVerified == b.EmailVerified && a.Name == b.Name &&
		a.Picture == b.Picture && slices.Equal(a.Providers, b.Providers) && a.PlanID == b.PlanID &&
		a.PlanIsActive == b.PlanIsActive && a.Timezone == b.Timezone
}

func TestRefreshCookieRotatesAndReuseRevokes(t *testing.T) {
	a := mustIdentityAPI(t)
	c := browserClient(t)
	var first tokensReply
	resp := a.ok(c, http.StatusCreated, "POST", "/api/auth/signup", "", map[string]string{"email": "ann@example.com", "password": pw}, &first)
	old := refreshCookie(t, resp)

	var second tokensReply
	resp = a.ok(c, 200, "POST", "/api/auth/token", "", nil, &second)
	if refreshCookie(t, resp).Value == old.Value || second.IDToken == "" || second.User.Email != "ann@example.com" {
		t.Fatalf("refresh did not rotate: %+v", second)
	}
	a.ok(nil, 200, "GET", "/api/me", second.IDToken, nil, nil)

	// A thief replays the old cookie: the whole session ends.
	thief := browserClient(t)
	u, _ := url.Parse(a.srv.URL() + "/api/auth/token")
	thief.Jar.SetCookies(u, []*http.Cookie{{Name: old.Name, Value: old.Value, Path: "/api/auth"}})
	resp, _ = a.fail(thief, 401, core.EInvalidToken, "POST", "/api/auth/token", "", nil)
	if c := refreshCookie(t, resp); c.MaxAge >= 0 {
		t.Fatalf("the failed exchange kept the cookie: %+v", c)
	}
	a.fail(c, 401, core.EInvalidToken, "POST", "/api/auth/token", "", nil)
	a.fail(nil, 401, core.EInvalidToken, "GET", "/api/me", second.IDToken, nil)
	a.fail(nil, 401, core.EInvalidToken, "GET", "/api/me", first.IDToken, nil)
}

func TestSignOutRevokesAtOnce(t *testing.T) {
	a := mustIdentityAPI(t)
	c := browserClient(t)
	tok := a.signUp(c, "ann@example.com")
	other := a.signIn(nil, "ann@example.com", pw)
	resp := a.ok(c, 200, "POST", "/api/auth/signout", tok.IDToken, nil, nil)
	if refreshCookie(t, resp).MaxAge >= 0 {
		t.Fatal("sign-out kept the refresh cookie")
	}
	a.fail(nil, 401, core.EInvalidToken, "GET", "/api/me", tok.IDToken, nil)
	a.fail(c, 401, core.EInvalidToken, "POST", "/api/auth/token", "", nil)
	a.ok(nil, 200, "GET", "/api/me", other.IDToken, nil, nil)
	// The ID token expires after an hour.
	a.Clock.Add(time.Hour)
	a.fail(nil, 401, core.EInvalidToken, "GET", "/api/me", other.IDToken, nil)
}

func TestSignInRateLimitAnswersRetryAfter(t *testing.T) {
	a := mustIdentityAPI(t)
	a.signUp(nil, "ann@example.com")
	for range core.MaxAccountFailures {
		a.fail(nil, 401, core.EWrongCredentials, "POST", "/api/auth/signin", "", map[string]string{"email": "ann@example.com", "password": "wrong password"})
	}
	resp, _ := a.fail(nil, 429, core.ETooManyRequests, "POST", "/api/auth/signin", "", map[string]string{"email": "ann@example.com", "password": pw})
	if s, _ := strconv.Atoi(resp.Header.Get("Retry-After")); s < 890 || s > 900 {
		t.Fatalf("Retry-After %q, want about 900 seconds", resp.Header.Get("Retry-After"))
	}
	a.Clock.Add(core.FailureWindow)
	a.signIn(nil, "ann@example.com", pw)
}

func TestRecentLoginAndPasswordChange(t *testing.T) {
	a := mustIdentityAPI(t)
	c := browserClient(t)
	tok := a.signUp(c, "ann@example.com")
	other := a.signIn(nil, "ann@example.com", pw)
	var pat struct{ Token string }
	a.ok(nil, 201, "POST", "/api/me/tokens", tok.IDToken, map[string]string{"name": "laptop"}, &pat)

	a.Clock.Add(core.RecentLoginWindow + time.Second)
	newPW := map[string]string{"password": "a fresh unusual passphrase"}
	a.fail(nil, 401, core.ERequiresRecentLogin, "POST", "/api/me/password", tok.IDToken, newPW)
	_, env := a.fail(nil, 422, core.EValidation, "POST", "/api/auth/reauth", tok.IDToken, map[string]string{})
	if env.Fields["password"] != "Please enter your password" {
		t.Fatalf("fields %v", env.Fields)
	}
	a.fail(nil, 401, core.EWrongCredentials, "POST", "/api/auth/reauth", tok.IDToken, map[string]string{"password": "wrong password"})
	var re tokensReply
	resp := a.ok(c, 200, "POST", "/api/auth/reauth", tok.IDToken, map[string]string{"password": pw}, &re)
	if re.IDToken == "" || re.User != nil || len(resp.Cookies()) != 0 {
		t.Fatalf("reauth %+v, cookies %v", re, resp.Cookies())
	}
	a.fail(nil, 422, core.EWeakPassword, "POST", "/api/me/password", re.IDToken, map[string]string{"password": "abc123"})
	_, env = a.fail(nil, 422, core.EValidation, "POST", "/api/me/password", re.IDToken, map[string]string{})
	if env.Fields["password"] != "Please enter a password" {
		t.Fatalf("fields %v", env.Fields)
	}
	a.ok(nil, 200, "POST", "/api/me/password", re.IDToken, newPW, nil)

	a.ok(nil, 200, "GET", "/api/me", re.IDToken, nil, nil)
	a.ok(c, 200, "POST", "/api/auth/token", "", nil, nil) // this browser goes on
	a.fail(nil, 401, core.EInvalidToken, "GET", "/api/me", other.IDToken, nil)
	a.fail(nil, 401, core.EInvalidToken, "GET", "/api/me", pat.Token, nil)
	a.fail(nil, 401, core.EWrongCredentials, "POST", "/api/auth/signin", "", map[string]string{"email": "ann@example.com", "password": pw})
	a.signIn(nil, "ann@example.com", newPW["password"])
	a.noMoreEmail()
}

func TestPasswordResetByEmail(t *testing.T) {
	a := mustIdentityAPI(t)
	tok := a.signUp(nil, "ann@example.com")

	a.ok(nil, 200, "POST", "/api/auth/password-reset", "", map[string]string{"email": "nobody@example.com"}, nil)
	a.noMoreEmail()
	a.ok(nil, 200, "POST", "/api/auth/password-reset", "", map[string]string{"email": "ann@example.com"}, nil)
	mail := a.email("ann@example.com")
	if mail.Text == "" || mail.HTML == "" {
		t.Fatal("the reset email lacks a text or HTML part")
	}
	code := a.followLink(mail, core.ModeResetPassword)
	var info web.ActionInfoJSON
	a.ok(nil, 200, "POST", "/api/auth/action/check", "", map[string]string{"oobCode": code}, &info)
	if info.Mode != core.ModeResetPassword || info.Email != "ann@example.com" {
		t.Fatalf("check %+v", info)
	}
	a.fail(nil, 422, core.EWeakPassword, "POST", "/api/auth/password-reset/confirm", "", map[string]string{"oobCode": code, "password": "123456789"})
	a.ok(nil, 200, "POST", "/api/auth/password-reset/confirm", "", map[string]string{"oobCode": code, "password": "the new passphrase"}, nil)
	a.fail(nil, 401, core.EInvalidToken, "GET", "/api/me", tok.IDToken, nil)
	a.fail(nil, 400, core.EInvalidActionCode, "POST", "/api/auth/password-reset/confirm", "", map[string]string{"oobCode": code, "password": "another passphrase"})
	a.signIn(nil, "ann@example.com", "the new passphrase")

	// Expired after an hour.
	a.ok(nil, 200, "POST", "/api/auth/password-reset", "", map[string]string{"email": "ann@example.com"}, nil)
	code = a.followLink(a.email("ann@example.com"), core.ModeResetPassword)
	a.Clock.Add(core.ResetCodeTTL + time.Second)
	a.fail(nil, 400, core.EExpiredActionCode, "POST", "/api/auth/action/check", "", map[string]string{"oobCode": code})
	a.fail(nil, 400, core.EExpiredActionCode, "POST", "/api/auth/password-reset/confirm", "", map[string]string{"oobCode": code, "password": "another passphrase"})
}

func TestProfileAndEmailChangeRecovery(t *testing.T) {
	a := mustIdentityAPI(t)
	tok := a.signUp(nil, "ann@example.com")

	_, env := a.fail(nil, 422, core.EValidation, "PATCH", "/api/me", tok.IDToken, map[string]string{"name": "", "email": ""})
	if env.Fields["name"] != "Please enter your name" || env.Fields["email"] != "Please enter your email" {
		t.Fatalf("fields %v", env.Fields)
	}
	var me web.SessionUserJSON
	a.ok(nil, 200, "PATCH", "/api/me", tok.IDToken, map[string]string{
		"name": "Ann B", "picture": "https://example.com/a.png", "timezone": "Asia/Tokyo",
	}, &me)
	if me.Name != "Ann B" || me.Picture != "https://example.com/a.png" || me.Timezone != "Asia/Tokyo" {
		t.Fatalf("me %+v", me)
	}

	a.ok(nil, 200, "PATCH", "/api/me", tok.IDToken, map[string]string{"email": "new@example.com"}, &me)
	if me.Email != "new@example.com" || me.EmailVerified {
		t.Fatalf("me %+v", me)
	}
	verify := a.followLink(a.email("new@example.com"), core.ModeVerifyEmail)
	notice := a.email("ann@example.com")
	recover := a.followLink(notice, core.ModeRecoverEmail)
	a.ok(nil, 200, "POST", "/api/auth/action/apply", "", map[string]string{"oobCode": verify}, nil)

	var info web.ActionInfoJSON
	a.ok(nil, 200, "POST", "/api/auth/action/apply", "", map[string]string{"oobCode": recover}, &info)
	if info != (web.ActionInfoJSON{Mode: core.ModeRecoverEmail, Email: "ann@example.com"}) {
		t.Fatalf("recover %+v", info)
	}
	a.fail(nil, 401, core.EInvalidToken, "GET", "/api/me", tok.IDToken, nil)
	reset := a.followLink(a.email("ann@example.com"), core.ModeResetPassword)
	a.ok(nil, 200, "POST", "/api/auth/password-reset/confirm", "", map[string]string{"oobCode": reset, "password": "mine again, truly"}, nil)
	tok = a.signIn(nil, "ann@example.com", "mine again, truly")
	a.fail(nil, 400, core.EInvalidActionCode, "POST", "/api/auth/action/apply", "", map[string]string{"oobCode": recover})

	a.Clock.Add(core.RecentLoginWindow + time.Second)
	a.fail(nil, 401, core.ERequiresRecentLogin, "PATCH", "/api/me", tok.IDToken, map[string]string{"email": "other@example.com"})
	a.noMoreEmail()
}

func TestAccessTokensOverHTTP(t *testing.T) {
	a := mustIdentityAPI(t)
	tok := a.signUp(nil, "ann@example.com")
	bob := a.signUp(nil, "bob@example.com")

	_, env := a.fail(nil, 422, core.EValidation, "POST", "/api/me/tokens", tok.IDToken, map[string]string{"name": ""})
	if env.Fields["name"] == "" {
		t.Fatalf("fields %v", env.Fields)
	}
	var created struct {
		ID, Name, Token string
		CreatedAt       int64
	}
	a.ok(nil, 201, "POST", "/api/me/tokens", tok.IDToken, map[string]string{"name": "laptop"}, &created)
	if !strings.HasPrefix(created.Token, core.AccessTokenPrefix) || created.ID == "" || created.Name != "laptop" || created.CreatedAt == 0 {
		t.Fatalf("created %+v", created)
	}
	var me web.SessionUserJSON
	a.ok(nil, 200, "GET", "/api/me", created.Token, nil, &me)
	if me.Email != "ann@example.com" {
		t.Fatalf("the token acts for %s", me.Email)
	}
	// Tokens are never a recent login.
	a.fail(nil, 401, core.ERequiresRecentLogin, "POST", "/api/me/password", created.Token, map[string]string{"password": "a fresh unusual passphrase"})
	a.fail(nil, 401, core.ERequiresRecentLogin, "DELETE", "/api/me", created.Token, nil)
	a.fail(nil, 401, core.ERequiresRecentLogin, "POST", "/api/me/tokens", created.Token, map[string]string{"name": "more"})

	resp, env := a.call(nil, "GET", "/api/me/tokens", tok.IDToken, nil)
	if resp.StatusCode != 200 || strings.Contains(string(env.Data), created.Token) || strings.Contains(string(env.Data), "hash") {
		t.Fatalf("list %d %s", resp.StatusCode, env.Data)
	}
	var list []web.AccessTokenJSON
	json.Unmarshal(env.Data, &list)
	if len(list) != 1 || list[0].ID != created.ID || list[0].LastUsedAt == 0 {
		t.Fatalf("list %+v", list)
	}
	a.fail(nil, 404, core.ETokenNotFound, "DELETE", "/api/me/tokens/"+created.ID, bob.IDToken, nil)
	a.ok(nil, 200, "DELETE", "/api/me/tokens/"+created.ID, tok.IDToken, nil, nil)
	a.fail(nil, 401, core.EInvalidToken, "GET", "/api/me", created.Token, nil)
	a.fail(nil, 404, core.ETokenNotFound, "DELETE", "/api/me/tokens/"+created.ID, tok.IDToken, nil)
}

func TestDeleteAccountAndExportOverHTTP(t *testing.T) {
	a := mustIdentityAPI(t)
	c := browserClient(t)
	tok := a.signUp(c, "ann@example.com")
	var me web.SessionUserJSON
	a.ok(nil, 200, "GET", "/api/me", tok.IDToken, nil, &me)
	m, err := a.Messages.Create(a.As(me.UID), core.MessageInput{
		Title: "Later", Name: "Bob", Recipient: "bob@example.com", Body: "the letter itself",
	})
	if err != nil {
		t.Fatal(err)
	}

	var x web.AccountExportJSON
	resp, env := a.call(nil, "GET", "/api/me/export", tok.IDToken, nil)
	if resp.StatusCode != 200 || json.Unmarshal(env.Data, &x) != nil {
		t.Fatalf("export %d %+v", resp.StatusCode, env)
	}
	if x.User.Email != "ann@example.com" || len(x.Messages) != 1 || x.Messages[0].Message != "the letter itself" {
		t.Fatalf("export %+v", x)
	}
	if raw := string(env.Data); strings.Contains(raw, "argon2") || strings.Contains(raw, m.PostponeCode) {
		t.Fatalf("the export holds a secret: %s", raw)
	}

	a.Clock.Add(core.RecentLoginWindow + time.Second)
	a.fail(nil, 401, core.ERequiresRecentLogin, "DELETE", "/api/me", tok.IDToken, nil)
	a.ok(nil, 200, "POST", "/api/auth/reauth", tok.IDToken, map[string]string{"password": pw}, nil)
	resp = a.ok(c, 200, "DELETE", "/api/me", tok.IDToken, nil, nil)
	if refreshCookie(t, resp).MaxAge >= 0 {
		t.Fatal("deletion kept the refresh cookie")
	}
	a.fail(nil, 401, core.EInvalidToken, "GET", "/api/me", tok.IDToken, nil)
	if _, err := a.DB.FindMessageByID(context.Background(), m.ID); core.ErrorCode(err) != core.EMessageNotFound {
		t.Fatalf("the message survived: %v", err)
	}
	a.fail(nil, 401, core.EWrongCredentials, "POST", "/api/auth/signin", "", map[string]string{"email": "ann@example.com", "password": pw})
}

// TestSecureRefreshCookie checks the cookie when the base URL is https: the
// __Host- prefix, Secure and Path=/.
func TestSecureRefreshCookie(t *testing.T) {
	a := mustIdentityAPI(t)
	a.srv.BaseURL = "https://sendlater.test"
	h := a.srv.Handler()
	req := httptest.NewRequest("POST", "/api/auth/signup", strings.NewReader(`{"email":"ann@example.com","password":"`+pw+`"}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusCreated {
		t.Fatalf("signup %d %s", rec.Code, rec.Body)
	}
	cookies := rec.Result().Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies %v", cookies)
	}
	c := cookies[0]
	if c.Name != "__Host-sl_refresh" || !c.Secure || !c.HttpOnly || c.Path != "/" || c.Domain != "" || c.SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie %+v", c)
	}

	req = httptest.NewRequest("POST", "/api/auth/token", nil)
	req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || len(rec.Result().Cookies()) != 1 || rec.Result().Cookies()[0].Name != "__Host-sl_refresh" {
		t.Fatalf("refresh %d %s %v", rec.Code, rec.Body, rec.Result().Cookies())
	}
}

package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/web"
)

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
		{"POST", "/api/me/reminder-address/confirm"},
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

	// A thief replays the old cookie after the retry grace: the whole
	// session ends.
	a.Clock.Add(core.RefreshGrace + time.Second)
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

// A stranger's 100 wrong passwords, from one address or from a hundred,
// leave the owner able to sign in from a new address, and from the
// stranger's (a NAT they share) with a proof of work.
func TestStrangersCannotLockTheOwnerOut(t *testing.T) {
	a := mustIdentityAPI(t)
	a.signUp(nil, "ann@example.com")
	wrong := map[string]string{"email": "ann@example.com", "password": "wrong password"}
	right := map[string]string{"email": "ann@example.com", "password": pw}

	stranger := clientFrom("203.0.113.9")
	for i := range 100 {
		resp, env := a.call(stranger, "POST", "/api/auth/signin", "", wrong)
		switch {
		case i < core.LimitSignInAccountClient.Max && env.Code == core.EWrongCredentials:
		case i >= core.LimitSignInAccountClient.Max && resp.StatusCode == 429 && env.Code == core.EProofRequired:
		default:
			t.Fatalf("guess %d: %d %+v", i, resp.StatusCode, env)
		}
	}
	a.signInFrom(clientFrom("192.0.2.10"), right, nil)

	// A hundred strangers: once the account has had 10 failures, it asks
	// every client for a proof of work, which the owner's browser solves.
	for i := range 100 {
		resp, env := a.call(clientFrom(fmt.Sprintf("198.18.0.%d", i+1)), "POST", "/api/auth/signin", "", wrong)
		if env.Code != core.EWrongCredentials && (resp.StatusCode != 429 || env.Code != core.EProofRequired) {
			t.Fatalf("stranger %d: %d %+v", i, resp.StatusCode, env)
		}
	}
	owner := clientFrom("192.0.2.20")
	a.fail(owner, 429, core.EProofRequired, "POST", "/api/auth/signin", "", right)
	var ch struct {
		Challenge  string `json:"challenge"`
		Difficulty int    `json:"difficulty"`
		ExpiresAt  int64  `json:"expiresAt"`
	}
	a.ok(owner, 200, "POST", "/api/auth/challenge", "", map[string]string{"email": "ann@example.com"}, &ch)
	if ch.Difficulty != core.ProofDifficulty || ch.ExpiresAt <= a.Clock.Now().UnixMilli() {
		t.Fatalf("challenge %+v", ch)
	}
	nonce, err := core.SolveProof(context.Background(), ch.Challenge, ch.Difficulty)
	if err != nil {
		t.Fatal(err)
	}
	proof := map[string]string{"challenge": ch.Challenge, "nonce": nonce}
	a.signInFrom(owner, right, proof)
	// From the stranger's address, too (on main: a wait of 15 minutes).
	a.fail(stranger, 429, core.EProofRequired, "POST", "/api/auth/signin", "", right)
	a.ok(stranger, 200, "POST", "/api/auth/challenge", "", map[string]string{"email": "ann@example.com"}, &ch)
	if nonce, err = core.SolveProof(context.Background(), ch.Challenge, ch.Difficulty); err != nil {
		t.Fatal(err)
	}
	a.signInFrom(stranger, right, map[string]string{"challenge": ch.Challenge, "nonce": nonce})
	// The owner can always reset by email too.
	a.ok(clientFrom("192.0.2.30"), 200, "POST", "/api/auth/password-reset", "", map[string]string{"email": "ann@example.com"}, nil)
	a.followLink(a.email("ann@example.com"), core.ModeResetPassword)
}

// The Go client (web.SignIn, which `sendlater login` uses) solves the
// puzzle of an account under attack as the web app does: its owner signs
// in; a wrong password is still refused, after the puzzle.
func TestSignInClientSolvesTheProofOfWork(t *testing.T) {
	a := mustIdentityAPI(t)
	a.signUp(nil, "ann@example.com")
	wrong := map[string]string{"email": "ann@example.com", "password": "wrong password"}
	for i := range core.LimitSignInAccount.Max {
		a.call(clientFrom(fmt.Sprintf("198.18.1.%d", i+1)), "POST", "/api/auth/signin", "", wrong)
	}
	a.fail(nil, 429, core.EProofRequired, "POST", "/api/auth/signin", "", map[string]string{"email": "ann@example.com", "password": pw})

	ctx := context.Background()
	session, err := web.SignIn(ctx, a.srv.URL(), "ann@example.com", pw, 10*time.Second)
	if err != nil {
		t.Fatalf("sign-in under attack: %v", err)
	}
	me, err := session.Me(ctx)
	if err != nil || me.Email != "ann@example.com" {
		t.Fatalf("me: %+v, %v", me, err)
	}
	if _, err := web.SignIn(ctx, a.srv.URL(), "ann@example.com", "wrong password", 10*time.Second); core.ErrorCode(err) != core.EWrongCredentials {
		t.Fatalf("wrong password under attack: %v, want %s", err, core.EWrongCredentials)
	}
}

// signInFrom signs in with body (and proof, when given) from c.
func (a *identityAPI) signInFrom(c *http.Client, body, proof map[string]string) {
	a.t.Helper()
	req := map[string]any{"email": body["email"], "password": body["password"]}
	if proof != nil {
		req["proof"] = proof
	}
	var tok tokensReply
	a.ok(c, 200, "POST", "/api/auth/signin", "", req, &tok)
	if tok.IDToken == "" {
		a.t.Fatal("no ID token")
	}
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
	// The refresh cookie and its readable session hint (web/session_hint.go).
	cookies := rec.Result().Cookies()
	if len(cookies) != 2 {
		t.Fatalf("cookies %v", cookies)
	}
	c, hint := cookies[0], cookies[1]
	if c.Name != "__Host-sl_refresh" || !c.Secure || !c.HttpOnly || c.Path != "/" || c.Domain != "" || c.SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie %+v", c)
	}
	if hint.Name != "__Host-sl_session" || hint.Value != "1" || !hint.Secure || hint.HttpOnly || hint.Path != "/" || hint.MaxAge != c.MaxAge {
		t.Fatalf("session hint %+v", hint)
	}

	req = httptest.NewRequest("POST", "/api/auth/token", nil)
	req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || len(rec.Result().Cookies()) != 2 || rec.Result().Cookies()[0].Name != "__Host-sl_refresh" {
		t.Fatalf("refresh %d %s %v", rec.Code, rec.Body, rec.Result().Cookies())
	}
}

// A refresh retried with the same cookie (a lost reply, two tabs) within
// the grace gets the same pair; later, the old cookie ends the session.
func TestRefreshIsSafeToRetry(t *testing.T) {
	a := mustIdentityAPI(t)
	resp := a.ok(nil, http.StatusCreated, "POST", "/api/auth/signup", "", map[string]string{"email": "ann@example.com", "password": pw}, nil)
	old := refreshCookie(t, resp)
	refresh := func() (*http.Response, envelope) {
		req, _ := http.NewRequest("POST", a.srv.URL()+"/api/auth/token", nil)
		req.AddCookie(&http.Cookie{Name: old.Name, Value: old.Value})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var env envelope
		json.NewDecoder(resp.Body).Decode(&env)
		return resp, env
	}
	r1, e1 := refresh()
	r2, e2 := refresh()
	if r1.StatusCode != 200 || r2.StatusCode != 200 {
		t.Fatalf("refreshes: %d %+v, %d %+v", r1.StatusCode, e1, r2.StatusCode, e2)
	}
	if refreshCookie(t, r1).Value != refreshCookie(t, r2).Value || string(e1.Data) != string(e2.Data) {
		t.Fatal("the retry got another pair")
	}
	var tok tokensReply
	json.Unmarshal(e1.Data, &tok)
	a.ok(nil, 200, "GET", "/api/me", tok.IDToken, nil, nil)

	a.Clock.Add(core.RefreshGrace + time.Second)
	if r3, e3 := refresh(); r3.StatusCode != 401 || e3.Code != core.EInvalidToken || refreshCookie(t, r3).MaxAge >= 0 {
		t.Fatalf("the old cookie after the grace: %d %+v", r3.StatusCode, e3)
	}
	a.fail(nil, 401, core.EInvalidToken, "GET", "/api/me", tok.IDToken, nil)
}

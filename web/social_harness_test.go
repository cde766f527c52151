package web_test

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/oauth"
	"github.com/sendlater/sendlater/oauth/oauthtest"
	"github.com/sendlater/sendlater/web"
)

// The social sign-in tests run the real server with the four providers
// configured against the in-process OAuth 2.0 / OpenID Connect peer. A
// browser is a cookie jar that reaches the server at its base URL
// (http://sendlater.test) and follows redirects through the provider, as a
// popup window does; the popup's last page hands over its result.

type socialAPI struct {
	*identityAPI
	peer *oauthtest.Provider
}

func mustSocialAPI(t *testing.T) *socialAPI {
	t.Helper()
	peer := oauthtest.Start(t)
	a := startIdentityAPI(t, func(e *testenv.Env, s *web.Server, log *slog.Logger) {
		flow, err := oauth.NewFlow(core.DeriveKey(testenv.Key, core.PurposeOAuthState), e.Clock, peer.Providers(t, identityBaseURL)...)
		if err != nil {
			t.Fatal(err)
		}
		flow.Logger = log
		s.SocialFlow = flow
	})
	return &socialAPI{identityAPI: a, peer: peer}
}

// browser is one browser: its cookies, and the callbacks the provider sent
// it to.
type browser struct {
	*http.Client
	t         *testing.T
	callbacks []string
}

// browser returns a new browser of the server.
func (a *socialAPI) browser() *browser {
	jar, _ := cookiejar.New(nil)
	server := a.srv.Addr().String()
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == "sendlater.test:80" {
			addr = server
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	b := &browser{t: a.t}
	b.Client = &http.Client{
		Jar: jar, Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: dial},
		CheckRedirect: func(r *http.Request, via []*http.Request) error {
			if strings.HasSuffix(r.URL.Path, "/callback") {
				b.callbacks = append(b.callbacks, r.URL.String())
			}
			return nil
		},
	}
	return b
}

// stopAtCallback makes the browser stop before the provider's redirect to
// the callback, leaving it in the reply's Location.
func (b *browser) stopAtCallback() {
	b.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if strings.HasSuffix(r.URL.Path, "/callback") {
			return http.ErrUseLastResponse
		}
		return nil
	}
}

// api calls the API at its base URL with the browser's cookies.
func (b *browser) api(method, path, bearer string, body any) (*http.Response, envelope) {
	b.t.Helper()
	return callURL(b.t, b.Client, method, identityBaseURL+path, bearer, body)
}

var popupResult = regexp.MustCompile(`<script id="oauth-result" type="application/json">([^<]*)</script>`)

// popup opens u (a start address) as the popup does and returns what its
// last page hands to the opener.
func (b *browser) popup(u string) web.PopupResultJSON {
	b.t.Helper()
	if strings.HasPrefix(u, "/") {
		u = identityBaseURL + u
	}
	resp, err := b.Get(u)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	m := popupResult.FindSubmatch(page)
	if m == nil || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		b.t.Fatalf("GET %s: %d, no popup page: %s", u, resp.StatusCode, page)
	}
	var res web.PopupResultJSON
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &res); err != nil {
		b.t.Fatalf("popup result %s: %v", m[1], err)
	}
	return res
}

// social runs the popup sign-in with provider as who.
func (a *socialAPI) social(b *browser, provider string, who *oauthtest.Person) web.PopupResultJSON {
	a.t.Helper()
	a.peer.Next(who)
	return b.popup("/api/auth/oauth/" + provider + "/start")
}

// session is the browser's session after a sign-in: its refresh cookie
// exchanged for an ID token and the session user.
func (b *browser) session() tokensReply {
	b.t.Helper()
	resp, env := b.api("POST", "/api/auth/token", "", nil)
	var tok tokensReply
	if resp.StatusCode != http.StatusOK || json.Unmarshal(env.Data, &tok) != nil || tok.User == nil {
		b.t.Fatalf("the browser has no session: %d %+v", resp.StatusCode, env)
	}
	return tok
}

// startFor starts linking or signing in again with provider for the session
// of bearer, as who, and returns the popup's result.
func (a *socialAPI) startFor(b *browser, path, bearer string, who *oauthtest.Person) web.PopupResultJSON {
	a.t.Helper()
	resp, env := b.api("POST", path, bearer, nil)
	var out web.URLJSON
	if resp.StatusCode != http.StatusOK || json.Unmarshal(env.Data, &out) != nil || out.URL == "" {
		a.t.Fatalf("POST %s: %d %+v", path, resp.StatusCode, env)
	}
	a.peer.Next(who)
	return b.popup(out.URL)
}

func wantPopup(t *testing.T, what string, got web.PopupResultJSON, code string) {
	t.Helper()
	want := "success"
	if code != "" {
		want = "error"
	}
	if got.Status != want || got.Code != code || got.Message == "" {
		t.Fatalf("%s: %+v, want %s %s", what, got, want, code)
	}
}

// user reads a user from the store.
func (a *socialAPI) user(id string) *core.User {
	a.t.Helper()
	u, err := a.DB.FindUserByID(context.Background(), id)
	if err != nil {
		a.t.Fatal(err)
	}
	return u
}

// verify uses the verification link of the next email to to.
func (a *socialAPI) verify(to string) {
	a.t.Helper()
	code := a.followLink(a.email(to), core.ModeVerifyEmail)
	a.ok(nil, http.StatusOK, "POST", "/api/auth/action/apply", "", map[string]string{"oobCode": code}, nil)
}

// cookie returns the browser's cookie name for path, or nil.
func (b *browser) cookie(path, name string) *http.Cookie {
	u, _ := url.Parse(identityBaseURL + path)
	for _, c := range b.Jar.Cookies(u) {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func unmarshal(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
}

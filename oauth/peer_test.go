package oauth_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/oauth2-proxy/mockoidc"
	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/oauth"
)

// The peer is a real OAuth 2.0 / OpenID Connect provider in-process
// (mockoidc: authorize, token with PKCE, userinfo, JWKS), configured as each
// of the four providers. Its authorize endpoint takes each provider's scopes,
// and an API server answers Facebook's, X's and GitHub's profile endpoints in
// their own shapes from the same user, through mockoidc's userinfo with the
// access token the app was given.

// person is a provider account.
type person struct {
	Subject, Email, Name, Picture string
	Verified                      bool
}

func (p *person) ID() string { return p.Subject }

func (p *person) info() map[string]any {
	return map[string]any{"sub": p.Subject, "email": p.Email, "email_verified": p.Verified, "name": p.Name, "picture": p.Picture}
}

func (p *person) Userinfo([]string) ([]byte, error) { return json.Marshal(p.info()) }

type claims struct {
	*mockoidc.IDTokenClaims
	Email         string `json:"email,omitempty"`
	EmailVerified bool   `json:"email_verified"`
	Name          string `json:"name,omitempty"`
	Picture       string `json:"picture,omitempty"`
}

func (p *person) Claims(_ []string, base *mockoidc.IDTokenClaims) (jwt.Claims, error) {
	return &claims{IDTokenClaims: base, Email: p.Email, EmailVerified: p.Verified, Name: p.Name, Picture: p.Picture}, nil
}

type provider struct {
	oidc *mockoidc.MockOIDC
	api  *httptest.Server

	mu        sync.Mutex
	deny      string // the next authorize answers error=deny instead of asking
	failToken bool   // the token endpoint answers 500
}

func startProvider(t *testing.T) *provider {
	t.Helper()
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &provider{oidc: m}
	m.AddMiddleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p.mu.Lock()
			deny, failToken := p.deny, p.failToken
			if r.URL.Path == mockoidc.AuthorizationEndpoint {
				p.deny = ""
			}
			p.mu.Unlock()
			if r.URL.Path == mockoidc.TokenEndpoint && failToken {
				http.Error(w, `{"error":"server_error","error_description":"down for the test"}`, http.StatusInternalServerError)
				return
			}
			if r.URL.Path == mockoidc.AuthorizationEndpoint {
				q := r.URL.Query()
				if deny != "" {
					back, _ := url.Parse(q.Get("redirect_uri"))
					back.RawQuery = url.Values{"error": {deny}, "state": {q.Get("state")}}.Encode()
					http.Redirect(w, r, back.String(), http.StatusFound)
					return
				}
				// Each provider's scopes ask for what OpenID Connect's do.
				q.Set("scope", "openid email profile")
				r.URL.RawQuery = q.Encode()
			}
			next.ServeHTTP(w, r)
		})
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ln, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown() })
	p.api = httptest.NewServer(http.HandlerFunc(p.serveAPI))
	t.Cleanup(p.api.Close)
	return p
}

// serveAPI answers the profile endpoints of Facebook, X and GitHub.
func (p *provider) serveAPI(w http.ResponseWriter, r *http.Request) {
	req, _ := http.NewRequest("GET", p.oidc.UserinfoEndpoint(), nil)
	req.Header.Set("Authorization", r.Header.Get("Authorization"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
		return
	}
	var u struct {
		Sub, Email, Name, Picture string
		EmailVerified             bool `json:"email_verified"`
	}
	json.NewDecoder(resp.Body).Decode(&u)
	var out any
	switch r.URL.Path {
	case "/facebook/me":
		out = map[string]any{"id": u.Sub, "name": u.Name, "email": u.Email, "picture": map[string]any{"data": map[string]any{"url": u.Picture}}}
	case "/x/users/me":
		out = map[string]any{"data": map[string]any{"id": u.Sub, "name": u.Name, "username": "x_" + u.Sub, "profile_image_url": u.Picture}}
	case "/github/user":
		out = map[string]any{"id": json.Number(u.Sub), "login": "gh-" + u.Sub, "name": u.Name, "avatar_url": u.Picture, "email": nil}
	case "/github/user/emails":
		out = []map[string]any{
			{"email": "old-" + u.Email, "primary": false, "verified": u.EmailVerified},
			{"email": u.Email, "primary": true, "verified": u.EmailVerified},
		}
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// config configures provider id against the peer.
func (p *provider) config(id string) oauth.Config {
	api := map[string]string{core.ProviderFacebook: "/facebook", core.ProviderTwitter: "/x", core.ProviderGitHub: "/github"}
	return oauth.Config{
		ClientID: p.oidc.ClientID, ClientSecret: p.oidc.ClientSecret,
		AuthURL: p.oidc.AuthorizationEndpoint(), TokenURL: p.oidc.TokenEndpoint(),
		APIURL: p.api.URL + api[id], Issuer: p.oidc.Issuer(), JWKSURL: p.oidc.JWKSEndpoint(),
	}
}

// env is the app side: the flow and core.SocialAuth of the test environment
// (bbolt, test SMTP server), behind a small HTTP front that does what the
// web layer's start and callback do.
type env struct {
	*testenv.Env
	peer *provider
	flow *oauth.Flow
	app  *httptest.Server
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{Env: testenv.New(t, testenv.Config{}), peer: startProvider(t)}
	e.app = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.app.Close)
	e.flow = &oauth.Flow{
		Providers: map[string]*oauth.Provider{}, Key: core.DeriveKey(testenv.Key, core.PurposeOAuthState),
		Clock: e.Clock, Logger: slog.New(slog.DiscardHandler),
	}
	for _, id := range core.SocialProviders {
		p, err := oauth.NewProvider(id, e.peer.config(id), e.app.URL+"/api/auth/oauth/"+id+"/callback", nil)
		if err != nil {
			t.Fatal(err)
		}
		e.flow.Providers[id] = p
	}
	return e
}

// outcome is what the callback page would hand to the opener window.
type outcome struct {
	UID   string `json:"uid"`
	Code  string `json:"code"`
	Error string `json:"error"`
}

// serve is the test's front: start redirects to the provider (linking when
// the request names a session), callback signs in or links.
func (e *env) serve(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/api/auth/oauth/"), "/")
	if len(parts) != 2 {
		http.NotFound(w, r)
		return
	}
	provider := parts[0]
	switch parts[1] {
	case "start":
		intent := oauth.Intent{LinkUserID: r.URL.Query().Get("link_uid"), LinkSessionID: r.URL.Query().Get("link_sid")}
		to, err := e.flow.Start(w, provider, intent)
		if err != nil {
			json.NewEncoder(w).Encode(outcome{Code: core.ErrorCode(err), Error: core.ErrorMessage(err)})
			return
		}
		http.Redirect(w, r, to, http.StatusFound)
	case "callback":
		var out outcome
		res, err := e.flow.Callback(r.Context(), w, r, provider)
		if err == nil && res.Intent.LinkUserID != "" {
			ctx := core.WithIdentity(r.Context(), &core.Identity{UserID: res.Intent.LinkUserID, SessionID: res.Intent.LinkSessionID})
			var u *core.User
			if u, err = e.Social.Link(ctx, res.Profile); err == nil {
				out.UID = u.ID
			}
		} else if err == nil {
			var tok *core.Tokens
			if tok, err = e.Social.SignIn(r.Context(), res.Profile, core.Client{Address: "192.0.2.1"}); err == nil {
				out.UID = tok.User.ID
			}
		}
		if err != nil {
			out.Code, out.Error = core.ErrorCode(err), core.ErrorMessage(err)
		}
		json.NewEncoder(w).Encode(out)
	}
}

// browser is a popup window: it keeps cookies and follows redirects.
type browser struct {
	*http.Client
	callbacks []string // callback URLs the provider sent it to
}

func newBrowser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	b := &browser{}
	b.Client = &http.Client{Jar: jar, CheckRedirect: func(r *http.Request, via []*http.Request) error {
		if strings.HasSuffix(r.URL.Path, "/callback") {
			b.callbacks = append(b.callbacks, r.URL.String())
		}
		return nil
	}}
	return b
}

func (b *browser) get(t *testing.T, u string) outcome {
	t.Helper()
	resp, err := b.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out outcome
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("GET %s: %d, %v", u, resp.StatusCode, err)
	}
	return out
}

// signIn runs the whole popup flow with provider as the person.
func (e *env) signIn(t *testing.T, b *browser, provider string, who *person, query string) outcome {
	t.Helper()
	e.peer.oidc.QueueUser(who)
	return b.get(t, e.app.URL+"/api/auth/oauth/"+provider+"/start"+query)
}

func (e *env) user(t *testing.T, id string) *core.User {
	t.Helper()
	u, err := e.DB.FindUserByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// verify follows the verification link of the next email to to.
func (e *env) verify(t *testing.T, to string) {
	t.Helper()
	if _, err := e.Auth.ApplyActionCode(context.Background(), e.code(t, to)); err != nil {
		t.Fatal(err)
	}
}

// code is the action code in the next email to to.
func (e *env) code(t *testing.T, to string) string {
	t.Helper()
	p, _ := e.Next(t, to)
	link := p.Link(testenv.DefaultBaseURL + "/firebase-action?")
	u, err := url.Parse(link)
	if err != nil || u.Query().Get("oobCode") == "" {
		t.Fatalf("action link %q", link)
	}
	return u.Query().Get("oobCode")
}

func wantCode(t *testing.T, what string, got outcome, code string) {
	t.Helper()
	if got.Code != code {
		t.Fatalf("%s: %+v, want code %s", what, got, code)
	}
}

// Package oauthtest is the social providers' peer of the tests: a real
// OAuth 2.0 / OpenID Connect provider in-process (mockoidc: authorize, token
// with PKCE, userinfo, JWKS) on 127.0.0.1, configured as each of the four
// providers. Its authorize endpoint takes each provider's scopes, and an API
// server answers Facebook's, X's and GitHub's profile endpoints in their own
// shapes from the same person, through mockoidc's userinfo with the access
// token the app was given. Authorize asks nothing: it signs the next person
// in (Next) at once, or answers an error (Deny).
package oauthtest

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/oauth2-proxy/mockoidc"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/oauth"
)

// Person is an account at the provider; GitHub's subjects are numbers.
type Person struct {
	Subject, Email, Name, Picture string
	Verified                      bool // the provider vouches for Email
}

// NewPerson is Ada Lovelace with her picture, as subject at the provider.
func NewPerson(subject, email string, verified bool) *Person {
	return &Person{Subject: subject, Email: email, Name: "Ada Lovelace", Picture: "https://pictures.example/ada.png", Verified: verified}
}

func (p *Person) ID() string { return p.Subject }

func (p *Person) Userinfo([]string) ([]byte, error) {
	return json.Marshal(map[string]any{"sub": p.Subject, "email": p.Email, "email_verified": p.Verified, "name": p.Name, "picture": p.Picture})
}

type claims struct {
	*mockoidc.IDTokenClaims
	Email         string `json:"email,omitempty"`
	EmailVerified bool   `json:"email_verified"`
	Name          string `json:"name,omitempty"`
	Picture       string `json:"picture,omitempty"`
}

func (p *Person) Claims(_ []string, base *mockoidc.IDTokenClaims) (jwt.Claims, error) {
	return &claims{IDTokenClaims: base, Email: p.Email, EmailVerified: p.Verified, Name: p.Name, Picture: p.Picture}, nil
}

// Provider is the running peer.
type Provider struct {
	oidc *mockoidc.MockOIDC
	api  *httptest.Server

	mu        sync.Mutex
	deny      string // the next authorize answers error=deny
	failToken bool   // the token endpoint answers 500
}

// Start runs the peer until the test ends.
func Start(tb testing.TB) *Provider {
	tb.Helper()
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		tb.Fatal(err)
	}
	p := &Provider{oidc: m}
	m.AddMiddleware(p.middleware)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	if err := m.Start(ln, nil); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { m.Shutdown() })
	p.api = httptest.NewServer(http.HandlerFunc(p.serveAPI))
	tb.Cleanup(p.api.Close)
	return p
}

// Next makes who the person of the next sign-in.
func (p *Provider) Next(who *Person) { p.oidc.QueueUser(who) }

// Deny makes the next authorize send the browser back with error=code
// (access_denied: the person declined) instead of signing in.
func (p *Provider) Deny(code string) {
	p.mu.Lock()
	p.deny = code
	p.mu.Unlock()
}

// FailToken makes the token endpoint fail (or work again).
func (p *Provider) FailToken(fail bool) {
	p.mu.Lock()
	p.failToken = fail
	p.mu.Unlock()
}

func (p *Provider) middleware(next http.Handler) http.Handler {
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
}

// serveAPI answers the profile endpoints of Facebook, X and GitHub.
func (p *Provider) serveAPI(w http.ResponseWriter, r *http.Request) {
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

// Config is provider id (core.ProviderGoogle ...) registered at the peer:
// its client and its endpoints.
func (p *Provider) Config(id string) oauth.Config {
	api := map[string]string{core.ProviderFacebook: "/facebook", core.ProviderTwitter: "/x", core.ProviderGitHub: "/github"}
	return oauth.Config{
		ClientID: p.oidc.ClientID, ClientSecret: p.oidc.ClientSecret,
		AuthURL: p.oidc.AuthorizationEndpoint(), TokenURL: p.oidc.TokenEndpoint(),
		APIURL: p.api.URL + api[id], Issuer: p.oidc.Issuer(), JWKSURL: p.oidc.JWKSEndpoint(),
	}
}

// Providers are the four providers against the peer, coming back to
// baseURL's callbacks.
func (p *Provider) Providers(tb testing.TB, baseURL string) []*oauth.Provider {
	tb.Helper()
	var out []*oauth.Provider
	for _, id := range core.SocialProviders {
		op, err := oauth.NewProvider(id, p.Config(id), baseURL+"/api/auth/oauth/"+id+"/callback", nil)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, op)
	}
	return out
}

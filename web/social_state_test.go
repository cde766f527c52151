package web_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/oauth/oauthtest"
)

// startStopped starts a sign-in with provider in b and returns the
// provider's callback address, which b has not followed.
func (a *socialAPI) startStopped(b *browser, provider string, who *oauthtest.Person) *url.URL {
	a.t.Helper()
	b.stopAtCallback()
	a.peer.Next(who)
	resp, err := b.Get(identityBaseURL + "/api/auth/oauth/" + provider + "/start")
	if err != nil {
		a.t.Fatal(err)
	}
	resp.Body.Close()
	b.CheckRedirect = nil
	cb, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || !strings.HasSuffix(cb.Path, "/callback") {
		a.t.Fatalf("the provider sent the browser to %q", resp.Header.Get("Location"))
	}
	return cb
}

func TestSocialForgedAndReplayedState(t *testing.T) {
	for _, provider := range core.SocialProviders {
		t.Run(provider, func(t *testing.T) {
			a := mustSocialAPI(t)
			ada := oauthtest.NewPerson("1001", "ada@example.com", true)
			callback := "/api/auth/oauth/" + provider + "/callback"

			// A callback without the cookie of a started sign-in.
			wantPopup(t, "no cookie", a.browser().popup(callback+"?code=abc&state=xyz"), core.EInvalidState)

			// A state that is not the cookie's.
			b := a.browser()
			cb := a.startStopped(b, provider, ada)
			q := cb.Query()
			q.Set("state", "forged"+q.Get("state"))
			cb.RawQuery = q.Encode()
			wantPopup(t, "forged state", b.popup(cb.String()), core.EInvalidState)

			// A cookie not signed by the server.
			b = a.browser()
			cb = a.startStopped(b, provider, ada)
			name := "sl_oauth_" + provider
			kept := b.cookie(callback, name)
			forged := &http.Cookie{Name: name, Path: "/api/auth/oauth/" + provider + "/",
				Value: "eyJrIjoic3RhdGUifQ." + strings.SplitN(kept.Value, ".", 2)[1]}
			b.Jar.SetCookies(cb, []*http.Cookie{forged})
			wantPopup(t, "forged cookie", b.popup(cb.String()), core.EInvalidState)

			// The same callback again, its cookie put back: replayed.
			b = a.browser()
			cb = a.startStopped(b, provider, ada)
			kept = b.cookie(callback, name)
			if provider == core.ProviderTwitter {
				wantPopup(t, "first callback", b.popup(cb.String()), core.EEmailRequired)
			} else {
				wantPopup(t, "first callback", b.popup(cb.String()), "")
			}
			if b.cookie(callback, name) != nil {
				t.Fatal("the state cookie outlived the callback")
			}
			kept.Path = "/api/auth/oauth/" + provider + "/"
			b.Jar.SetCookies(cb, []*http.Cookie{kept})
			wantPopup(t, "replayed", b.popup(cb.String()), core.EInvalidState)
		})
	}
}

// The person declines at the provider, the provider shows an error, or its
// token endpoint fails: the popup says so, with no detail of the
// provider's, and nobody is signed up.
func TestSocialDeniedConsentAndProviderError(t *testing.T) {
	for _, provider := range core.SocialProviders {
		t.Run(provider, func(t *testing.T) {
			a := mustSocialAPI(t)
			a.peer.Deny("access_denied")
			res := a.browser().popup("/api/auth/oauth/" + provider + "/start")
			wantPopup(t, "denied consent", res, core.EUserCancelled)
			if !strings.Contains(res.Message, core.ProviderName(provider)) {
				t.Fatalf("message: %q", res.Message)
			}
			a.peer.Deny("temporarily_unavailable")
			wantPopup(t, "provider error page", a.browser().popup("/api/auth/oauth/"+provider+"/start"), core.EProviderFailed)

			a.peer.FailToken(true)
			res = a.social(a.browser(), provider, oauthtest.NewPerson("1001", "ada@example.com", true))
			wantPopup(t, "token endpoint error", res, core.EProviderFailed)
			if strings.Contains(res.Message, "down") || strings.Contains(res.Message, "500") {
				t.Fatalf("the message carries the provider's detail: %q", res.Message)
			}
			if _, n, _ := a.DB.ListUsers(a.Ctx, core.UserFilter{}); n != 0 {
				t.Fatalf("%d users after failed sign-ins", n)
			}
		})
	}
}

// A code obtained in one sign-in, called back with another sign-in's state:
// PKCE ties the code to the verifier of the flow that asked for it.
func TestSocialCodeFromAnotherFlowIsRefused(t *testing.T) {
	a := mustSocialAPI(t)
	ada := oauthtest.NewPerson("1001", "ada@example.com", true)
	attacker, victim := a.browser(), a.browser()
	stolen := a.startStopped(attacker, core.ProviderGoogle, ada).Query().Get("code")
	cb := a.startStopped(victim, core.ProviderGoogle, ada)
	q := cb.Query()
	q.Set("code", stolen)
	cb.RawQuery = q.Encode()
	wantPopup(t, "injected code", victim.popup(cb.String()), core.EProviderFailed)
}

// A sign-in left at the provider longer than its state lives is refused.
func TestSocialExpiredState(t *testing.T) {
	a := mustSocialAPI(t)
	b := a.browser()
	cb := a.startStopped(b, core.ProviderGitHub, oauthtest.NewPerson("1001", "ada@example.com", true))
	a.Clock.Add(core.OAuthStateTTL + time.Second)
	wantPopup(t, "expired", b.popup(cb.String()), core.EInvalidState)
}

// The popup page runs no inline script: its result is a JSON data block and
// its script is ours, served under the same CSP.
func TestSocialPopupPageIsCSPCompatible(t *testing.T) {
	a := mustSocialAPI(t)
	b := a.browser()
	a.peer.Next(oauthtest.NewPerson("1001", "ada@example.com", true))
	resp, err := b.Get(identityBaseURL + "/api/auth/oauth/google/start")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	body := string(page)
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self' 'wasm-unsafe-eval';") {
		t.Fatalf("CSP %q", csp)
	}
	if strings.Count(body, "<script") != 2 || !strings.Contains(body, `<script src="/oauth-popup.js" defer></script>`) ||
		!strings.Contains(body, `<script id="oauth-result" type="application/json">`) {
		t.Fatalf("popup page scripts:\n%s", body)
	}
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("Cache-Control %q", resp.Header.Get("Cache-Control"))
	}
	js, script := get(t, a.srv.URL()+"/oauth-popup.js")
	if js.StatusCode != 200 || !strings.Contains(js.Header.Get("Content-Type"), "javascript") ||
		!strings.Contains(script, "BroadcastChannel") || !strings.Contains(script, "oauth-result") {
		t.Fatalf("popup script: %d %s", js.StatusCode, js.Header.Get("Content-Type"))
	}
}

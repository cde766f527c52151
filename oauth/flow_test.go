package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/oauth"
)

var ctx = context.Background()

// newPerson is an account at a provider; GitHub's ids are numbers.
func newPerson(subject, email string, verified bool) *person {
	return &person{Subject: subject, Email: email, Name: "Ada Lovelace", Picture: "https://pictures.example/ada.png", Verified: verified}
}

// Google and GitHub vouch for the email, so the new account's email is
// verified; Facebook does not say, so the usual verification email goes out.
func TestNewAndReturningUser(t *testing.T) {
	for _, tc := range []struct {
		provider string
		verified bool
	}{
		{core.ProviderGoogle, true},
		{core.ProviderGitHub, true},
		{core.ProviderFacebook, false},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			e := newEnv(t)
			ada := newPerson("1001", "ada@example.com", tc.verified)
			first := e.signIn(t, newBrowser(t), tc.provider, ada, "")
			if first.Code != "" || first.UID == "" {
				t.Fatalf("first sign-in: %+v", first)
			}
			u := e.user(t, first.UID)
			if u.Email != "ada@example.com" || u.EmailVerified != tc.verified || u.Name != "Ada Lovelace" ||
				u.Picture != ada.Picture || !slices.Equal(u.Providers, []string{tc.provider}) || u.PasswordHash != "" {
				t.Fatalf("new user = %+v", u)
			}
			if !tc.verified {
				e.verify(t, "ada@example.com")
			}
			again := e.signIn(t, newBrowser(t), tc.provider, ada, "")
			if again.UID != first.UID {
				t.Fatalf("returning user: %+v, want uid %s", again, first.UID)
			}
			e.NoMoreEmail(t)
		})
	}
}

// X gives no email: the person is asked for one, and the account signs in
// once the code sent there is used.
func TestProviderWithoutEmail(t *testing.T) {
	e := newEnv(t)
	ada := newPerson("2001", "", false)
	got := e.signIn(t, newBrowser(t), core.ProviderTwitter, ada, "")
	wantCode(t, "X without email", got, core.EEmailRequired)
	prof := core.ProviderProfile{Provider: core.ProviderTwitter, Subject: "2001", Name: "Ada Lovelace"}
	if err := e.Social.SignUpWithEmail(ctx, prof, "not an email"); core.ErrorCode(err) != core.EValidation {
		t.Fatalf("a bad email: %v", err)
	}
	if err := e.Social.SignUpWithEmail(ctx, prof, "ada@example.com"); err != nil {
		t.Fatal(err)
	}
	got = e.signIn(t, newBrowser(t), core.ProviderTwitter, ada, "")
	wantCode(t, "before the email is confirmed", got, core.EEmailNotVerified)
	if !strings.Contains(got.Error, "ada@example.com") {
		t.Fatalf("message: %q", got.Error)
	}
	e.verify(t, "ada@example.com")
	got = e.signIn(t, newBrowser(t), core.ProviderTwitter, ada, "")
	if got.Code != "" || got.UID == "" {
		t.Fatalf("after confirming: %+v", got)
	}
	u := e.user(t, got.UID)
	if !u.EmailVerified || u.Email != "ada@example.com" || !slices.Equal(u.Providers, []string{core.ProviderTwitter}) {
		t.Fatalf("user = %+v", u)
	}
	// The same X account cannot sign up a second time.
	if err := e.Social.SignUpWithEmail(ctx, prof, "other@example.com"); core.ErrorCode(err) != core.ECredentialInUse {
		t.Fatalf("second sign-up: %v", err)
	}
}

// Someone typing another person's address for their X account never gets in:
// the owner's own proof of the address (a password reset) does not confirm
// the X link, only the code sent for it does.
func TestEmailTypedForXIsNotTakenOver(t *testing.T) {
	e := newEnv(t)
	mallory := newPerson("2002", "", false)
	wantCode(t, "X", e.signIn(t, newBrowser(t), core.ProviderTwitter, mallory, ""), core.EEmailRequired)
	prof := core.ProviderProfile{Provider: core.ProviderTwitter, Subject: "2002"}
	if err := e.Social.SignUpWithEmail(ctx, prof, "victim@example.com"); err != nil {
		t.Fatal(err)
	}
	e.Next(t, "victim@example.com") // the victim ignores it
	// The victim takes the account over with a password reset.
	if err := e.Auth.RequestPasswordReset(ctx, "victim@example.com", core.Client{}); err != nil {
		t.Fatal(err)
	}
	if err := e.Auth.ConfirmPasswordReset(ctx, e.code(t, "victim@example.com"), "a long new passphrase"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "mallory after the victim's reset", e.signIn(t, newBrowser(t), core.ProviderTwitter, mallory, ""), core.EEmailNotVerified)
}

func TestLinkingByVerifiedEmail(t *testing.T) {
	for _, provider := range []string{core.ProviderGoogle, core.ProviderGitHub} {
		t.Run(provider, func(t *testing.T) {
			e := newEnv(t)
			tok, err := e.Auth.SignUp(ctx, core.SignUpInput{Email: "Ada@Example.com", Password: "a long passphrase"}, core.Client{})
			if err != nil {
				t.Fatal(err)
			}
			e.Next(t, "Ada@Example.com")
			got := e.signIn(t, newBrowser(t), provider, newPerson("1001", "ada@example.com", true), "")
			if got.UID != tok.User.ID {
				t.Fatalf("sign-in with a verified email of an existing account: %+v, want uid %s", got, tok.User.ID)
			}
			u := e.user(t, got.UID)
			if !u.EmailVerified || !slices.Equal(u.Providers, []string{core.ProviderPassword, provider}) || u.Name != "Ada Lovelace" {
				t.Fatalf("linked user = %+v", u)
			}
		})
	}
}

func TestRefusalWithUnverifiedEmail(t *testing.T) {
	for _, provider := range []string{core.ProviderGoogle, core.ProviderGitHub, core.ProviderFacebook} {
		t.Run(provider, func(t *testing.T) {
			e := newEnv(t)
			tok, err := e.Auth.SignUp(ctx, core.SignUpInput{Email: "ada@example.com", Password: "a long passphrase"}, core.Client{})
			if err != nil {
				t.Fatal(err)
			}
			got := e.signIn(t, newBrowser(t), provider, newPerson("1001", "ada@example.com", false), "")
			wantCode(t, "unverified email of an existing account", got, core.EAccountExists)
			if got.Error != "An account with that email already exists; sign in and link it from settings." {
				t.Fatalf("message: %q", got.Error)
			}
			if u := e.user(t, tok.User.ID); !slices.Equal(u.Providers, []string{core.ProviderPassword}) {
				t.Fatalf("providers after a refusal: %v", u.Providers)
			}
			if _, err := e.DB.FindProviderLink(ctx, provider, "1001"); core.ErrorCode(err) != core.ENotFound {
				t.Fatalf("a link was stored: %v", err)
			}
		})
	}
}

func TestForgedAndReplayedState(t *testing.T) {
	for _, provider := range core.SocialProviders {
		t.Run(provider, func(t *testing.T) {
			e := newEnv(t)
			ada := newPerson("1001", "ada@example.com", true)

			// A callback without the cookie of a started sign-in.
			got := newBrowser(t).get(t, e.app.URL+"/api/auth/oauth/"+provider+"/callback?code=abc&state=xyz")
			wantCode(t, "no cookie", got, core.EInvalidState)

			// A state that is not the cookie's: stop at the callback and
			// change it.
			b := newBrowser(t)
			b.CheckRedirect = func(r *http.Request, via []*http.Request) error {
				if strings.HasSuffix(r.URL.Path, "/callback") {
					return http.ErrUseLastResponse
				}
				return nil
			}
			e.peer.oidc.QueueUser(ada)
			resp, err := b.Get(e.app.URL + "/api/auth/oauth/" + provider + "/start")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			cb, _ := url.Parse(resp.Header.Get("Location"))
			q := cb.Query()
			q.Set("state", "forged"+q.Get("state"))
			cb.RawQuery = q.Encode()
			b.CheckRedirect = nil
			wantCode(t, "forged state", b.get(t, cb.String()), core.EInvalidState)

			// A cookie signed with another key.
			b = newBrowser(t)
			wantSignedIn(t, e.signIn(t, b, provider, ada, ""))
			app, _ := url.Parse(e.app.URL)
			b.Jar.SetCookies(app, []*http.Cookie{{Name: "sl_oauth_" + provider, Value: "eyJwIjoiZ29vZ2xlIn0.AAAA", Path: "/api/auth/oauth/" + provider + "/"}})
			wantCode(t, "forged cookie", b.get(t, b.callbacks[0]), core.EInvalidState)

			// The same callback again, with its cookie put back: replayed.
			b = newBrowser(t)
			var cookies []*http.Cookie
			b.CheckRedirect = func(r *http.Request, via []*http.Request) error {
				if strings.HasSuffix(r.URL.Path, "/callback") {
					b.callbacks = append(b.callbacks, r.URL.String())
					cookies = b.Jar.Cookies(r.URL)
				}
				return nil
			}
			wantSignedIn(t, e.signIn(t, b, provider, ada, ""))
			cbURL, _ := url.Parse(b.callbacks[0])
			b.Jar.SetCookies(cbURL, cookies)
			wantCode(t, "replayed", b.get(t, b.callbacks[0]), core.EInvalidState)
		})
	}
}

// wantSignedIn fails unless the flow went through: signed in, or (X) asked
// for an email.
func wantSignedIn(t *testing.T, got outcome) {
	t.Helper()
	if got.UID == "" && got.Code != core.EEmailRequired {
		t.Fatalf("sign-in: %+v", got)
	}
}

func TestDeniedConsentAndProviderError(t *testing.T) {
	for _, provider := range core.SocialProviders {
		t.Run(provider, func(t *testing.T) {
			e := newEnv(t)
			e.peer.mu.Lock()
			e.peer.deny = "access_denied"
			e.peer.mu.Unlock()
			got := newBrowser(t).get(t, e.app.URL+"/api/auth/oauth/"+provider+"/start")
			wantCode(t, "denied consent", got, core.EUserCancelled)
			if !strings.Contains(got.Error, core.ProviderName(provider)) {
				t.Fatalf("message: %q", got.Error)
			}

			e.peer.mu.Lock()
			e.peer.deny = "temporarily_unavailable"
			e.peer.mu.Unlock()
			got = newBrowser(t).get(t, e.app.URL+"/api/auth/oauth/"+provider+"/start")
			wantCode(t, "provider error page", got, core.EProviderFailed)

			// The token endpoint fails after the person consented.
			e.peer.mu.Lock()
			e.peer.failToken = true
			e.peer.mu.Unlock()
			got = e.signIn(t, newBrowser(t), provider, newPerson("1001", "ada@example.com", true), "")
			wantCode(t, "token endpoint error", got, core.EProviderFailed)
			if strings.Contains(got.Error, "down") || strings.Contains(got.Error, "500") {
				t.Fatalf("the message carries the provider's detail: %q", got.Error)
			}
			if _, n, _ := e.DB.ListUsers(ctx, core.UserFilter{}); n != 0 {
				t.Fatalf("%d users after failed sign-ins", n)
			}
		})
	}
}

// A code obtained in one sign-in, called back with another sign-in's state:
// PKCE ties the code to the verifier of the flow that asked for it.
func TestCodeFromAnotherFlowIsRefused(t *testing.T) {
	e := newEnv(t)
	stop := func(b *browser) {
		b.CheckRedirect = func(r *http.Request, via []*http.Request) error {
			if strings.HasSuffix(r.URL.Path, "/callback") {
				return http.ErrUseLastResponse
			}
			return nil
		}
	}
	start := func(b *browser) *url.URL {
		e.peer.oidc.QueueUser(newPerson("1001", "ada@example.com", true))
		resp, err := b.Get(e.app.URL + "/api/auth/oauth/" + core.ProviderGoogle + "/start")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		u, _ := url.Parse(resp.Header.Get("Location"))
		return u
	}
	attacker, victim := newBrowser(t), newBrowser(t)
	stop(attacker)
	stop(victim)
	stolen := start(attacker).Query().Get("code")
	cb := start(victim)
	q := cb.Query()
	q.Set("code", stolen)
	cb.RawQuery = q.Encode()
	wantCode(t, "injected code", victim.get(t, cb.String()), core.EProviderFailed)
}

// A sign-in left at the provider longer than the state lives is refused.
func TestExpiredState(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t)
	b.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if strings.HasSuffix(r.URL.Path, "/callback") {
			e.Clock.Add(oauth.StateTTL + time.Second)
		}
		return nil
	}
	wantCode(t, "expired", e.signIn(t, b, core.ProviderGitHub, newPerson("1001", "ada@example.com", true), ""), core.EInvalidState)
}

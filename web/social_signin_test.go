package web_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/oauth/oauthtest"
	"github.com/sendlater/sendlater/web"
)

// GET /api/auth/providers lists the configured providers in the order the
// sign-in page shows them.
func TestProvidersList(t *testing.T) {
	a := mustSocialAPI(t)
	var got []web.ProviderJSON
	a.ok(nil, http.StatusOK, "GET", "/api/auth/providers", "", nil, &got)
	want := []web.ProviderJSON{{"google", "Google"}, {"facebook", "Facebook"}, {"twitter", "X"}, {"github", "GitHub"}}
	if !slices.Equal(got, want) {
		t.Fatalf("providers = %+v, want %+v", got, want)
	}
	a.fail(nil, http.StatusNotFound, core.EProviderNotConfigured, "GET", "/api/auth/oauth/myspace/start", "", nil)
}

// A new user signs up through the popup and is signed in (the refresh
// cookie); the same provider account signs in to the same user next time.
// Google and GitHub vouch for the email, so the new account's email is
// verified; Facebook does not say, so the usual verification email goes out.
func TestSocialNewAndReturningUser(t *testing.T) {
	for _, tc := range []struct {
		provider string
		verified bool
	}{
		{core.ProviderGoogle, true},
		{core.ProviderGitHub, true},
		{core.ProviderFacebook, false},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			a := mustSocialAPI(t)
			ada := oauthtest.NewPerson("1001", "ada@example.com", tc.verified)
			b := a.browser()
			res := a.social(b, tc.provider, ada)
			wantPopup(t, "first sign-in", res, "")
			if res.Provider != tc.provider || res.Intent != "" {
				t.Fatalf("popup result %+v", res)
			}
			first := b.session()
			su := first.User
			if su.Email != "ada@example.com" || su.EmailVerified != tc.verified || su.Name != "Ada Lovelace" ||
				su.Picture != ada.Picture || !slices.Equal(su.Providers, []string{tc.provider}) {
				t.Fatalf("new user = %+v", su)
			}
			if u := a.user(su.UID); u.PasswordHash != "" {
				t.Fatal("a social account got a password")
			}
			if !tc.verified {
				a.verify("ada@example.com")
			}
			again := a.browser()
			wantPopup(t, "returning", a.social(again, tc.provider, ada), "")
			if got := again.session().User.UID; got != su.UID {
				t.Fatalf("returning user %s, want %s", got, su.UID)
			}
			a.noMoreEmail()
		})
	}
}

// X gives no email: the popup asks for one, the address is confirmed by the
// usual email code, and only then does the account sign in.
func TestSocialProviderWithoutEmail(t *testing.T) {
	a := mustSocialAPI(t)
	ada := oauthtest.NewPerson("2001", "", false)
	b := a.browser()
	res := a.social(b, core.ProviderTwitter, ada)
	wantPopup(t, "X without email", res, core.EEmailRequired)
	if b.cookie("/api/auth/refresh", "sl_refresh") != nil {
		t.Fatal("signed in without an email")
	}
	const path = "/api/auth/oauth/twitter/email"
	if resp, env := b.api("POST", path, "", map[string]string{"email": "not an email"}); resp.StatusCode != http.StatusUnprocessableEntity || env.Fields["email"] == "" {
		t.Fatalf("a bad email: %d %+v", resp.StatusCode, env)
	}
	// Another browser, without the held profile, cannot finish it.
	if resp, env := a.browser().api("POST", path, "", map[string]string{"email": "ada@example.com"}); env.Code != core.EInvalidState {
		t.Fatalf("without the held profile: %d %+v", resp.StatusCode, env)
	}
	if resp, env := b.api("POST", path, "", map[string]string{"email": "ada@example.com"}); resp.StatusCode != http.StatusCreated {
		t.Fatalf("the email: %d %+v", resp.StatusCode, env)
	}
	if b.cookie(path, "sl_oauth_held") != nil {
		t.Fatal("the held profile outlived its use")
	}
	res = a.social(a.browser(), core.ProviderTwitter, ada)
	wantPopup(t, "before the email is confirmed", res, core.EEmailNotVerified)
	if !strings.Contains(res.Message, "ada@example.com") {
		t.Fatalf("message: %q", res.Message)
	}
	a.verify("ada@example.com")
	b = a.browser()
	wantPopup(t, "after confirming", a.social(b, core.ProviderTwitter, ada), "")
	su := b.session().User
	if !su.EmailVerified || su.Email != "ada@example.com" || !slices.Equal(su.Providers, []string{core.ProviderTwitter}) {
		t.Fatalf("user = %+v", su)
	}
}

// Someone typing another person's address for their X account never gets
// in: the owner's own proof of the address (a password reset) does not
// confirm the X link, only the code sent for it does; and as the address
// was never verified, the reset claims the account and the link goes.
func TestSocialEmailTypedForXIsNotTakenOver(t *testing.T) {
	a := mustSocialAPI(t)
	mallory := oauthtest.NewPerson("2002", "", false)
	b := a.browser()
	wantPopup(t, "X", a.social(b, core.ProviderTwitter, mallory), core.EEmailRequired)
	if resp, _ := b.api("POST", "/api/auth/oauth/twitter/email", "", map[string]string{"email": "victim@example.com"}); resp.StatusCode != http.StatusCreated {
		t.Fatalf("the email: %d", resp.StatusCode)
	}
	a.email("victim@example.com") // the victim ignores it
	a.ok(nil, http.StatusOK, "POST", "/api/auth/password-reset", "", map[string]string{"email": "victim@example.com"}, nil)
	code := a.followLink(a.email("victim@example.com"), core.ModeResetPassword)
	a.ok(nil, http.StatusOK, "POST", "/api/auth/password-reset/confirm", "", map[string]string{"oobCode": code, "password": pw}, nil)
	a.email("victim@example.com") // the account is the victim's now
	wantPopup(t, "mallory after the victim's reset", a.social(a.browser(), core.ProviderTwitter, mallory), core.EEmailRequired)
}

// A provider that vouches for the email of an existing account whose
// address was verified links to it.
func TestSocialLinkingByVerifiedEmail(t *testing.T) {
	for _, provider := range []string{core.ProviderGoogle, core.ProviderGitHub} {
		t.Run(provider, func(t *testing.T) {
			a := mustSocialAPI(t)
			var ann tokensReply
			a.ok(browserClient(t), http.StatusCreated, "POST", "/api/auth/signup", "", map[string]string{"email": "Ada@Example.com", "password": pw}, &ann)
			a.verify("Ada@Example.com")
			b := a.browser()
			wantPopup(t, "verified email of an existing account", a.social(b, provider, oauthtest.NewPerson("1001", "ada@example.com", true)), "")
			su := b.session().User
			if su.UID != ann.User.UID || !su.EmailVerified || !slices.Equal(su.Providers, []string{core.ProviderPassword, provider}) || su.Name != "Ada Lovelace" {
				t.Fatalf("linked user = %+v", su)
			}
		})
	}
}

// A provider that does not vouch for the email of an existing account is
// refused, with how to link it instead, and nothing is linked.
func TestSocialRefusalWithUnverifiedEmail(t *testing.T) {
	for _, provider := range []string{core.ProviderGoogle, core.ProviderGitHub, core.ProviderFacebook} {
		t.Run(provider, func(t *testing.T) {
			a := mustSocialAPI(t)
			ann := a.signUp(browserClient(t), "ada@example.com")
			b := a.browser()
			res := a.social(b, provider, oauthtest.NewPerson("1001", "ada@example.com", false))
			wantPopup(t, "unverified email of an existing account", res, core.EAccountExists)
			if res.Message != "An account with that email already exists; sign in and link it from settings." {
				t.Fatalf("message: %q", res.Message)
			}
			if b.cookie("/api/auth/refresh", "sl_refresh") != nil {
				t.Fatal("a refusal signed in")
			}
			if u := a.user(ann.User.UID); !slices.Equal(u.Providers, []string{core.ProviderPassword}) {
				t.Fatalf("providers after a refusal: %v", u.Providers)
			}
		})
	}
}

// The attack of issue 26 through the real OAuth flow: a stranger signs up
// with the victim's address and never verifies it; the victim signs in with
// Google. The victim lands in the account, alone: the stranger's refresh
// cookie, ID token and password no longer get in, and the victim is told.
func TestSocialSignInClaimsAPreHijackedAccount(t *testing.T) {
	a := mustSocialAPI(t)
	mallory := a.browser()
	resp, env := mallory.api("POST", "/api/auth/signup", "", map[string]string{"email": "victim@example.com", "password": pw})
	var tok tokensReply
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(env.Data, &tok) != nil {
		t.Fatalf("the stranger's sign-up: %d %+v", resp.StatusCode, env)
	}
	a.email("victim@example.com") // the victim ignores it
	mallory.session()

	victim := a.browser()
	wantPopup(t, "the victim's Google sign-in", a.social(victim, core.ProviderGoogle, oauthtest.NewPerson("g-1", "victim@example.com", true)), "")
	su := victim.session().User
	if su.UID != tok.User.UID || !su.EmailVerified || !slices.Equal(su.Providers, []string{core.ProviderGoogle}) || su.Name != "Ada Lovelace" {
		t.Fatalf("the victim's account: %+v", su)
	}
	if !strings.Contains(a.email("victim@example.com").Text, "Someone had started an account with this address") {
		t.Fatal("the victim was not told")
	}
	if resp, _ := mallory.api("POST", "/api/auth/token", "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the stranger's refresh cookie: %d", resp.StatusCode)
	}
	if resp, _ := mallory.api("GET", "/api/me", tok.IDToken, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the stranger's ID token: %d", resp.StatusCode)
	}
	if resp, env := mallory.api("POST", "/api/auth/signin", "", map[string]string{"email": "victim@example.com", "password": pw}); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the stranger's password: %d %+v", resp.StatusCode, env)
	}
	a.noMoreEmail()
}

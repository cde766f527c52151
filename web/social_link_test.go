package web_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/oauth/oauthtest"
	"github.com/sendlater/sendlater/web"
)

func linkPath(provider string) string { return "/api/me/providers/" + provider }

// linked lists the providers linked to the session of bearer.
func (a *socialAPI) linked(bearer string) []web.LinkedAccountJSON {
	a.t.Helper()
	var out []web.LinkedAccountJSON
	a.ok(nil, http.StatusOK, "GET", "/api/me/providers", bearer, nil, &out)
	return out
}

func TestSocialLinkAndUnlink(t *testing.T) {
	a := mustSocialAPI(t)
	b := a.browser()
	ann := a.signUp(browserClient(t), "ada@example.com")

	// Google, then GitHub with another address: linked in that order.
	res := a.startFor(b, linkPath(core.ProviderGoogle), ann.IDToken, oauthtest.NewPerson("1001", "ada@example.com", true))
	wantPopup(t, "link google", res, "")
	if res.Intent != core.IntentLink {
		t.Fatalf("popup result %+v", res)
	}
	a.Clock.Add(time.Second)
	wantPopup(t, "link github", a.startFor(b, linkPath(core.ProviderGitHub), ann.IDToken, oauthtest.NewPerson("3001", "ada@work.example", false)), "")
	var me web.SessionUserJSON
	a.ok(nil, http.StatusOK, "GET", "/api/me", ann.IDToken, nil, &me)
	if !slices.Equal(me.Providers, []string{core.ProviderPassword, core.ProviderGoogle, core.ProviderGitHub}) || !me.EmailVerified || me.Email != "ada@example.com" {
		t.Fatalf("after linking: %+v", me)
	}
	links := a.linked(ann.IDToken)
	if len(links) != 2 || links[0].Provider != core.ProviderGoogle || links[0].Name != "Google" || links[0].Email != "ada@example.com" ||
		links[1].Provider != core.ProviderGitHub || links[1].Email != "ada@work.example" || !links[1].Confirmed || links[1].LinkedAt <= links[0].LinkedAt {
		t.Fatalf("linked accounts = %+v", links)
	}
	// The export holds them, with the providers' ids of the accounts.
	var export web.AccountExportJSON
	a.ok(nil, http.StatusOK, "GET", "/api/me/export", ann.IDToken, nil, &export)
	if x := export.LinkedAccounts; len(x) != 2 || x[0].Provider != core.ProviderGoogle || x[0].Subject != "1001" ||
		x[1].Subject != "3001" || x[1].Email != "ada@work.example" || !x[1].Confirmed {
		t.Fatalf("exported links = %+v", x)
	}
	// Either signs in to the same account now.
	gh := a.browser()
	wantPopup(t, "sign-in with the linked github", a.social(gh, core.ProviderGitHub, oauthtest.NewPerson("3001", "ada@work.example", false)), "")
	if uid := gh.session().User.UID; uid != ann.User.UID {
		t.Fatalf("signed in as %s, want %s", uid, ann.User.UID)
	}

	// Another user cannot link ann's Google account, nor ann a second one.
	grace := a.signUp(browserClient(t), "grace@example.com")
	wantPopup(t, "someone else's google", a.startFor(a.browser(), linkPath(core.ProviderGoogle), grace.IDToken, oauthtest.NewPerson("1001", "ada@example.com", true)), core.ECredentialInUse)
	wantPopup(t, "a second google", a.startFor(b, linkPath(core.ProviderGoogle), ann.IDToken, oauthtest.NewPerson("1002", "ada2@example.com", true)), core.EConflict)
	if got := a.user(grace.User.UID).Providers; !slices.Equal(got, []string{core.ProviderPassword}) {
		t.Fatalf("grace's providers = %v", got)
	}

	// Linking and unlinking need a recent login.
	a.Clock.Add(core.RecentLoginWindow + time.Minute)
	a.fail(nil, http.StatusUnauthorized, core.ERequiresRecentLogin, "POST", linkPath(core.ProviderFacebook), ann.IDToken, nil)
	a.fail(nil, http.StatusUnauthorized, core.ERequiresRecentLogin, "DELETE", linkPath(core.ProviderGoogle), ann.IDToken, nil)
	a.fail(nil, http.StatusUnauthorized, core.EInvalidToken, "DELETE", linkPath(core.ProviderGoogle), "", nil)
	ann = a.signIn(browserClient(t), "ada@example.com", pw)
	a.fail(nil, http.StatusNotFound, core.ENotFound, "DELETE", linkPath(core.ProviderFacebook), ann.IDToken, nil)
	var after web.SessionUserJSON
	a.ok(nil, http.StatusOK, "DELETE", linkPath(core.ProviderGoogle), ann.IDToken, nil, &after)
	if !slices.Equal(after.Providers, []string{core.ProviderPassword, core.ProviderGitHub}) {
		t.Fatalf("after unlinking google: %+v", after)
	}
	// The unlinked Google account, which vouches for the account's email,
	// links again on sign-in.
	again := a.browser()
	wantPopup(t, "the unlinked google", a.social(again, core.ProviderGoogle, oauthtest.NewPerson("1001", "ada@example.com", true)), "")
	if uid := again.session().User.UID; uid != ann.User.UID {
		t.Fatalf("signed in as %s, want %s", uid, ann.User.UID)
	}
}

// Linking re-checks at the callback that the session that started it still
// holds; a personal access token never starts one.
func TestSocialLinkNeedsTheSessionThroughout(t *testing.T) {
	a := mustSocialAPI(t)
	b := a.browser()
	ann := a.signUp(b.Client, "ada@example.com")
	resp, env := b.api("POST", linkPath(core.ProviderGoogle), ann.IDToken, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("start: %d %+v", resp.StatusCode, env)
	}
	a.ok(nil, http.StatusOK, "POST", "/api/auth/signout", ann.IDToken, nil, nil)
	a.peer.Next(oauthtest.NewPerson("1001", "ada@example.com", true))
	var out web.URLJSON
	unmarshal(t, env.Data, &out)
	wantPopup(t, "the session ended meanwhile", b.popup(out.URL), core.EInvalidToken)
	if u := a.user(ann.User.UID); !slices.Equal(u.Providers, []string{core.ProviderPassword}) {
		t.Fatalf("providers = %v", u.Providers)
	}

	ann = a.signIn(browserClient(t), "ada@example.com", pw)
	var pat web.CreatedTokenJSON
	a.ok(nil, http.StatusCreated, "POST", "/api/me/tokens", ann.IDToken, map[string]any{"name": "script", "scopes": core.AllScopes}, &pat)
	a.fail(nil, http.StatusUnauthorized, core.ERequiresRecentLogin, "POST", linkPath(core.ProviderGoogle), pat.Token, nil)
	a.fail(nil, http.StatusUnauthorized, core.ERequiresRecentLogin, "POST", "/api/auth/reauth/google", pat.Token, nil)
}

func TestSocialUnlinkKeepsAWayToSignIn(t *testing.T) {
	a := mustSocialAPI(t)
	b := a.browser()
	wantPopup(t, "sign-in", a.social(b, core.ProviderGoogle, oauthtest.NewPerson("1001", "ada@example.com", true)), "")
	tok := b.session()
	a.fail(nil, http.StatusConflict, core.ELastSignInMethod, "DELETE", linkPath(core.ProviderGoogle), tok.IDToken, nil)
	wantPopup(t, "link github", a.startFor(b, linkPath(core.ProviderGitHub), tok.IDToken, oauthtest.NewPerson("3001", "ada@example.com", true)), "")
	a.ok(nil, http.StatusOK, "DELETE", linkPath(core.ProviderGoogle), tok.IDToken, nil, nil)
	a.fail(nil, http.StatusConflict, core.ELastSignInMethod, "DELETE", linkPath(core.ProviderGitHub), tok.IDToken, nil)
}

// A user without a password signs in again with their first provider when
// a sensitive action asks for a recent login; another account of that
// provider does not count.
func TestSocialReauth(t *testing.T) {
	a := mustSocialAPI(t)
	b := a.browser()
	ada := oauthtest.NewPerson("1001", "ada@example.com", true)
	wantPopup(t, "sign-in", a.social(b, core.ProviderGoogle, ada), "")
	tok := b.session()
	a.Clock.Add(core.RecentLoginWindow + time.Minute)
	a.fail(nil, http.StatusUnauthorized, core.ERequiresRecentLogin, "DELETE", "/api/me", tok.IDToken, nil)

	wantPopup(t, "another google account", a.startFor(b, "/api/auth/reauth/google", tok.IDToken, oauthtest.NewPerson("1002", "eve@example.com", true)), core.EWrongCredentials)
	a.fail(nil, http.StatusUnauthorized, core.ERequiresRecentLogin, "DELETE", "/api/me", tok.IDToken, nil)
	res := a.startFor(b, "/api/auth/reauth/google", tok.IDToken, ada)
	wantPopup(t, "reauth", res, "")
	if res.Intent != core.IntentReauth {
		t.Fatalf("popup result %+v", res)
	}
	a.ok(nil, http.StatusOK, "DELETE", "/api/me", tok.IDToken, nil, nil)
}

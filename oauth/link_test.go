package oauth_test

import (
	"slices"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// linkQuery asks the test front to link the sign-in to the session's user.
func (e *env) linkQuery(t *testing.T, tok *core.Tokens) string {
	id := e.recent(t, tok)
	return "?link_uid=" + id.UserID + "&link_sid=" + id.SessionID
}

func (e *env) recent(t *testing.T, tok *core.Tokens) *core.Identity {
	t.Helper()
	id, err := e.Auth.Authenticate(ctx, tok.IDToken)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func linkedProviders(t *testing.T, e *env, tok *core.Tokens) []string {
	t.Helper()
	links, err := e.Social.LinkedAccounts(core.WithIdentity(ctx, e.recent(t, tok)))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range links {
		out = append(out, l.Provider)
	}
	return out
}

func TestLinkAndUnlink(t *testing.T) {
	e := newEnv(t)
	tok, err := e.Auth.SignUp(ctx, core.SignUpInput{Email: "ada@example.com", Password: "a long passphrase"}, core.Client{})
	if err != nil {
		t.Fatal(err)
	}
	q := e.linkQuery(t, tok)

	// Google, then GitHub with another address: linked in that order.
	if got := e.signIn(t, newBrowser(t), core.ProviderGoogle, newPerson("1001", "ada@example.com", true), q); got.UID != tok.User.ID {
		t.Fatalf("link google: %+v", got)
	}
	e.Clock.Add(time.Second)
	if got := e.signIn(t, newBrowser(t), core.ProviderGitHub, newPerson("3001", "ada@work.example", false), q); got.UID != tok.User.ID {
		t.Fatalf("link github: %+v", got)
	}
	u := e.user(t, tok.User.ID)
	if !slices.Equal(u.Providers, []string{core.ProviderPassword, core.ProviderGoogle, core.ProviderGitHub}) || !u.EmailVerified || u.Email != "ada@example.com" {
		t.Fatalf("after linking: %+v", u)
	}
	if got := linkedProviders(t, e, tok); !slices.Equal(got, []string{core.ProviderGoogle, core.ProviderGitHub}) {
		t.Fatalf("linked accounts = %v", got)
	}
	// Either signs in to the same account now.
	if got := e.signIn(t, newBrowser(t), core.ProviderGitHub, newPerson("3001", "ada@work.example", false), ""); got.UID != tok.User.ID {
		t.Fatalf("sign-in with the linked github: %+v", got)
	}

	// Another user cannot link ada's Google account, nor ada a second one.
	grace, err := e.Auth.SignUp(ctx, core.SignUpInput{Email: "grace@example.com", Password: "a long passphrase"}, core.Client{})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "someone else's google", e.signIn(t, newBrowser(t), core.ProviderGoogle, newPerson("1001", "ada@example.com", true), e.linkQuery(t, grace)), core.ECredentialInUse)
	wantCode(t, "a second google", e.signIn(t, newBrowser(t), core.ProviderGoogle, newPerson("1002", "ada2@example.com", true), q), core.EConflict)
	if got := e.user(t, grace.User.ID).Providers; !slices.Equal(got, []string{core.ProviderPassword}) {
		t.Fatalf("grace's providers = %v", got)
	}

	// Unlinking needs a recent login, and leaves the rest in order.
	idCtx := core.WithIdentity(ctx, e.recent(t, tok))
	e.Clock.Add(core.RecentLoginWindow + time.Minute)
	if _, err := e.Social.Unlink(idCtx, core.ProviderGoogle); core.ErrorCode(err) != core.ERequiresRecentLogin {
		t.Fatalf("unlink without a recent login: %v", err)
	}
	if _, err := e.Social.Unlink(ctx, core.ProviderGoogle); core.ErrorCode(err) != core.EInvalidToken {
		t.Fatalf("unlink signed out: %v", err)
	}
	tok, err = e.Auth.SignIn(ctx, "ada@example.com", "a long passphrase", core.Client{})
	if err != nil {
		t.Fatal(err)
	}
	idCtx = core.WithIdentity(ctx, e.recent(t, tok))
	if _, err := e.Social.Unlink(idCtx, core.ProviderFacebook); core.ErrorCode(err) != core.ENotFound {
		t.Fatalf("unlink of what is not linked: %v", err)
	}
	u, err = e.Social.Unlink(idCtx, core.ProviderGoogle)
	if err != nil || !slices.Equal(u.Providers, []string{core.ProviderPassword, core.ProviderGitHub}) {
		t.Fatalf("unlink google: %v, %+v", err, u)
	}
	got := e.signIn(t, newBrowser(t), core.ProviderGoogle, newPerson("1001", "ada@example.com", true), "")
	if got.UID != tok.User.ID {
		// An unlinked Google account with the account's verified email
		// links again on sign-in: the provider vouches for the address.
		t.Fatalf("sign-in with the unlinked google: %+v", got)
	}
}

func TestUnlinkKeepsAWayToSignIn(t *testing.T) {
	e := newEnv(t)
	got := e.signIn(t, newBrowser(t), core.ProviderGoogle, newPerson("1001", "ada@example.com", true), "")
	if got.UID == "" {
		t.Fatalf("sign-in: %+v", got)
	}
	// A session of that social-only account.
	tok, err := e.Social.SignIn(ctx, core.ProviderProfile{Provider: core.ProviderGoogle, Subject: "1001", Email: "ada@example.com", EmailVerified: true}, core.Client{})
	if err != nil {
		t.Fatal(err)
	}
	idCtx := core.WithIdentity(ctx, e.recent(t, tok))
	if _, err := e.Social.Unlink(idCtx, core.ProviderGoogle); core.ErrorCode(err) != core.ELastSignInMethod {
		t.Fatalf("unlinking the only way in: %v", err)
	}
	if got := e.signIn(t, newBrowser(t), core.ProviderGitHub, newPerson("3001", "ada@example.com", true), e.linkQuery(t, tok)); got.UID != tok.User.ID {
		t.Fatalf("link github: %+v", got)
	}
	if _, err := e.Social.Unlink(idCtx, core.ProviderGoogle); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Social.Unlink(idCtx, core.ProviderGitHub); core.ErrorCode(err) != core.ELastSignInMethod {
		t.Fatalf("unlinking the last way in: %v", err)
	}
	// A personal access token cannot link.
	pat := core.WithIdentity(ctx, &core.Identity{UserID: tok.User.ID, TokenID: "t1"})
	if _, err := e.Social.Link(pat, core.ProviderProfile{Provider: core.ProviderFacebook, Subject: "9"}); core.ErrorCode(err) != core.ERequiresRecentLogin {
		t.Fatalf("link with a personal access token: %v", err)
	}
}

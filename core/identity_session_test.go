package core_test

import (
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

func TestIDTokenExpiresAndSignOutRevokes(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	e.Clock.Add(59 * time.Minute)
	id := e.MustAuthenticate(t, tok.IDToken)
	e.Clock.Add(time.Minute)
	_, err := e.Auth.Authenticate(e.Ctx, tok.IDToken)
	wantCode(t, err, core.EInvalidToken)

	fresh, err := e.Auth.Refresh(e.Ctx, tok.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Auth.SignOut(e.Acting(id)); err != nil {
		t.Fatal(err)
	}
	_, err = e.Auth.Authenticate(e.Ctx, fresh.IDToken)
	wantCode(t, err, core.EInvalidToken)
	_, err = e.Auth.Refresh(e.Ctx, fresh.RefreshToken)
	wantCode(t, err, core.EInvalidToken)
	for _, bad := range []string{"", "garbage", fresh.IDToken + "x", core.AccessTokenPrefix + "unknown"} {
		_, err = e.Auth.Authenticate(e.Ctx, bad)
		wantCode(t, err, core.EInvalidToken)
	}
}

func TestRefreshRotatesAndReuseRevokesTheSession(t *testing.T) {
	e := MustAuthEnv(t)
	first := e.MustSignUp(t, "ann@example.com", goodPassword)
	other := signInAt(t, e, 0) // another browser

	second, err := e.Auth.Refresh(e.Ctx, first.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if second.RefreshToken == first.RefreshToken || second.User.Email != "ann@example.com" {
		t.Fatalf("refresh %+v", second)
	}
	third, err := e.Auth.Refresh(e.Ctx, second.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	// The first token again: a copy exists, so the whole session ends.
	_, err = e.Auth.Refresh(e.Ctx, first.RefreshToken)
	wantCode(t, err, core.EInvalidToken)
	_, err = e.Auth.Refresh(e.Ctx, third.RefreshToken)
	wantCode(t, err, core.EInvalidToken)
	_, err = e.Auth.Authenticate(e.Ctx, third.IDToken)
	wantCode(t, err, core.EInvalidToken)
	// Other sessions go on.
	e.MustAuthenticate(t, other.IDToken)
	_, err = e.Auth.Refresh(e.Ctx, "")
	wantCode(t, err, core.EInvalidToken)
}

func TestSessionEndsWhenIdle(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	e.Clock.Add(core.SessionIdleTTL - time.Minute)
	tok, err := e.Auth.Refresh(e.Ctx, tok.RefreshToken) // use renews the session
	if err != nil {
		t.Fatal(err)
	}
	e.Clock.Add(core.SessionIdleTTL - time.Minute)
	if _, err := e.Auth.Refresh(e.Ctx, tok.RefreshToken); err != nil {
		t.Fatal(err)
	}
	e.Clock.Add(core.SessionIdleTTL)
	_, err = e.Auth.Refresh(e.Ctx, tok.RefreshToken)
	wantCode(t, err, core.EInvalidToken)
}

func TestReauthMakesALoginRecent(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	e.Clock.Add(core.RecentLoginWindow + time.Second)
	id := e.MustAuthenticate(t, tok.IDToken)
	wantCode(t, e.Auth.RequireRecentLogin(e.Acting(id)), core.ERequiresRecentLogin)

	_, err := e.Auth.Reauth(e.Acting(id), "", browser)
	wantFields(t, err, map[string]string{"password": "Please enter your password"})
	_, err = e.Auth.Reauth(e.Acting(id), "wrong password", browser)
	wantCode(t, err, core.EWrongCredentials)
	re, err := e.Auth.Reauth(e.Acting(id), goodPassword, browser)
	if err != nil {
		t.Fatal(err)
	}
	if re.RefreshToken != "" {
		t.Fatal("re-auth replaced the refresh token")
	}
	// Both the new token and the old one now act for a recent login: the
	// session holds the time.
	for _, bearer := range []string{re.IDToken, tok.IDToken} {
		if err := e.Auth.RequireRecentLogin(e.Acting(e.MustAuthenticate(t, bearer))); err != nil {
			t.Fatal(err)
		}
	}
}

func TestARefreshRetriedWithinTheGraceGetsTheSamePair(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	// Two tabs at once, or a retry after a lost reply: the same new pair.
	type result struct {
		t   *core.Tokens
		err error
	}
	results := make(chan result, 2)
	for range 2 {
		go func() {
			t, err := e.Auth.Refresh(e.Ctx, tok.RefreshToken)
			results <- result{t, err}
		}()
	}
	a, b := <-results, <-results
	if a.err != nil || b.err != nil {
		t.Fatalf("refreshes: %v, %v", a.err, b.err)
	}
	if a.t.RefreshToken != b.t.RefreshToken || a.t.IDToken != b.t.IDToken || !a.t.ExpiresAt.Equal(b.t.ExpiresAt) {
		t.Fatal("two refreshes with one token got two pairs")
	}
	e.Clock.Add(core.RefreshGrace)
	again, err := e.Auth.Refresh(e.Ctx, tok.RefreshToken)
	if err != nil || again.RefreshToken != a.t.RefreshToken || again.IDToken != a.t.IDToken {
		t.Fatalf("a retry within the grace: %+v %v", again, err)
	}
	e.MustAuthenticate(t, a.t.IDToken)
	// After the grace the old token is a copy: the session ends.
	e.Clock.Add(time.Second)
	_, err = e.Auth.Refresh(e.Ctx, tok.RefreshToken)
	wantCode(t, err, core.EInvalidToken)
	_, err = e.Auth.Refresh(e.Ctx, a.t.RefreshToken)
	wantCode(t, err, core.EInvalidToken)
	_, err = e.Auth.Authenticate(e.Ctx, a.t.IDToken)
	wantCode(t, err, core.EInvalidToken)
}

func TestSessionEndsAfterItsMaximumAge(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	start := e.Clock.Now()
	for e.Clock.Now().Add(24 * time.Hour).Before(start.Add(core.SessionMaxAge)) {
		e.Clock.Add(24 * time.Hour)
		next, err := e.Auth.Refresh(e.Ctx, tok.RefreshToken)
		if err != nil {
			t.Fatalf("day %v: %v", e.Clock.Now().Sub(start), err)
		}
		if next.RefreshExpiresAt.After(start.Add(core.SessionMaxAge)) {
			t.Fatalf("the cookie outlives the session's maximum age: %v", next.RefreshExpiresAt)
		}
		tok = next
	}
	e.Clock.Set(start.Add(core.SessionMaxAge))
	_, err := e.Auth.Refresh(e.Ctx, tok.RefreshToken)
	wantCode(t, err, core.EInvalidToken)
}

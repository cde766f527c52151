package web_test

import (
	"net/http"
	"testing"
)

// cookieNamed is the cookie of that name a reply sets.
func cookieNamed(t *testing.T, resp *http.Response, name string) *http.Cookie {
	t.Helper()
	for _, c := range resp.Cookies() {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no %s cookie in %v", name, resp.Header["Set-Cookie"])
	return nil
}

func sessionHint(t *testing.T, resp *http.Response) *http.Cookie {
	t.Helper()
	return cookieNamed(t, resp, "sl_session")
}

// TestSessionHintFollowsTheRefreshCookie: the readable hint that tells the
// SPA a session exists is set and deleted with the refresh cookie, lives as
// long, and holds nothing secret.
func TestSessionHintFollowsTheRefreshCookie(t *testing.T) {
	a := mustIdentityAPI(t)
	c := browserClient(t)
	var tok tokensReply
	resp := a.ok(c, http.StatusCreated, "POST", "/api/auth/signup", "", map[string]string{"email": "ann@example.com", "password": pw}, &tok)
	refresh, hint := refreshCookie(t, resp), sessionHint(t, resp)
	if hint.Value != "1" || hint.HttpOnly || hint.Path != "/" || hint.MaxAge != refresh.MaxAge || hint.SameSite != http.SameSiteStrictMode {
		t.Fatalf("hint %+v beside %+v", hint, refresh)
	}

	resp = a.ok(c, 200, "POST", "/api/auth/token", "", nil, &tok)
	if sessionHint(t, resp).Value != "1" {
		t.Fatal("a refresh dropped the hint")
	}

	resp = a.ok(c, 200, "POST", "/api/auth/signout", tok.IDToken, nil, nil)
	if sessionHint(t, resp).MaxAge >= 0 || refreshCookie(t, resp).MaxAge >= 0 {
		t.Fatal("sign-out kept a cookie")
	}
}

package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/web"
)

// The read path keeps decoded sessions, users and messages and verified ID
// tokens in memory (issue 14). Whatever ends a session must still make the
// very next request with its token fail, after that token's reads have
// warmed every cache: sign-out, a password change (the other devices),
// a refresh token replayed after its grace (the whole session), account
// deletion, and the store ending a user's sessions directly, the path an
// operator's `users disable` takes.
func TestRevocationFailsTheVeryNextRead(t *testing.T) {
	reads := func(msgID string) []string {
		return []string{"/api/me", "/api/messages", "/api/messages/" + msgID}
	}
	warm := func(a *identityAPI, token, msgID string) {
		t.Helper()
		for range 3 {
			for _, p := range reads(msgID) {
				a.ok(nil, http.StatusOK, "GET", p, token, nil, nil)
			}
		}
	}
	var stolen *http.Cookie // the victim's first refresh cookie
	cases := []struct {
		name   string
		revoke func(a *identityAPI, c *http.Client, victim, other tokensReply)
	}{
		{"sign-out", func(a *identityAPI, c *http.Client, victim, _ tokensReply) {
			a.ok(c, http.StatusOK, "POST", "/api/auth/signout", victim.IDToken, nil, nil)
		}},
		{"password change on another device", func(a *identityAPI, _ *http.Client, _, other tokensReply) {
			a.ok(nil, http.StatusOK, "POST", "/api/me/password", other.IDToken, map[string]string{"password": pw + " changed"}, nil)
		}},
		{"refresh token replayed after its grace", func(a *identityAPI, c *http.Client, _, _ tokensReply) {
			a.ok(c, http.StatusOK, "POST", "/api/auth/token", "", nil, nil) // the victim's cookie rotates
			a.Clock.Add(core.RefreshGrace + time.Second)
			thief := browserClient(t)
			u, _ := url.Parse(a.srv.URL() + "/api/auth/token")
			thief.Jar.SetCookies(u, []*http.Cookie{{Name: stolen.Name, Value: stolen.Value, Path: "/api/auth"}})
			a.fail(thief, http.StatusUnauthorized, core.EInvalidToken, "POST", "/api/auth/token", "", nil)
		}},
		{"revoked from another session's list (Settings, Security)", func(a *identityAPI, _ *http.Client, victim, other tokensReply) {
			var list web.SessionsJSON
			a.ok(nil, http.StatusOK, "GET", "/api/me/sessions", other.IDToken, nil, &list)
			for _, x := range list.Sessions {
				if !x.Current {
					a.ok(nil, http.StatusOK, "DELETE", "/api/me/sessions/"+x.ID, other.IDToken, nil, nil)
				}
			}
		}},
		{"account deletion", func(a *identityAPI, _ *http.Client, victim, _ tokensReply) {
			a.ok(nil, http.StatusOK, "DELETE", "/api/me", victim.IDToken, nil, nil)
		}},
		{"the store ends the user's sessions (users disable)", func(a *identityAPI, _ *http.Client, victim, _ tokensReply) {
			if err := a.DB.DeleteUserSessions(context.Background(), victim.User.UID, ""); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := mustIdentityAPI(t)
			c := browserClient(t)
			a.signUp(nil, "ann@example.com")
			var victim tokensReply
			resp := a.ok(c, http.StatusOK, "POST", "/api/auth/signin", "", map[string]string{"email": "ann@example.com", "password": pw}, &victim)
			stolen = refreshCookie(t, resp)
			other := a.signIn(nil, "ann@example.com", pw)
			var m messageReply
			a.ok(nil, http.StatusCreated, "POST", "/api/messages", victim.IDToken, map[string]string{
				"title": "Warm", "name": "Ann", "recipient": "ann@example.com", "message": "Hello later.",
			}, &m)
			warm(a, victim.IDToken, m.ID)
			tc.revoke(a, c, victim, other)
			for _, p := range reads(m.ID) {
				a.fail(nil, http.StatusUnauthorized, core.EInvalidToken, "GET", p, victim.IDToken, nil)
			}
		})
	}
}

package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/web"
)

// Settings → Security over HTTP: the list shows networks, never addresses;
// ending another session needs a recent login, another user's is not
// found; ending one's own deletes the cookie; the alerts switch.
func TestSessionsAPI(t *testing.T) {
	a := mustIdentityAPI(t)
	first := a.signUp(nil, "ann@example.com")
	c := browserClient(t)
	var mine tokensReply
	a.ok(c, http.StatusOK, "POST", "/api/auth/signin", "", map[string]string{"email": "ann@example.com", "password": pw}, &mine)

	var list web.SessionsJSON
	a.ok(nil, http.StatusOK, "GET", "/api/me/sessions", mine.IDToken, nil, &list)
	if len(list.Sessions) != 2 || !list.SignInAlerts {
		t.Fatalf("GET /api/me/sessions = %+v", list)
	}
	var other web.SessionJSON
	for _, x := range list.Sessions {
		if x.Network != "127.0.0.0/24" || x.CreatedAt == 0 || x.LastSeenAt == 0 || x.Device == "" {
			t.Fatalf("session %+v", x)
		}
		if !x.Current {
			other = x
		}
	}
	_, raw := a.raw("GET", "/api/me/sessions", map[string]string{"Authorization": "Bearer " + mine.IDToken}, "")
	if strings.Contains(raw, "127.0.0.1") {
		t.Fatalf("the list shows an address: %s", raw)
	}

	bob := a.signUp(nil, "bob@example.com")
	a.fail(nil, http.StatusNotFound, core.ENotFound, "DELETE", "/api/me/sessions/"+other.ID, bob.IDToken, nil)
	a.ok(nil, http.StatusOK, "GET", "/api/me", first.IDToken, nil, nil)

	a.Clock.Add(core.RecentLoginWindow + time.Minute)
	a.fail(nil, http.StatusUnauthorized, core.ERequiresRecentLogin, "DELETE", "/api/me/sessions/"+other.ID, mine.IDToken, nil)
	a.fail(nil, http.StatusUnauthorized, core.ERequiresRecentLogin, "PUT", "/api/me/sign-in-alerts", mine.IDToken, map[string]any{"signInAlerts": false})
	a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, "PUT", "/api/me/sign-in-alerts", mine.IDToken, map[string]any{})
	var re tokensReply
	a.ok(nil, http.StatusOK, "POST", "/api/auth/reauth", mine.IDToken, map[string]string{"password": pw}, &re)
	var revoked web.RevokedSessionsJSON
	a.ok(nil, http.StatusOK, "POST", "/api/me/sessions/revoke-others", re.IDToken, nil, &revoked)
	if revoked.Revoked != 1 {
		t.Fatalf("revoke-others = %+v", revoked)
	}
	a.fail(nil, http.StatusUnauthorized, core.EInvalidToken, "GET", "/api/me", first.IDToken, nil)
	var alerts web.SignInAlertsJSON
	a.ok(nil, http.StatusOK, "PUT", "/api/me/sign-in-alerts", re.IDToken, map[string]any{"signInAlerts": false}, &alerts)
	if alerts.SignInAlerts == nil || *alerts.SignInAlerts {
		t.Fatalf("alerts %+v", alerts)
	}

	// Ending its own session is signing out: the cookie goes too.
	a.ok(nil, http.StatusOK, "GET", "/api/me/sessions", re.IDToken, nil, &list)
	resp := a.ok(c, http.StatusOK, "DELETE", "/api/me/sessions/"+list.Sessions[0].ID, re.IDToken, nil, nil)
	gone := false
	for _, ck := range resp.Cookies() {
		if strings.Contains(ck.Name, "refresh") && ck.MaxAge < 0 {
			gone = true
		}
	}
	if !gone {
		t.Fatalf("the refresh cookie was not deleted: %v", resp.Cookies())
	}
	a.fail(nil, http.StatusUnauthorized, core.EInvalidToken, "GET", "/api/me/sessions", re.IDToken, nil)
}

package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/web"
)

// The device flow over HTTP, with RFC 8628's answers to the poller: the
// terminal asks for codes, polls (pending, slow down), its owner looks the
// code up and approves it from a session, the next poll gets ann's token
// once, and the token works.
func TestDeviceFlowAPI(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.signUp(nil, "ann@example.com")

	var da web.DeviceAuthorizationJSON
	a.ok(nil, http.StatusOK, "POST", "/api/device/code", "", map[string]string{"clientName": "sendlater on tower"}, &da)
	if da.DeviceCode == "" || len(da.UserCode) != 9 || da.VerificationURI != identityBaseURL+"/device" ||
		da.VerificationURIComplete != identityBaseURL+"/device?code="+da.UserCode || da.ExpiresIn != 600 || da.Interval != 5 {
		t.Fatalf("authorization %+v", da)
	}
	a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, "POST", "/api/device/code", "", map[string]string{"clientName": ""})
	poll := map[string]string{"deviceCode": da.DeviceCode}
	a.fail(nil, http.StatusBadRequest, core.EAuthorizationPending, "POST", "/api/device/token", "", poll)
	resp, _ := a.fail(nil, http.StatusBadRequest, core.ESlowDown, "POST", "/api/device/token", "", poll)
	if resp.Header.Get("Retry-After") != "10" {
		t.Fatalf("slow_down's Retry-After %q", resp.Header.Get("Retry-After"))
	}

	// The page: a wrong code names the field; the right one shows what asks.
	_, env := a.fail(nil, http.StatusBadRequest, core.EInvalidUserCode, "POST", "/api/me/device", ann.IDToken, map[string]string{"userCode": "BBBB-BBBB"})
	if env.Fields["userCode"] == "" {
		t.Fatalf("no field in %+v", env)
	}
	a.fail(nil, http.StatusUnauthorized, core.EInvalidToken, "POST", "/api/me/device", "", map[string]string{"userCode": da.UserCode})
	var req web.DeviceRequestJSON
	a.ok(nil, http.StatusOK, "POST", "/api/me/device", ann.IDToken, map[string]string{"userCode": strings.ToLower(da.UserCode)}, &req)
	if req.ClientName != "sendlater on tower" || req.Network != "127.0.0.0/24" || len(req.Scopes) != 2 {
		t.Fatalf("request %+v", req)
	}
	a.ok(nil, http.StatusOK, "POST", "/api/me/device/approve", ann.IDToken, map[string]string{"userCode": da.UserCode}, &req)

	a.Clock.Add(15 * time.Second)
	var g web.DeviceGrantJSON
	a.ok(nil, http.StatusOK, "POST", "/api/device/token", "", poll, &g)
	if g.Email != "ann@example.com" || g.Name != "sendlater on tower" || !strings.HasPrefix(g.Token, core.AccessTokenPrefix) {
		t.Fatalf("grant %+v", g)
	}
	a.ok(nil, http.StatusOK, "GET", "/api/messages", g.Token, nil, nil)
	a.Clock.Add(15 * time.Second)
	a.fail(nil, http.StatusBadRequest, core.EExpiredToken, "POST", "/api/device/token", "", poll)

	// An access token approves nothing; a denial reaches the poller.
	a.ok(nil, http.StatusOK, "POST", "/api/device/code", "", map[string]string{"clientName": "laptop"}, &da)
	a.fail(nil, http.StatusUnauthorized, core.ERequiresRecentLogin, "POST", "/api/me/device/approve", g.Token, map[string]string{"userCode": da.UserCode})
	a.ok(nil, http.StatusOK, "POST", "/api/me/device/deny", ann.IDToken, map[string]string{"userCode": da.UserCode}, nil)
	a.fail(nil, http.StatusBadRequest, core.EAccessDenied, "POST", "/api/device/token", "", map[string]string{"deviceCode": da.DeviceCode})
}

package core_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// terminal is the computer `sendlater login --device` runs on.
var terminal = core.Client{Address: "198.51.100.7", UserAgent: "sendlater/1.4.0 (Linux)"}

// requestCode starts the device flow from the terminal.
func requestCode(t *testing.T, e *authEnv) *core.DeviceAuthorization {
	t.Helper()
	da, err := e.Auth.RequestDeviceCode(e.Ctx, "sendlater on tower", terminal)
	if err != nil {
		t.Fatal(err)
	}
	return da
}

// poll waits the interval and polls once.
func poll(e *authEnv, da *core.DeviceAuthorization, wait time.Duration) (*core.DeviceGrant, error) {
	e.Clock.Add(wait)
	return e.Auth.PollDeviceCode(e.Ctx, da.DeviceCode)
}

func TestDeviceFlowCodes(t *testing.T) {
	e := MustAuthEnv(t)
	da := requestCode(t, e)
	if len(da.DeviceCode) < 43 || len(da.UserCode) != 9 || da.UserCode[4] != '-' {
		t.Fatalf("codes %q %q", da.DeviceCode, da.UserCode)
	}
	for _, r := range strings.ReplaceAll(da.UserCode, "-", "") {
		if !strings.ContainsRune(core.UserCodeAlphabet, r) {
			t.Fatalf("user code %q has %q", da.UserCode, r)
		}
	}
	if da.VerificationURI != baseURL+"/device" || da.VerificationURIComplete != baseURL+"/device?code="+da.UserCode ||
		da.Interval != 5*time.Second || !da.ExpiresAt.Equal(e.Clock.Now().Add(10*time.Minute)) {
		t.Fatalf("authorization %+v", da)
	}
	// Typed in lower case, without the dash, with spaces: the same code.
	for _, typed := range []string{strings.ToLower(da.UserCode), strings.ReplaceAll(da.UserCode, "-", " ")} {
		if code, ok := core.NormalizeUserCode(typed); !ok || core.FormatUserCode(code) != da.UserCode {
			t.Fatalf("NormalizeUserCode(%q) = %q, %v", typed, code, ok)
		}
	}
	if _, ok := core.NormalizeUserCode("BCDF-GHJ0"); ok {
		t.Fatal("a 0 is no letter of a user code")
	}
	// The name is the token's: one line.
	_, err := e.Auth.RequestDeviceCode(e.Ctx, "two\nlines", terminal)
	wantFields(t, err, map[string]string{"clientName": "The name must be one line of at most 100 characters"})
	// A client asks for 10 pairs in 15 minutes, not more.
	for range 9 {
		requestCode(t, e)
	}
	_, err = e.Auth.RequestDeviceCode(e.Ctx, "sendlater on tower", terminal)
	wantCode(t, err, core.ETooManyRequests)
}

// The whole flow: pending, approved, the approver's token once.
func TestDeviceFlowGivesTheApproversTokenOnce(t *testing.T) {
	e := MustAuthEnv(t)
	ann := verifiedAnn(t, e)
	da := requestCode(t, e)

	_, err := e.Auth.PollDeviceCode(e.Ctx, da.DeviceCode)
	wantCode(t, err, core.EAuthorizationPending)
	req, err := e.Auth.LookUpDeviceCode(e.Acting(ann), strings.ToLower(da.UserCode), laptop)
	if err != nil {
		t.Fatal(err)
	}
	if req.ClientName != "sendlater on tower" || req.Device != "Sendlater CLI on Linux" || req.Network != "198.51.100.0/24" ||
		strings.Join(req.Scopes, " ") != "messages:read messages:write" {
		t.Fatalf("request %+v", req)
	}
	if _, err := e.Auth.ApproveDeviceCode(e.Acting(ann), da.UserCode, laptop); err != nil {
		t.Fatal(err)
	}
	g, err := poll(e, da, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if g.Email != "ann@example.com" || g.Token.Name != "sendlater on tower" || !strings.HasPrefix(g.Secret, core.AccessTokenPrefix) ||
		strings.Join(g.Token.Scopes, " ") != "messages:read messages:write" {
		t.Fatalf("grant %+v", g)
	}
	id := e.MustAuthenticate(t, g.Secret)
	if id.UserID != ann.UserID || id.TokenID != g.Token.ID {
		t.Fatalf("the token is %+v", id)
	}
	// Single use: the next poll, however late, gets nothing.
	_, err = poll(e, da, 5*time.Second)
	wantCode(t, err, core.EExpiredToken)
	_, err = e.Auth.ApproveDeviceCode(e.Acting(ann), da.UserCode, laptop)
	wantCode(t, err, core.EInvalidUserCode)
	// A terminal is a new device: its owner hears of it.
	p := e.nextEmail(t, "ann@example.com")
	if !strings.Contains(p.Subject, "new sign-in") || !strings.Contains(p.Text, "Sendlater CLI on Linux") ||
		!strings.Contains(p.Text, "198.51.100.0/24") {
		t.Fatalf("email %q:\n%s", p.Subject, p.Text)
	}
	e.NoMoreEmail(t)
}

func TestDeviceFlowCodesExpire(t *testing.T) {
	e := MustAuthEnv(t)
	ann := verifiedAnn(t, e)
	da := requestCode(t, e)
	e.Clock.Add(core.DeviceCodeTTL)
	_, err := e.Auth.LookUpDeviceCode(e.Acting(ann), da.UserCode, laptop)
	wantCode(t, err, core.EInvalidUserCode)
	_, err = e.Auth.ApproveDeviceCode(e.Acting(e.MustAuthenticate(t, signIn(t, e))), da.UserCode, laptop)
	wantCode(t, err, core.EInvalidUserCode)
	_, err = e.Auth.PollDeviceCode(e.Ctx, da.DeviceCode)
	wantCode(t, err, core.EExpiredToken)

	// Approved but not collected in time: gone as well.
	da = requestCode(t, e)
	e.Clock.Add(core.DeviceCodeTTL - time.Second)
	if _, err := e.Auth.ApproveDeviceCode(e.Acting(e.MustAuthenticate(t, signIn(t, e))), da.UserCode, laptop); err != nil {
		t.Fatal(err)
	}
	_, err = poll(e, da, time.Second)
	wantCode(t, err, core.EExpiredToken)
	// The sweep forgets expired requests.
	requestCode(t, e)
	e.Clock.Add(core.DeviceCodeTTL + time.Second)
	n, err := e.Graph.Sweeper.Sweep(e.Ctx)
	if err != nil || n.DeviceCodes != 1 {
		t.Fatalf("sweep %+v %v", n, err)
	}
}

// signIn signs ann in again from the laptop: a recent sign-in.
func signIn(t *testing.T, e *authEnv) string {
	t.Helper()
	tok, _ := signInFrom(t, e, laptop)
	return tok.IDToken
}

func TestDeviceFlowDenied(t *testing.T) {
	e := MustAuthEnv(t)
	ann := verifiedAnn(t, e)
	da := requestCode(t, e)
	// Denying needs no recent sign-in.
	e.Clock.Add(core.RecentLoginWindow + time.Second)
	if err := e.Auth.DenyDeviceCode(e.Acting(ann), da.UserCode, laptop); err != nil {
		t.Fatal(err)
	}
	_, err := e.Auth.PollDeviceCode(e.Ctx, da.DeviceCode)
	wantCode(t, err, core.EAccessDenied)
	_, err = poll(e, da, time.Minute)
	wantCode(t, err, core.EExpiredToken)
	_, err = e.Auth.ApproveDeviceCode(e.Acting(ann), da.UserCode, laptop)
	wantCode(t, err, core.ERequiresRecentLogin)
}

// A poller that does not wait its interval is told to slow down, and its
// interval grows by 5 seconds each time (RFC 8628 §3.5).
func TestDeviceFlowSlowDown(t *testing.T) {
	e := MustAuthEnv(t)
	da := requestCode(t, e)
	_, err := e.Auth.PollDeviceCode(e.Ctx, da.DeviceCode)
	wantCode(t, err, core.EAuthorizationPending)
	_, err = poll(e, da, 4*time.Second)
	if ce := wantCode(t, err, core.ESlowDown); ce.RetryAfter != 10*time.Second {
		t.Fatalf("slow down to %v", ce.RetryAfter)
	}
	_, err = poll(e, da, 9*time.Second)
	if ce := wantCode(t, err, core.ESlowDown); ce.RetryAfter != 15*time.Second {
		t.Fatalf("slow down to %v", ce.RetryAfter)
	}
	_, err = poll(e, da, 15*time.Second)
	wantCode(t, err, core.EAuthorizationPending)
}

// What ann approved gives ann's token: bea can neither see nor take it.
func TestDeviceFlowApprovalIsTheApproversOnly(t *testing.T) {
	e := MustAuthEnv(t)
	ann := verifiedAnn(t, e)
	btok := e.MustSignUp(t, "bea@example.com", goodPassword)
	bea := e.MustAuthenticate(t, btok.IDToken)
	da := requestCode(t, e)
	if _, err := e.Auth.ApproveDeviceCode(e.Acting(ann), da.UserCode, laptop); err != nil {
		t.Fatal(err)
	}
	_, err := e.Auth.LookUpDeviceCode(e.Acting(bea), da.UserCode, office)
	wantCode(t, err, core.EInvalidUserCode)
	_, err = e.Auth.ApproveDeviceCode(e.Acting(bea), da.UserCode, office)
	wantCode(t, err, core.EInvalidUserCode)
	wantCode(t, e.Auth.DenyDeviceCode(e.Acting(bea), da.UserCode, office), core.EInvalidUserCode)
	g, err := poll(e, da, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if id := e.MustAuthenticate(t, g.Secret); id.UserID != ann.UserID || g.Email != "ann@example.com" {
		t.Fatalf("the token is %+v for %s", id, g.Email)
	}
	ts, err := e.Auth.ListAccessTokens(e.Acting(bea))
	if err != nil || len(ts) != 0 {
		t.Fatalf("bea's tokens %+v %v", ts, err)
	}
}

// Only a session approves: a recent one (a token is made), never an
// access token nor an operator; and the approval lasts only as long as the
// session that gave it.
func TestDeviceFlowApprovalNeedsARecentSession(t *testing.T) {
	e := MustAuthEnv(t)
	ann := verifiedAnn(t, e)
	da := requestCode(t, e)
	pat, secret, err := e.Auth.CreateAccessToken(e.Acting(ann), "all", core.AllScopes)
	if err != nil {
		t.Fatal(err)
	}
	_ = pat
	_, err = e.Auth.ApproveDeviceCode(e.Acting(e.MustAuthenticate(t, secret)), da.UserCode, laptop)
	wantCode(t, err, core.ERequiresRecentLogin)
	_, err = e.Auth.LookUpDeviceCode(e.Acting(e.MustAuthenticate(t, secret)), da.UserCode, laptop)
	wantCode(t, err, core.ERequiresRecentLogin)
	_, err = e.Auth.ApproveDeviceCode(e.Acting(&core.Identity{UserID: ann.UserID, Operator: "root"}), da.UserCode, laptop)
	wantCode(t, err, core.EOperatorNotAllowed)
	e.Clock.Add(core.RecentLoginWindow + time.Second)
	_, err = e.Auth.ApproveDeviceCode(e.Acting(ann), da.UserCode, laptop)
	wantCode(t, err, core.ERequiresRecentLogin)

	// A fresh sign-in approves; signing that session out before the poll
	// voids the approval.
	fresh := e.MustAuthenticate(t, signIn(t, e))
	if _, err := e.Auth.ApproveDeviceCode(e.Acting(fresh), da.UserCode, laptop); err != nil {
		t.Fatal(err)
	}
	if err := e.Auth.SignOut(e.Acting(fresh)); err != nil {
		t.Fatal(err)
	}
	_, err = poll(e, da, 5*time.Second)
	wantCode(t, err, core.EAccessDenied)
	_, err = poll(e, da, 5*time.Second)
	wantCode(t, err, core.EExpiredToken)
}

// Guessing user codes: 10 wrong ones per client in 15 minutes, 20 per
// account in an hour; then even the right one waits.
func TestDeviceFlowWrongUserCodesAreLimited(t *testing.T) {
	e := MustAuthEnv(t)
	ann := verifiedAnn(t, e)
	da := requestCode(t, e)
	wrong := "BBBB-BBBB"
	if wrong == da.UserCode {
		wrong = "CCCC-CCCC"
	}
	_, err := e.Auth.LookUpDeviceCode(e.Acting(ann), "BCD", laptop)
	wantCode(t, err, core.EValidation) // not a code: not counted
	for range 10 {
		_, err := e.Auth.LookUpDeviceCode(e.Acting(ann), wrong, laptop)
		wantCode(t, err, core.EInvalidUserCode)
	}
	_, err = e.Auth.LookUpDeviceCode(e.Acting(ann), da.UserCode, laptop)
	if ce := wantCode(t, err, core.ETooManyRequests); ce.RetryAfter <= 0 {
		t.Fatal("no Retry-After")
	}
	// Another client of the account still may; the account's limit next.
	for range 10 {
		_, err := e.Auth.LookUpDeviceCode(e.Acting(ann), wrong, office)
		wantCode(t, err, core.EInvalidUserCode)
	}
	_, err = e.Auth.LookUpDeviceCode(e.Acting(ann), da.UserCode, phone)
	wantCode(t, err, core.ETooManyRequests)
	// The window passes.
	e.Clock.Add(time.Hour)
	fresh := e.MustAuthenticate(t, signIn(t, e))
	if _, err := e.Auth.ApproveDeviceCode(e.Acting(fresh), requestCode(t, e).UserCode, laptop); err != nil {
		t.Fatal(err)
	}
}

package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/oauth/oauthtest"
	"github.com/sendlater/sendlater/web"
)

type enrolReply struct {
	Secret string `json:"secret"`
	URI    string `json:"uri"`
	QR     string `json:"qr"`
}

type recoveryReply struct {
	RecoveryCodes []string `json:"recoveryCodes"`
}

type secondFactorReply struct {
	IDToken      string `json:"idToken"`
	SecondFactor *struct {
		Token     string   `json:"token"`
		ExpiresAt int64    `json:"expiresAt"`
		Methods   []string `json:"methods"`
	} `json:"secondFactor"`
}

// mustEnrolOverHTTP turns the authenticator app on for a new account, as
// the settings page does, and returns its secret and recovery codes.
func (a *identityAPI) mustEnrolOverHTTP(email string) (secret string, codes []string) {
	a.t.Helper()
	tok := a.signUp(nil, email)
	var en enrolReply
	a.ok(nil, 200, "POST", "/api/me/totp", tok.IDToken, nil, &en)
	if !strings.HasPrefix(en.QR, "data:image/png;base64,") || !strings.HasPrefix(en.URI, "otpauth://totp/") || en.Secret == "" {
		a.t.Fatalf("enrolment %+v", en)
	}
	a.fail(nil, 422, core.EValidation, "POST", "/api/me/totp/confirm", tok.IDToken, map[string]string{"code": "12"})
	code, _ := totp.GenerateCode(en.Secret, a.Clock.Now())
	var rc recoveryReply
	a.ok(nil, 200, "POST", "/api/me/totp/confirm", tok.IDToken, map[string]string{"code": code}, &rc)
	if len(rc.RecoveryCodes) != core.RecoveryCodeCount {
		a.t.Fatalf("recovery codes %v", rc.RecoveryCodes)
	}
	var me web.SessionUserJSON
	a.ok(nil, 200, "GET", "/api/me", tok.IDToken, nil, &me)
	if !me.TOTP || me.RecoveryCodes != core.RecoveryCodeCount {
		a.t.Fatalf("me after enrolment: totp %v, %d codes", me.TOTP, me.RecoveryCodes)
	}
	a.email(email) // the notice
	return en.Secret, rc.RecoveryCodes
}

// A password sign-in to an account with the app gets a challenge and no
// cookie; the challenge with a code gets the session.
func TestSecondFactorOverHTTP(t *testing.T) {
	a := mustIdentityAPI(t)
	secret, codes := a.mustEnrolOverHTTP("ann@example.com")
	a.Clock.Add(2 * core.TOTPPeriod)

	b := browserClient(t)
	var sf secondFactorReply
	resp := a.ok(b, 200, "POST", "/api/auth/signin", "", map[string]string{"email": "ann@example.com", "password": pw}, &sf)
	if sf.IDToken != "" || sf.SecondFactor == nil || sf.SecondFactor.Token == "" ||
		strings.Join(sf.SecondFactor.Methods, ",") != "totp,recovery" || len(resp.Cookies()) != 0 {
		t.Fatalf("sign-in with a second factor: %+v, cookies %v", sf, resp.Cookies())
	}
	// No session yet: the refresh endpoint knows nothing.
	a.fail(b, 401, core.EInvalidToken, "POST", "/api/auth/token", "", nil)
	a.fail(b, 401, core.EWrongCredentials, "POST", "/api/auth/second-factor", "", map[string]string{"token": sf.SecondFactor.Token, "code": "000000"})
	code, _ := totp.GenerateCode(secret, a.Clock.Now())
	var tok struct {
		tokensReply
		RecoveryCodesLeft *int `json:"recoveryCodesLeft"`
	}
	a.ok(b, 200, "POST", "/api/auth/second-factor", "", map[string]string{"token": sf.SecondFactor.Token, "code": code}, &tok)
	if tok.IDToken == "" || tok.User == nil || !tok.User.TOTP || tok.RecoveryCodesLeft != nil {
		t.Fatalf("after the code: %+v", tok)
	}
	a.ok(b, 200, "POST", "/api/auth/token", "", nil, nil) // the cookie is set

	// A recovery code says how many remain.
	a.ok(nil, 200, "POST", "/api/auth/signin", "", map[string]string{"email": "ann@example.com", "password": pw}, &sf)
	a.ok(nil, 200, "POST", "/api/auth/second-factor", "", map[string]string{"token": sf.SecondFactor.Token, "code": codes[0]}, &tok)
	if tok.RecoveryCodesLeft == nil || *tok.RecoveryCodesLeft != 9 {
		t.Fatalf("recovery codes left: %v", tok.RecoveryCodesLeft)
	}
	a.email("ann@example.com")

	// New recovery codes and turning the app off need a recent login.
	var rc recoveryReply
	a.ok(nil, 200, "POST", "/api/me/recovery-codes", tok.IDToken, nil, &rc)
	if len(rc.RecoveryCodes) != core.RecoveryCodeCount {
		t.Fatalf("regenerated %v", rc.RecoveryCodes)
	}
	a.Clock.Add(core.RecentLoginWindow + time.Second)
	a.fail(nil, 401, core.ERequiresRecentLogin, "DELETE", "/api/me/totp", tok.IDToken, nil)
	var re tokensReply
	a.ok(nil, 200, "POST", "/api/auth/reauth", tok.IDToken, map[string]string{"password": pw}, &re)
	a.ok(nil, 200, "DELETE", "/api/me/totp", re.IDToken, nil, nil)
	if got := a.signIn(nil, "ann@example.com", pw); got.IDToken == "" {
		t.Fatal("no session after turning the app off")
	}
}

// The Go client (`sendlater login`) asks for the code and signs in.
func TestSignInClientAsksForTheCode(t *testing.T) {
	a := mustIdentityAPI(t)
	secret, _ := a.mustEnrolOverHTTP("ann@example.com")
	a.Clock.Add(2 * core.TOTPPeriod)
	ctx := context.Background()
	if _, err := web.SignIn(ctx, a.srv.URL(), "ann@example.com", pw, 10*time.Second); err == nil {
		t.Fatal("a sign-in that cannot ask for a code succeeded")
	}
	asked := 0
	session, err := web.SignInWithCode(ctx, a.srv.URL(), "ann@example.com", pw, 10*time.Second, func(methods []string) (string, error) {
		asked++
		if asked == 1 {
			return "000000", nil // a typo: asked again
		}
		return totp.GenerateCode(secret, a.Clock.Now())
	})
	if err != nil || asked != 2 {
		t.Fatalf("sign-in with a code: %v, asked %d times", err, asked)
	}
	me, err := session.Me(ctx)
	if err != nil || me.Email != "ann@example.com" {
		t.Fatalf("me: %+v, %v", me, err)
	}
}

func TestSecondFactorEndpointsNeedABearer(t *testing.T) {
	a := mustIdentityAPI(t)
	for _, ep := range []struct{ method, path string }{
		{"POST", "/api/me/totp"}, {"POST", "/api/me/totp/confirm"}, {"DELETE", "/api/me/totp"}, {"POST", "/api/me/recovery-codes"},
	} {
		a.fail(nil, http.StatusUnauthorized, core.EInvalidToken, ep.method, ep.path, "", nil)
	}
}

// A provider's sign-in to an account with the app: the popup hands over
// the challenge and sets no session; the challenge with a code signs in.
func TestSocialSignInAsksForTheSecondFactor(t *testing.T) {
	a := mustSocialAPI(t)
	b := a.browser()
	ada := oauthtest.NewPerson("1001", "ada@example.com", true)
	wantPopup(t, "first sign-in", a.social(b, core.ProviderGoogle, ada), "")
	tok := b.session()
	var en enrolReply
	a.ok(nil, 200, "POST", "/api/me/totp", tok.IDToken, nil, &en)
	code, _ := totp.GenerateCode(en.Secret, a.Clock.Now())
	a.ok(nil, 200, "POST", "/api/me/totp/confirm", tok.IDToken, map[string]string{"code": code}, nil)
	a.email("ada@example.com") // the notice
	a.Clock.Add(2 * core.TOTPPeriod)

	again := a.browser()
	res := a.social(again, core.ProviderGoogle, ada)
	if res.Status != "second-factor" || res.SecondFactor == nil || res.SecondFactor.Token == "" || res.Code != "" {
		t.Fatalf("popup for an account with the app: %+v", res)
	}
	if resp, env := again.api("POST", "/api/auth/token", "", nil); resp.StatusCode != 401 || env.Code != core.EInvalidToken {
		t.Fatalf("a session after the popup alone: %d %+v", resp.StatusCode, env)
	}
	code, _ = totp.GenerateCode(en.Secret, a.Clock.Now())
	resp, env := again.api("POST", "/api/auth/second-factor", "", map[string]string{"token": res.SecondFactor.Token, "code": code})
	if resp.StatusCode != 200 {
		t.Fatalf("the code: %d %+v", resp.StatusCode, env)
	}
	if got := again.session(); got.User.UID != tok.User.UID {
		t.Fatalf("after the code: %+v", got)
	}
}

package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/web"
)

func TestRecentLoginAndPasswordChange(t *testing.T) {
	a := mustIdentityAPI(t)
	c := browserClient(t)
	tok := a.signUp(c, "ann@example.com")
	other := a.signIn(nil, "ann@example.com", pw)
	var pat struct{ Token string }
	a.ok(nil, 201, "POST", "/api/me/tokens", tok.IDToken, map[string]string{"name": "laptop"}, &pat)

	a.Clock.Add(core.RecentLoginWindow + time.Second)
	newPW := map[string]string{"password": "a fresh unusual passphrase"}
	a.fail(nil, 401, core.ERequiresRecentLogin, "POST", "/api/me/password", tok.IDToken, newPW)
	_, env := a.fail(nil, 422, core.EValidation, "POST", "/api/auth/reauth", tok.IDToken, map[string]string{})
	if env.Fields["password"] != "Please enter your password" {
		t.Fatalf("fields %v", env.Fields)
	}
	a.fail(nil, 401, core.EWrongCredentials, "POST", "/api/auth/reauth", tok.IDToken, map[string]string{"password": "wrong password"})
	var re tokensReply
	resp := a.ok(c, 200, "POST", "/api/auth/reauth", tok.IDToken, map[string]string{"password": pw}, &re)
	if re.IDToken == "" || re.User != nil || len(resp.Cookies()) != 0 {
		t.Fatalf("reauth %+v, cookies %v", re, resp.Cookies())
	}
	a.fail(nil, 422, core.EWeakPassword, "POST", "/api/me/password", re.IDToken, map[string]string{"password": "abc123"})
	_, env = a.fail(nil, 422, core.EValidation, "POST", "/api/me/password", re.IDToken, map[string]string{})
	if env.Fields["password"] != "Please enter a password" {
		t.Fatalf("fields %v", env.Fields)
	}
	a.ok(nil, 200, "POST", "/api/me/password", re.IDToken, newPW, nil)

	a.ok(nil, 200, "GET", "/api/me", re.IDToken, nil, nil)
	a.ok(c, 200, "POST", "/api/auth/token", "", nil, nil) // this browser goes on
	a.fail(nil, 401, core.EInvalidToken, "GET", "/api/me", other.IDToken, nil)
	a.fail(nil, 401, core.EInvalidToken, "GET", "/api/me", pat.Token, nil)
	a.fail(nil, 401, core.EWrongCredentials, "POST", "/api/auth/signin", "", map[string]string{"email": "ann@example.com", "password": pw})
	a.signIn(nil, "ann@example.com", newPW["password"])
	a.noMoreEmail()
}

func TestPasswordResetByEmail(t *testing.T) {
	a := mustIdentityAPI(t)
	tok := a.signUp(nil, "ann@example.com")

	a.ok(nil, 200, "POST", "/api/auth/password-reset", "", map[string]string{"email": "nobody@example.com"}, nil)
	a.noMoreEmail()
	a.ok(nil, 200, "POST", "/api/auth/password-reset", "", map[string]string{"email": "ann@example.com"}, nil)
	mail := a.email("ann@example.com")
	if mail.Text == "" || mail.HTML == "" {
		t.Fatal("the reset email lacks a text or HTML part")
	}
	code := a.followLink(mail, core.ModeResetPassword)
	var info web.ActionInfoJSON
	a.ok(nil, 200, "POST", "/api/auth/action/check", "", map[string]string{"oobCode": code}, &info)
	if info.Mode != core.ModeResetPassword || info.Email != "ann@example.com" {
		t.Fatalf("check %+v", info)
	}
	a.fail(nil, 422, core.EWeakPassword, "POST", "/api/auth/password-reset/confirm", "", map[string]string{"oobCode": code, "password": "123456789"})
	a.ok(nil, 200, "POST", "/api/auth/password-reset/confirm", "", map[string]string{"oobCode": code, "password": "the new passphrase"}, nil)
	a.email("ann@example.com") // never verified: the reset claimed the account (core/identity_claim.go)
	a.fail(nil, 401, core.EInvalidToken, "GET", "/api/me", tok.IDToken, nil)
	a.fail(nil, 400, core.EInvalidActionCode, "POST", "/api/auth/password-reset/confirm", "", map[string]string{"oobCode": code, "password": "another passphrase"})
	a.signIn(nil, "ann@example.com", "the new passphrase")

	// Expired after an hour.
	a.ok(nil, 200, "POST", "/api/auth/password-reset", "", map[string]string{"email": "ann@example.com"}, nil)
	code = a.followLink(a.email("ann@example.com"), core.ModeResetPassword)
	a.Clock.Add(core.ResetCodeTTL + time.Second)
	a.fail(nil, 400, core.EExpiredActionCode, "POST", "/api/auth/action/check", "", map[string]string{"oobCode": code})
	a.fail(nil, 400, core.EExpiredActionCode, "POST", "/api/auth/password-reset/confirm", "", map[string]string{"oobCode": code, "password": "another passphrase"})
}

func TestProfileAndEmailChangeRecovery(t *testing.T) {
	a := mustIdentityAPI(t)
	var tok tokensReply
	a.ok(nil, http.StatusCreated, "POST", "/api/auth/signup", "", map[string]string{"email": "ann@example.com", "password": pw}, &tok)
	// Verified, else no link would restore the old address.
	a.ok(nil, http.StatusOK, "POST", "/api/auth/action/apply", "", map[string]string{"oobCode": a.followLink(a.email("ann@example.com"), core.ModeVerifyEmail)}, nil)

	_, env := a.fail(nil, 422, core.EValidation, "PATCH", "/api/me", tok.IDToken, map[string]string{"name": "", "email": ""})
	if env.Fields["name"] != "Please enter your name" || env.Fields["email"] != "Please enter your email" {
		t.Fatalf("fields %v", env.Fields)
	}
	var me web.SessionUserJSON
	a.ok(nil, 200, "PATCH", "/api/me", tok.IDToken, map[string]string{
		"name": "Ann B", "picture": "https://example.com/a.png", "timezone": "Asia/Tokyo",
	}, &me)
	if me.Name != "Ann B" || me.Picture != "https://example.com/a.png" || me.Timezone != "Asia/Tokyo" {
		t.Fatalf("me %+v", me)
	}

	a.ok(nil, 200, "PATCH", "/api/me", tok.IDToken, map[string]string{"email": "new@example.com"}, &me)
	if me.Email != "new@example.com" || me.EmailVerified {
		t.Fatalf("me %+v", me)
	}
	both := a.NextEach(t, "new@example.com", "ann@example.com")
	verify, notice := a.followLink(both[0], core.ModeVerifyEmail), both[1]
	recover := a.followLink(notice, core.ModeRecoverEmail)
	a.ok(nil, 200, "POST", "/api/auth/action/apply", "", map[string]string{"oobCode": verify}, nil)

	var info web.ActionInfoJSON
	a.ok(nil, 200, "POST", "/api/auth/action/apply", "", map[string]string{"oobCode": recover}, &info)
	if info != (web.ActionInfoJSON{Mode: core.ModeRecoverEmail, Email: "ann@example.com"}) {
		t.Fatalf("recover %+v", info)
	}
	a.fail(nil, 401, core.EInvalidToken, "GET", "/api/me", tok.IDToken, nil)
	reset := a.followLink(a.email("ann@example.com"), core.ModeResetPassword)
	a.ok(nil, 200, "POST", "/api/auth/password-reset/confirm", "", map[string]string{"oobCode": reset, "password": "mine again, truly"}, nil)
	tok = a.signIn(nil, "ann@example.com", "mine again, truly")
	a.fail(nil, 400, core.EInvalidActionCode, "POST", "/api/auth/action/apply", "", map[string]string{"oobCode": recover})

	a.Clock.Add(core.RecentLoginWindow + time.Second)
	a.fail(nil, 401, core.ERequiresRecentLogin, "PATCH", "/api/me", tok.IDToken, map[string]string{"email": "other@example.com"})
	a.noMoreEmail()
}

func TestAccessTokensOverHTTP(t *testing.T) {
	a := mustIdentityAPI(t)
	tok := a.signUp(nil, "ann@example.com")
	bob := a.signUp(nil, "bob@example.com")

	_, env := a.fail(nil, 422, core.EValidation, "POST", "/api/me/tokens", tok.IDToken, map[string]string{"name": ""})
	if env.Fields["name"] == "" {
		t.Fatalf("fields %v", env.Fields)
	}
	var created struct {
		ID, Name, Token string
		CreatedAt       int64
	}
	a.ok(nil, 201, "POST", "/api/me/tokens", tok.IDToken, map[string]any{"name": "laptop", "scopes": core.AllScopes}, &created)
	if !strings.HasPrefix(created.Token, core.AccessTokenPrefix) || created.ID == "" || created.Name != "laptop" || created.CreatedAt == 0 {
		t.Fatalf("created %+v", created)
	}
	var me web.SessionUserJSON
	a.ok(nil, 200, "GET", "/api/me", created.Token, nil, &me)
	if me.Email != "ann@example.com" {
		t.Fatalf("the token acts for %s", me.Email)
	}
	// Tokens are never a recent login, even with the account scope.
	a.fail(nil, 401, core.ERequiresRecentLogin, "POST", "/api/me/password", created.Token, map[string]string{"password": "a fresh unusual passphrase"})
	a.fail(nil, 401, core.ERequiresRecentLogin, "DELETE", "/api/me", created.Token, nil)
	a.fail(nil, 401, core.ERequiresRecentLogin, "POST", "/api/me/tokens", created.Token, map[string]string{"name": "more"})

	resp, env := a.call(nil, "GET", "/api/me/tokens", tok.IDToken, nil)
	if resp.StatusCode != 200 || strings.Contains(string(env.Data), created.Token) || strings.Contains(string(env.Data), "hash") {
		t.Fatalf("list %d %s", resp.StatusCode, env.Data)
	}
	var list []web.AccessTokenJSON
	json.Unmarshal(env.Data, &list)
	if len(list) != 1 || list[0].ID != created.ID || list[0].LastUsedAt == 0 {
		t.Fatalf("list %+v", list)
	}
	a.fail(nil, 404, core.ETokenNotFound, "DELETE", "/api/me/tokens/"+created.ID, bob.IDToken, nil)
	a.ok(nil, 200, "DELETE", "/api/me/tokens/"+created.ID, tok.IDToken, nil, nil)
	a.fail(nil, 401, core.EInvalidToken, "GET", "/api/me", created.Token, nil)
	a.fail(nil, 404, core.ETokenNotFound, "DELETE", "/api/me/tokens/"+created.ID, tok.IDToken, nil)
}

func TestDeleteAccountAndExportOverHTTP(t *testing.T) {
	a := mustIdentityAPI(t)
	c := browserClient(t)
	tok := a.signUp(c, "ann@example.com")
	var me web.SessionUserJSON
	a.ok(nil, 200, "GET", "/api/me", tok.IDToken, nil, &me)
	m, err := a.Messages.Create(a.As(me.UID), core.MessageInput{
		Title: "Later", Name: "Bob", Recipient: "bob@example.com", Body: "the letter itself",
	})
	if err != nil {
		t.Fatal(err)
	}

	var x web.AccountExportJSON
	resp, env := a.call(nil, "GET", "/api/me/export", tok.IDToken, nil)
	if resp.StatusCode != 200 || json.Unmarshal(env.Data, &x) != nil {
		t.Fatalf("export %d %+v", resp.StatusCode, env)
	}
	if x.User.Email != "ann@example.com" || len(x.Messages) != 1 || x.Messages[0].Message != "the letter itself" {
		t.Fatalf("export %+v", x)
	}
	if raw := string(env.Data); strings.Contains(raw, "argon2") || strings.Contains(raw, m.PostponeCode) {
		t.Fatalf("the export holds a secret: %s", raw)
	}

	a.Clock.Add(core.RecentLoginWindow + time.Second)
	a.fail(nil, 401, core.ERequiresRecentLogin, "DELETE", "/api/me", tok.IDToken, nil)
	a.ok(nil, 200, "POST", "/api/auth/reauth", tok.IDToken, map[string]string{"password": pw}, nil)
	resp = a.ok(c, 200, "DELETE", "/api/me", tok.IDToken, nil, nil)
	if refreshCookie(t, resp).MaxAge >= 0 {
		t.Fatal("deletion kept the refresh cookie")
	}
	a.fail(nil, 401, core.EInvalidToken, "GET", "/api/me", tok.IDToken, nil)
	if _, err := a.DB.FindMessageByID(context.Background(), m.ID); core.ErrorCode(err) != core.EMessageNotFound {
		t.Fatalf("the message survived: %v", err)
	}
	a.fail(nil, 401, core.EWrongCredentials, "POST", "/api/auth/signin", "", map[string]string{"email": "ann@example.com", "password": pw})
}

// Verification emails, after a sign-up, a resend or an email change, are
// limited per account and per recipient address (3 an hour, 10 a day), so
// no one can flood a mailbox with them.
func TestVerificationEmailsCannotBombAnAddress(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.signUp(nil, "ann@example.com") // one
	for range 2 {
		a.ok(nil, 200, "POST", "/api/me/verify-email", ann.IDToken, nil, nil)
		a.email("ann@example.com")
	}
	resp, _ := a.fail(nil, 429, core.ETooManyRequests, "POST", "/api/me/verify-email", ann.IDToken, nil)
	if s, _ := strconv.Atoi(resp.Header.Get("Retry-After")); s < 3500 || s > 3600 {
		t.Fatalf("Retry-After %q, want about an hour", resp.Header.Get("Retry-After"))
	}
	a.noMoreEmail()

	// Accounts that change their email to one victim's, one after another.
	for i := range 4 {
		who := a.signUp(nil, fmt.Sprintf("user%d@example.com", i))
		change := map[string]string{"email": "victim@example.com"}
		if i == 3 {
			a.fail(nil, 429, core.ETooManyRequests, "PATCH", "/api/me", who.IDToken, change)
			continue
		}
		// The old addresses were never verified: they get no notice
		// (no link gives them back).
		a.ok(nil, 200, "PATCH", "/api/me", who.IDToken, change, nil)
		a.email("victim@example.com")
		a.ok(nil, 200, "PATCH", "/api/me", who.IDToken, map[string]string{"email": fmt.Sprintf("moved%d@example.com", i)}, nil)
		a.email(fmt.Sprintf("moved%d@example.com", i))
	}
	// A sign-up with the victim's address makes the account, sends nothing.
	a.ok(nil, http.StatusCreated, "POST", "/api/auth/signup", "", map[string]string{"email": "victim@example.com", "password": pw}, nil)
	a.noMoreEmail()
	// An hour later the address may have some again.
	a.Clock.Add(time.Hour)
	victim := a.signIn(nil, "victim@example.com", pw)
	a.ok(nil, 200, "POST", "/api/me/verify-email", victim.IDToken, nil, nil)
	a.email("victim@example.com")
}

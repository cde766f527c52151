package core_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

func TestEmailChangeAndRecovery(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.mustVerifiedSignUp(t, "ann@example.com") // else no link restores it
	e.MustSignUp(t, "taken@example.com", goodPassword)
	id := e.MustAuthenticate(t, tok.IDToken)

	email := func(s string) core.ProfileUpdate { return core.ProfileUpdate{Email: &s} }
	_, err := e.Auth.UpdateProfile(e.Acting(id), email(""))
	wantFields(t, err, map[string]string{"email": "Please enter your email"})
	_, err = e.Auth.UpdateProfile(e.Acting(id), email("taken@example.com"))
	wantCode(t, err, core.EEmailInUse)
	e.Clock.Add(core.RecentLoginWindow + time.Second)
	_, err = e.Auth.UpdateProfile(e.Acting(id), email("new@example.com"))
	wantCode(t, err, core.ERequiresRecentLogin)
	// Other fields need no recent login, nor does the unchanged email.
	name := "Ann B."
	u, err := e.Auth.UpdateProfile(e.Acting(id), core.ProfileUpdate{Name: &name, Email: &u0(e, t, id).Email})
	if err != nil || u.Name != "Ann B." {
		t.Fatalf("%+v %v", u, err)
	}
	e.NoMoreEmail(t)

	if _, err := e.Auth.Reauth(e.Acting(id), goodPassword, browser); err != nil {
		t.Fatal(err)
	}
	id = e.MustAuthenticate(t, tok.IDToken)
	u, err = e.Auth.UpdateProfile(e.Acting(id), email("new@example.com"))
	if err != nil || u.Email != "new@example.com" || u.EmailVerified {
		t.Fatalf("%+v %v", u, err)
	}
	both := e.NextEach(t, "new@example.com", "ann@example.com")
	verify, notice := actionCode(t, both[0], core.ModeVerifyEmail), both[1]
	if !strings.Contains(notice.Text, "new@example.com") {
		t.Fatalf("the notice does not name the new address:\n%s", notice.Text)
	}
	recover := actionCode(t, notice, core.ModeRecoverEmail)
	if _, err := e.Auth.SignIn(e.Ctx, "new@example.com", goodPassword, browser); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Auth.ApplyActionCode(e.Ctx, verify); err != nil {
		t.Fatal(err)
	}

	info, err := e.Auth.CheckActionCode(e.Ctx, recover)
	if err != nil || *info != (core.ActionInfo{Mode: core.ModeRecoverEmail, Email: "ann@example.com"}) {
		t.Fatalf("check: %+v %v", info, err)
	}
	info, err = e.Auth.ApplyActionCode(e.Ctx, recover)
	if err != nil || info.Email != "ann@example.com" {
		t.Fatalf("apply: %+v %v", info, err)
	}
	if u := u0(e, t, &core.Identity{UserID: id.UserID}); u.Email != "ann@example.com" || !u.EmailVerified {
		t.Fatalf("after recovery: %+v", u)
	}
	_, err = e.Auth.Authenticate(e.Ctx, tok.IDToken)
	wantCode(t, err, core.EInvalidToken)
	reset := actionCode(t, e.nextEmail(t, "ann@example.com"), core.ModeResetPassword)
	if err := e.Auth.ConfirmPasswordReset(e.Ctx, reset, "my own passphrase again"); err != nil {
		t.Fatal(err)
	}
	_, err = e.Auth.ApplyActionCode(e.Ctx, recover)
	wantCode(t, err, core.EInvalidActionCode)
	e.NoMoreEmail(t)
}

func TestVerifyLinkOfAnAbandonedAddressIsInvalid(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	id := e.MustAuthenticate(t, tok.IDToken)
	var first string
	for i, addr := range []string{"one@example.com", "two@example.com"} {
		if _, err := e.Auth.UpdateProfile(e.Acting(id), core.ProfileUpdate{Email: &addr}); err != nil {
			t.Fatal(err)
		}
		// The old address was never verified: it gets no notice.
		sent := e.nextEmail(t, addr)
		if i == 0 {
			first = actionCode(t, sent, core.ModeVerifyEmail)
		}
	}
	e.Clock.Add(core.EmailCodeTTL - time.Second)
	_, err := e.Auth.ApplyActionCode(e.Ctx, first)
	wantCode(t, err, core.EInvalidActionCode)
}

func TestEmailCodesExpireAfterThreeDays(t *testing.T) {
	e := MustAuthEnv(t)
	_, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: goodPassword}, browser)
	if err != nil {
		t.Fatal(err)
	}
	code := actionCode(t, e.nextEmail(t, "ann@example.com"), core.ModeVerifyEmail)
	e.Clock.Add(core.EmailCodeTTL)
	_, err = e.Auth.ApplyActionCode(e.Ctx, code)
	wantCode(t, err, core.EExpiredActionCode)
}

func u0(e *authEnv, t *testing.T, id *core.Identity) *core.User {
	t.Helper()
	u, err := e.Auth.User(e.Acting(id))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestProfileValidation(t *testing.T) {
	e := MustAuthEnv(t)
	id := e.MustAuthenticate(t, e.MustSignUp(t, "ann@example.com", goodPassword).IDToken)
	s := func(v string) *string { return &v }
	tests := []struct {
		up   core.ProfileUpdate
		want map[string]string
	}{
		{core.ProfileUpdate{Name: s(" ")}, map[string]string{"name": "Please enter your name"}},
		{core.ProfileUpdate{Email: s("no")}, map[string]string{"email": "Please enter a valid email address"}},
		{core.ProfileUpdate{Picture: s("javascript:alert(1)")}, map[string]string{"picture": "The picture must be an http or https URL"}},
		{core.ProfileUpdate{Timezone: s("Nowhere/Town")}, map[string]string{"timezone": "Please choose a valid time zone"}},
	}
	for _, tt := range tests {
		_, err := e.Auth.UpdateProfile(e.Acting(id), tt.up)
		wantFields(t, err, tt.want)
	}
	u, err := e.Auth.UpdateProfile(e.Acting(id), core.ProfileUpdate{
		Picture: s("https://example.com/me.png"), Timezone: s("America/New_York"),
	})
	if err != nil || u.Picture != "https://example.com/me.png" || u.Timezone != "America/New_York" || u.Name != "Ann" {
		t.Fatalf("%+v %v", u, err)
	}
	if u, _ = e.Auth.UpdateProfile(e.Acting(id), core.ProfileUpdate{Picture: s("")}); u.Picture != "" {
		t.Fatal("the picture was not removed")
	}
}

func TestAccessTokens(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	id := e.MustAuthenticate(t, tok.IDToken)
	bob := e.MustAuthenticate(t, e.MustSignUp(t, "bob@example.com", goodPassword).IDToken)

	_, _, err := e.Auth.CreateAccessToken(e.Acting(id), " ", core.AllScopes)
	wantFields(t, err, map[string]string{"name": "Please enter a name for the token"})
	at, secret, err := e.Auth.CreateAccessToken(e.Acting(id), "laptop", core.AllScopes)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := e.DB.FindAccessTokenByHash(e.Ctx, core.HashSecret(secret))
	if !strings.HasPrefix(secret, core.AccessTokenPrefix) || err != nil || stored.ID != at.ID {
		t.Fatalf("token %+v secret %q: stored under its hash %+v %v", at, secret, stored, err)
	}
	patID := e.MustAuthenticate(t, secret)
	if patID.UserID != id.UserID || patID.TokenID != at.ID || patID.SessionID != "" {
		t.Fatalf("identity %+v", patID)
	}
	// A token is never a recent login, so it cannot make another token, nor
	// change the password or delete the account.
	wantCode(t, e.Auth.RequireRecentLogin(e.Acting(patID)), core.ERequiresRecentLogin)
	_, _, err = e.Auth.CreateAccessToken(e.Acting(patID), "more", core.AllScopes)
	wantCode(t, err, core.ERequiresRecentLogin)
	wantCode(t, e.Auth.DeleteAccount(e.Acting(patID)), core.ERequiresRecentLogin)
	_, err = e.Auth.Reauth(e.Acting(patID), goodPassword, browser)
	wantCode(t, err, core.ERequiresRecentLogin)

	e.Clock.Add(10 * time.Minute)
	e.MustAuthenticate(t, secret)
	ts, err := e.Auth.ListAccessTokens(e.Acting(id))
	if err != nil || len(ts) != 1 || ts[0].ID != at.ID || ts[0].Name != "laptop" ||
		!ts[0].CreatedAt.Equal(at.CreatedAt) || !ts[0].LastUsedAt.Equal(e.Clock.Now()) {
		t.Fatalf("list: %+v %v", ts, err)
	}
	wantCode(t, e.Auth.RevokeAccessToken(e.Acting(bob), at.ID), core.ETokenNotFound)
	if err := e.Auth.RevokeAccessToken(e.Acting(id), at.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.Auth.Authenticate(e.Ctx, secret)
	wantCode(t, err, core.EInvalidToken)
	wantCode(t, e.Auth.RevokeAccessToken(e.Acting(id), at.ID), core.ETokenNotFound)

	// Signing out with a token revokes it.
	_, secret, err = e.Auth.CreateAccessToken(e.Acting(e.MustAuthenticate(t, signInAt(t, e, 0).IDToken)), "script", core.AllScopes)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Auth.SignOut(e.Acting(e.MustAuthenticate(t, secret))); err != nil {
		t.Fatal(err)
	}
	_, err = e.Auth.Authenticate(e.Ctx, secret)
	wantCode(t, err, core.EInvalidToken)
}

func TestDeleteAccountAndExport(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	id := e.MustAuthenticate(t, tok.IDToken)
	m, err := e.Messages.Create(e.Acting(id), core.MessageInput{
		Title: "For later", Name: "Bob", Recipient: "bob@example.com", Body: "a secret letter",
	})
	if err != nil {
		t.Fatal(err)
	}
	at, pat, err := e.Auth.CreateAccessToken(e.Acting(id), "laptop", core.AllScopes)
	if err != nil {
		t.Fatal(err)
	}

	x, err := e.Auth.Export(e.Acting(id))
	if err != nil {
		t.Fatal(err)
	}
	if x.User.Email != "ann@example.com" || !x.HasPassword || len(x.Messages) != 1 ||
		x.Messages[0].Body != "a secret letter" || x.Messages[0].Recipient != "bob@example.com" ||
		len(x.AccessTokens) != 1 || x.AccessTokens[0].ID != at.ID {
		t.Fatalf("export %+v", x)
	}
	raw, _ := json.Marshal(x)
	for _, secret := range []string{"argon2id", core.HashSecret(pat), m.PostponeCode} {
		if strings.Contains(string(raw), secret) {
			t.Fatalf("the export holds the secret %q", secret)
		}
	}

	e.Clock.Add(core.RecentLoginWindow + time.Second)
	id = e.MustAuthenticate(t, tok.IDToken)
	wantCode(t, e.Auth.DeleteAccount(e.Acting(id)), core.ERequiresRecentLogin)
	if _, err := e.Auth.Reauth(e.Acting(id), goodPassword, browser); err != nil {
		t.Fatal(err)
	}
	if err := e.Auth.DeleteAccount(e.Acting(e.MustAuthenticate(t, tok.IDToken))); err != nil {
		t.Fatal(err)
	}
	_, err = e.Auth.Authenticate(e.Ctx, tok.IDToken)
	wantCode(t, err, core.EInvalidToken)
	_, err = e.DB.FindMessageByID(e.Ctx, m.ID)
	wantCode(t, err, core.EMessageNotFound)
	_, err = e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, browser)
	wantCode(t, err, core.EWrongCredentials)
	// The address is free again.
	e.MustSignUp(t, "ann@example.com", goodPassword)
}

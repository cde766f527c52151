package core_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

func TestChangePassword(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	other := signInAt(t, e, 0)
	id := e.MustAuthenticate(t, tok.IDToken)
	_, pat, err := e.Auth.CreateAccessToken(e.Acting(id), "laptop", core.AllScopes)
	if err != nil {
		t.Fatal(err)
	}

	wantFields(t, e.Auth.ChangePassword(e.Acting(id), ""), map[string]string{"password": "Please enter a password"})
	wantCode(t, e.Auth.ChangePassword(e.Acting(id), "password"), core.EWeakPassword)
	e.Clock.Add(core.RecentLoginWindow + time.Second)
	wantCode(t, e.Auth.ChangePassword(e.Acting(id), "another fine passphrase"), core.ERequiresRecentLogin)
	if _, err := e.Auth.Reauth(e.Acting(id), goodPassword, browser); err != nil {
		t.Fatal(err)
	}
	id = e.MustAuthenticate(t, tok.IDToken)
	if err := e.Auth.ChangePassword(e.Acting(id), "another fine passphrase"); err != nil {
		t.Fatal(err)
	}
	e.MustAuthenticate(t, tok.IDToken) // this session goes on
	_, err = e.Auth.Authenticate(e.Ctx, other.IDToken)
	wantCode(t, err, core.EInvalidToken)
	_, err = e.Auth.Refresh(e.Ctx, other.RefreshToken)
	wantCode(t, err, core.EInvalidToken)
	_, err = e.Auth.Authenticate(e.Ctx, pat)
	wantCode(t, err, core.EInvalidToken)
	_, err = e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, browser)
	wantCode(t, err, core.EWrongCredentials)
	if _, err := e.Auth.SignIn(e.Ctx, "ann@example.com", "another fine passphrase", browser); err != nil {
		t.Fatal(err)
	}
	e.NoMoreEmail(t)
}

func TestPasswordReset(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)

	wantFields(t, e.Auth.RequestPasswordReset(e.Ctx, "", browser), map[string]string{"email": "Please enter your email"})
	if err := e.Auth.RequestPasswordReset(e.Ctx, "nobody@example.com", browser); err != nil {
		t.Fatalf("unknown email: %v", err)
	}
	e.NoMoreEmail(t)
	if err := e.Auth.RequestPasswordReset(e.Ctx, "ANN@example.com", browser); err != nil {
		t.Fatal(err)
	}
	code := actionCode(t, e.nextEmail(t, "ann@example.com"), core.ModeResetPassword)

	info, err := e.Auth.CheckActionCode(e.Ctx, code)
	if err != nil || *info != (core.ActionInfo{Mode: core.ModeResetPassword, Email: "ann@example.com"}) {
		t.Fatalf("check: %+v %v", info, err)
	}
	// A reset code is not applied by the action page.
	_, err = e.Auth.ApplyActionCode(e.Ctx, code)
	wantCode(t, err, core.EInvalidActionCode)
	// A weak password leaves the code usable.
	wantCode(t, e.Auth.ConfirmPasswordReset(e.Ctx, code, "qwerty123"), core.EWeakPassword)
	if err := e.Auth.ConfirmPasswordReset(e.Ctx, code, "a brand new passphrase"); err != nil {
		t.Fatal(err)
	}
	// The address was never verified: the reset claimed the account
	// (identity_claim.go), and says so.
	if m := e.nextEmail(t, "ann@example.com"); !strings.Contains(m.Text, "You just chose a new password") {
		t.Fatalf("after the reset: %q", m.Subject)
	}
	_, err = e.Auth.Authenticate(e.Ctx, tok.IDToken)
	wantCode(t, err, core.EInvalidToken)
	wantCode(t, e.Auth.ConfirmPasswordReset(e.Ctx, code, "yet another passphrase"), core.EInvalidActionCode)
	if _, err := e.Auth.SignIn(e.Ctx, "ann@example.com", "a brand new passphrase", browser); err != nil {
		t.Fatal(err)
	}
	wantCode(t, e.Auth.ConfirmPasswordReset(e.Ctx, "made-up-code", "yet another passphrase"), core.EInvalidActionCode)

	// A link is valid for one hour.
	if err := e.Auth.RequestPasswordReset(e.Ctx, "ann@example.com", browser); err != nil {
		t.Fatal(err)
	}
	code = actionCode(t, e.nextEmail(t, "ann@example.com"), core.ModeResetPassword)
	e.Clock.Add(core.ResetCodeTTL)
	_, err = e.Auth.CheckActionCode(e.Ctx, code)
	wantCode(t, err, core.EExpiredActionCode)
	wantCode(t, e.Auth.ConfirmPasswordReset(e.Ctx, code, "yet another passphrase"), core.EExpiredActionCode)
}

func TestPasswordResetEmailsAreLimited(t *testing.T) {
	e := MustAuthEnv(t)
	e.MustSignUp(t, "ann@example.com", goodPassword)
	for range 7 {
		if err := e.Auth.RequestPasswordReset(e.Ctx, "ann@example.com", core.Client{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Delivery.RunOutbox(e.Ctx); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := e.SMTP.WaitFor(e.Seen()+5, 5*time.Second); len(msgs)-e.Seen() != 5 {
		t.Fatalf("%d reset emails sent, want 5", len(msgs)-e.Seen())
	}
}

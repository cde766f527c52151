package core_test

import (
	"slices"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// turnOnTOTP enrols and confirms the authenticator app of id.
func turnOnTOTP(t *testing.T, e *authEnv, id *core.Identity) {
	t.Helper()
	en, err := e.Auth.BeginTOTP(e.Acting(id))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Auth.ConfirmTOTP(e.Acting(id), e.code(t, en.Secret, 0)); err != nil {
		t.Fatal(err)
	}
}

// A passkey also satisfies the second-factor prompt: after the password of
// an account with the app, the challenge offers "passkey" and one of the
// account's passkeys ends it (a session, the challenge used once); another
// account's passkey is refused and counts as a wrong try.
func TestAPasskeyEndsTheSecondStep(t *testing.T) {
	e := MustAuthEnv(t)
	ann := e.MustAuthenticate(t, e.MustSignUp(t, "ann@example.com", goodPassword).IDToken)
	bob := e.MustAuthenticate(t, e.MustSignUp(t, "bob@example.com", goodPassword).IDToken)
	annDev, bobDev := newDevice(t), newDevice(t)
	registerPasskey(t, e, bob, bobDev, "Bob's phone")
	turnOnTOTP(t, e, ann)

	// No passkey yet: the challenge does not offer one.
	tok, err := e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, browser)
	if err != nil || tok.SecondFactor == nil || slices.Contains(tok.SecondFactor.Methods, core.MethodPasskey) {
		t.Fatalf("challenge without a passkey: %+v %v", tok, err)
	}
	e.Clock.Add(time.Second)
	registerPasskey(t, e, ann, annDev, "MacBook")
	tok, err = e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, browser)
	if err != nil || tok.SecondFactor == nil || !slices.Contains(tok.SecondFactor.Methods, core.MethodPasskey) {
		t.Fatalf("challenge with a passkey: %+v %v", tok, err)
	}
	token := tok.SecondFactor.Token

	// Bob's passkey on Ann's challenge: refused.
	options, state, err := e.Auth.BeginPasskeySignIn(e.Ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Auth.CompleteSecondFactorWithPasskey(e.Ctx, token, state, bobDev.Get(options), laptop)
	wantCode(t, err, core.EWrongCredentials)

	options, state, _ = e.Auth.BeginPasskeySignIn(e.Ctx, false)
	reply := annDev.Get(options)
	done, err := e.Auth.CompleteSecondFactorWithPasskey(e.Ctx, token, state, reply, laptop)
	if err != nil || done.IDToken == "" || done.SecondFactor != nil {
		t.Fatalf("a passkey on the second step: %+v %v", done, err)
	}
	if signed := e.MustAuthenticate(t, done.IDToken); signed.UserID != ann.UserID {
		t.Fatalf("signed in %+v", signed)
	}
	// The challenge is used: no second session from it, by passkey or code.
	options, state, _ = e.Auth.BeginPasskeySignIn(e.Ctx, false)
	_, err = e.Auth.CompleteSecondFactorWithPasskey(e.Ctx, token, state, annDev.Get(options), laptop)
	wantCode(t, err, core.EInvalidToken)
	// An empty reply names the field and changes nothing.
	_, err = e.Auth.CompleteSecondFactorWithPasskey(e.Ctx, "", "", nil, laptop)
	wantCode(t, err, core.EValidation)
}

// A challenge takes at most SecondFactorAttempts refused passkeys, as it
// takes wrong codes: then the password is needed again.
func TestWrongPasskeysUseUpTheChallenge(t *testing.T) {
	e := MustAuthEnv(t)
	ann := e.MustAuthenticate(t, e.MustSignUp(t, "ann@example.com", goodPassword).IDToken)
	bob := e.MustAuthenticate(t, e.MustSignUp(t, "bob@example.com", goodPassword).IDToken)
	annDev, bobDev := newDevice(t), newDevice(t)
	registerPasskey(t, e, ann, annDev, "MacBook")
	registerPasskey(t, e, bob, bobDev, "Phone")
	turnOnTOTP(t, e, ann)
	token := e.challenge(t, "ann@example.com")
	for range core.SecondFactorAttempts {
		options, state, _ := e.Auth.BeginPasskeySignIn(e.Ctx, false)
		_, err := e.Auth.CompleteSecondFactorWithPasskey(e.Ctx, token, state, bobDev.Get(options), laptop)
		wantCode(t, err, core.EWrongCredentials)
	}
	options, state, _ := e.Auth.BeginPasskeySignIn(e.Ctx, false)
	_, err := e.Auth.CompleteSecondFactorWithPasskey(e.Ctx, token, state, annDev.Get(options), laptop)
	wantCode(t, err, core.EInvalidToken)
}

// Renaming a passkey: its owner only, by the rule of every name; no recent
// login, no operator.
func TestRenamePasskey(t *testing.T) {
	e := MustAuthEnv(t)
	ann := e.MustAuthenticate(t, e.MustSignUp(t, "ann@example.com", goodPassword).IDToken)
	p := registerPasskey(t, e, ann, newDevice(t), "MacBook")
	e.Clock.Add(core.RecentLoginWindow + time.Minute)
	got, err := e.Auth.RenamePasskey(e.Acting(ann), p.ID, "  Work laptop ")
	if err != nil || got.Name != "Work laptop" || got.ID != p.ID {
		t.Fatalf("RenamePasskey = %+v, %v", got, err)
	}
	_, err = e.Auth.RenamePasskey(e.Acting(ann), p.ID, " ")
	wantCode(t, err, core.EValidation)
	_, err = e.Auth.RenamePasskey(e.Acting(ann), p.ID, "two\nlines")
	wantCode(t, err, core.EValidation)
	bob := e.MustAuthenticate(t, e.MustSignUp(t, "bob@example.com", goodPassword).IDToken)
	_, err = e.Auth.RenamePasskey(e.Acting(bob), p.ID, "Mine now")
	wantCode(t, err, core.ENotFound)
	_, err = e.Auth.RenamePasskey(core.ActAs(core.WithOperator(e.Ctx, "root"), ann.UserID), p.ID, "Operator's")
	wantCode(t, err, core.EOperatorNotAllowed)
	if ps, _ := e.Auth.ListPasskeys(e.Acting(ann)); len(ps) != 1 || ps[0].Name != "Work laptop" {
		t.Fatalf("list after the refusals: %+v", ps)
	}
}

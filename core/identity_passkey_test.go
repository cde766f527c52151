package core_test

import (
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/passkey/passkeytest"
)

// registerPasskey adds dev's passkey to the account of id (a recent login).
func registerPasskey(t *testing.T, e *authEnv, id *core.Identity, dev *passkeytest.Authenticator, name string) core.PasskeyInfo {
	t.Helper()
	options, state, err := e.Auth.BeginPasskeyRegistration(e.Acting(id))
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.Auth.FinishPasskeyRegistration(e.Acting(id), state, dev.Create(options), name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newDevice(t *testing.T) *passkeytest.Authenticator {
	return passkeytest.New(t, "sendlater.test", "https://sendlater.test")
}

func TestSignInWithAPasskey(t *testing.T) {
	e := MustAuthEnv(t)
	id := e.MustAuthenticate(t, e.MustSignUp(t, "ann@example.com", goodPassword).IDToken)
	dev := newDevice(t)
	p := registerPasskey(t, e, id, dev, "MacBook")
	if ps, err := e.Auth.ListPasskeys(e.Acting(id)); err != nil || len(ps) != 1 || ps[0].Name != "MacBook" || ps[0].ID != p.ID {
		t.Fatalf("ListPasskeys = %+v, %v", ps, err)
	}

	e.Clock.Add(time.Hour)
	options, state, err := e.Auth.BeginPasskeySignIn(e.Ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	reply := dev.Get(options)
	tok, err := e.Auth.PasskeySignIn(e.Ctx, state, reply, laptop)
	if err != nil {
		t.Fatal(err)
	}
	signed := e.MustAuthenticate(t, tok.IDToken)
	if signed.UserID != id.UserID || !signed.AuthTime.Equal(e.Clock.Now()) {
		t.Fatalf("signed in %+v", signed)
	}
	// The same reply again: refused, even from an authenticator without a counter.
	_, err = e.Auth.PasskeySignIn(e.Ctx, state, reply, laptop)
	wantCode(t, err, core.EWrongCredentials)
	dev.Counter = 0
	options, state, _ = e.Auth.BeginPasskeySignIn(e.Ctx, false)
	_, err = e.Auth.PasskeySignIn(e.Ctx, state, dev.Get(options), laptop) // counter 1 again: a clone
	wantCode(t, err, core.EWrongCredentials)
	// Another device's passkey for the same credential: refused.
	thief := newDevice(t)
	thief.CredID, thief.User, thief.Counter = dev.CredID, dev.User, 50
	options, state, _ = e.Auth.BeginPasskeySignIn(e.Ctx, false)
	_, err = e.Auth.PasskeySignIn(e.Ctx, state, thief.Get(options), laptop)
	wantCode(t, err, core.EWrongCredentials)
}

func TestPasskeyChangesNeedARecentLogin(t *testing.T) {
	e := MustAuthEnv(t)
	id := e.MustAuthenticate(t, e.MustSignUp(t, "ann@example.com", goodPassword).IDToken)
	p := registerPasskey(t, e, id, newDevice(t), "Phone")
	e.Clock.Add(core.RecentLoginWindow + time.Minute)
	_, _, err := e.Auth.BeginPasskeyRegistration(e.Acting(id))
	wantCode(t, err, core.ERequiresRecentLogin)
	wantCode(t, e.Auth.RemovePasskey(e.Acting(id), p.ID), core.ERequiresRecentLogin)
	wantCode(t, e.Auth.RemovePasskey(core.ActAs(core.WithOperator(e.Ctx, "root"), id.UserID), p.ID), core.EOperatorNotAllowed)

	bob := e.MustAuthenticate(t, e.MustSignUp(t, "bob@example.com", goodPassword).IDToken)
	wantCode(t, e.Auth.RemovePasskey(e.Acting(bob), p.ID), core.ENotFound)
	if _, err := e.Auth.Reauth(e.Acting(id), goodPassword, browser); err != nil {
		t.Fatal(err)
	}
	id.AuthTime = e.Clock.Now()
	if err := e.Auth.RemovePasskey(e.Acting(id), p.ID); err != nil {
		t.Fatal(err)
	}
	if ps, _ := e.Auth.ListPasskeys(e.Acting(id)); len(ps) != 0 {
		t.Fatalf("left %+v", ps)
	}
}

// A passkey that verified its user is both factors: an account with the
// authenticator app signs in with it at once, with no code asked (issue 30:
// "a passkey is a full sign-in"), while its password still asks for one.
func TestAPasskeyIsBothFactors(t *testing.T) {
	e := MustAuthEnv(t)
	id := e.MustAuthenticate(t, e.MustSignUp(t, "ann@example.com", goodPassword).IDToken)
	dev := newDevice(t)
	registerPasskey(t, e, id, dev, "MacBook")
	en, err := e.Auth.BeginTOTP(e.Acting(id))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Auth.ConfirmTOTP(e.Acting(id), e.code(t, en.Secret, 0)); err != nil {
		t.Fatal(err)
	}
	e.challenge(t, "ann@example.com")
	options, state, err := e.Auth.BeginPasskeySignIn(e.Ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := e.Auth.PasskeySignIn(e.Ctx, state, dev.Get(options), laptop)
	if err != nil || tok.IDToken == "" || tok.SecondFactor != nil {
		t.Fatalf("a passkey sign-in to an account with the app: %+v %v", tok, err)
	}
	if signed := e.MustAuthenticate(t, tok.IDToken); signed.UserID != id.UserID {
		t.Fatalf("signed in %+v", signed)
	}
}

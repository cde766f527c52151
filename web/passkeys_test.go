package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/pquerna/otp/totp"
	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/passkey/passkeytest"
	"github.com/sendlater/sendlater/web"
)

// A passkey over HTTP: added right after the sign-up (a recent login),
// listed, used to sign in (tokens and the refresh cookie, like a password
// sign-in), its reply refused when replayed, removed.
func TestPasskeysAPI(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.signUp(nil, "ann@example.com")
	u, _ := url.Parse(identityBaseURL)
	dev := passkeytest.New(t, u.Hostname(), identityBaseURL)

	var begin web.CeremonyJSON
	a.ok(nil, http.StatusOK, "POST", "/api/me/passkeys/begin", ann.IDToken, nil, &begin)
	var added web.PasskeyJSON
	a.ok(nil, http.StatusCreated, "POST", "/api/me/passkeys", ann.IDToken,
		map[string]any{"state": begin.State, "response": json.RawMessage(dev.Create(begin.Options)), "name": "MacBook"}, &added)
	if added.Name != "MacBook" || added.ID == "" {
		t.Fatalf("added %+v", added)
	}
	var list []web.PasskeyJSON
	a.ok(nil, http.StatusOK, "GET", "/api/me/passkeys", ann.IDToken, nil, &list)
	if len(list) != 1 || list[0].ID != added.ID {
		t.Fatalf("list %+v", list)
	}

	c := browserClient(t)
	a.ok(c, http.StatusOK, "POST", "/api/auth/passkey/begin", "", map[string]any{"conditional": true}, &begin)
	reply := map[string]any{"state": begin.State, "response": json.RawMessage(dev.Get(begin.Options))}
	var tok tokensReply
	resp := a.ok(c, http.StatusOK, "POST", "/api/auth/passkey", "", reply, &tok)
	if refreshCookie(t, resp) == nil || tok.User.Email != "ann@example.com" {
		t.Fatalf("passkey sign-in %+v", tok)
	}
	a.ok(nil, http.StatusOK, "GET", "/api/me", tok.IDToken, nil, nil)
	a.fail(nil, http.StatusUnauthorized, core.EWrongCredentials, "POST", "/api/auth/passkey", "", reply)

	bob := a.signUp(nil, "bob@example.com")
	a.fail(nil, http.StatusNotFound, core.ENotFound, "DELETE", "/api/me/passkeys/"+added.ID, bob.IDToken, nil)
	a.ok(nil, http.StatusOK, "DELETE", "/api/me/passkeys/"+added.ID, ann.IDToken, nil, nil)
	a.ok(c, http.StatusOK, "POST", "/api/auth/passkey/begin", "", nil, &begin)
	a.fail(nil, http.StatusUnauthorized, core.EWrongCredentials, "POST", "/api/auth/passkey", "",
		map[string]any{"state": begin.State, "response": json.RawMessage(dev.Get(begin.Options))})
}

// Renaming over HTTP: the owner's PATCH answers the passkey with its new
// name; a name against the rule is 422 on "name"; another user's is 404.
// And a passkey ends the second step of an account with the app: the
// challenge offers "passkey", POST /api/auth/second-factor/passkey answers
// the tokens and the refresh cookie, and the challenge is then used.
func TestPasskeyRenameAndSecondStepOverHTTP(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.signUp(nil, "ann@example.com")
	u, _ := url.Parse(identityBaseURL)
	dev := passkeytest.New(t, u.Hostname(), identityBaseURL)
	var begin web.CeremonyJSON
	a.ok(nil, http.StatusOK, "POST", "/api/me/passkeys/begin", ann.IDToken, nil, &begin)
	var added web.PasskeyJSON
	a.ok(nil, http.StatusCreated, "POST", "/api/me/passkeys", ann.IDToken,
		map[string]any{"state": begin.State, "response": json.RawMessage(dev.Create(begin.Options)), "name": "MacBook"}, &added)

	var renamed web.PasskeyJSON
	a.ok(nil, http.StatusOK, "PATCH", "/api/me/passkeys/"+added.ID, ann.IDToken, map[string]string{"name": "Work laptop"}, &renamed)
	if renamed.Name != "Work laptop" || renamed.ID != added.ID {
		t.Fatalf("renamed %+v", renamed)
	}
	_, env := a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, "PATCH", "/api/me/passkeys/"+added.ID, ann.IDToken, map[string]string{"name": ""})
	if env.Fields["name"] == "" {
		t.Fatalf("an empty name: fields %v", env.Fields)
	}
	bob := a.signUp(nil, "bob@example.com")
	a.fail(nil, http.StatusNotFound, core.ENotFound, "PATCH", "/api/me/passkeys/"+added.ID, bob.IDToken, map[string]string{"name": "Mine"})

	var en enrolReply
	a.ok(nil, http.StatusOK, "POST", "/api/me/totp", ann.IDToken, nil, &en)
	code, _ := totp.GenerateCode(en.Secret, a.Clock.Now())
	a.ok(nil, http.StatusOK, "POST", "/api/me/totp/confirm", ann.IDToken, map[string]string{"code": code}, nil)

	b := browserClient(t)
	var sf secondFactorReply
	a.ok(b, http.StatusOK, "POST", "/api/auth/signin", "", map[string]string{"email": "ann@example.com", "password": pw}, &sf)
	if sf.SecondFactor == nil || strings.Join(sf.SecondFactor.Methods, ",") != "totp,recovery,passkey" {
		t.Fatalf("challenge %+v", sf.SecondFactor)
	}
	a.ok(b, http.StatusOK, "POST", "/api/auth/passkey/begin", "", nil, &begin)
	step := map[string]any{"token": sf.SecondFactor.Token, "state": begin.State, "response": json.RawMessage(dev.Get(begin.Options))}
	var tok tokensReply
	resp := a.ok(b, http.StatusOK, "POST", "/api/auth/second-factor/passkey", "", step, &tok)
	if refreshCookie(t, resp) == nil || tok.User == nil || tok.User.Email != "ann@example.com" {
		t.Fatalf("second step with a passkey: %+v", tok)
	}
	a.ok(b, http.StatusOK, "POST", "/api/auth/passkey/begin", "", nil, &begin)
	step = map[string]any{"token": sf.SecondFactor.Token, "state": begin.State, "response": json.RawMessage(dev.Get(begin.Options))}
	a.fail(b, http.StatusUnauthorized, core.EInvalidToken, "POST", "/api/auth/second-factor/passkey", "", step)
}

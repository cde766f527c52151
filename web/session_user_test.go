package web_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/sendlater/sendlater/core"
)

// The session user tells clients what the plan rule allows now
// (docs/api.md): messageLimit (null: none) and canAddMessage.
func TestSessionUserCarriesThePlanRule(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.author("ann@example.com")
	me := func() map[string]json.RawMessage {
		var out map[string]json.RawMessage
		a.ok(nil, http.StatusOK, "GET", "/api/me", ann.token, nil, &out)
		return out
	}
	want := func(what, limit, canAdd string) {
		t.Helper()
		got := me()
		if string(got["messageLimit"]) != limit || string(got["canAddMessage"]) != canAdd {
			t.Fatalf("%s: messageLimit %s, canAddMessage %s; want %s, %s", what, got["messageLimit"], got["canAddMessage"], limit, canAdd)
		}
	}
	want("a new free account", "1", "true")
	a.createMessage(ann, nil)
	want("a free account with its message", "1", "false")
	a.grantPlan(ann.uid, core.PlanPro)
	want("an active Pro plan", "null", "true")

	// The sign-in reply carries the same.
	var tok struct{ User map[string]json.RawMessage }
	a.ok(nil, http.StatusOK, "POST", "/api/auth/signin", "", map[string]string{"email": ann.email, "password": pw}, &tok)
	if string(tok.User["messageLimit"]) != "null" || string(tok.User["canAddMessage"]) != "true" {
		t.Fatalf("sign-in user %v", tok.User)
	}
}

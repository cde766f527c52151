package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

// scopedAPI is the public server over an environment on either backend.
func scopedAPI(t *testing.T, e *testenv.Env) *identityAPI {
	t.Helper()
	s := &web.Server{
		Logger: slogDiscard(), BaseURL: identityBaseURL, AppName: "Sendlater", Clock: e.Clock,
		Identities: e.Auth, Messages: e.Messages, Contact: e.Contact,
		Postpone: e.Postpone, Refusals: e.Refuse, WebhookSecrets: e.WebhookSecrets, Social: e.Social,
		StreamHeartbeat: testHeartbeat, Drafts: e.Drafts, Attachments: e.Attachments,
	}
	if g, ok := e.Store.(core.UserGenerations); ok {
		s.Generations = g // the kept replies, as serve wires them
	}
	if err := s.Open("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return &identityAPI{Env: e, t: t, srv: s, logs: &lockedBuffer{}}
}

// wantScope fails unless the reply was 403 auth/insufficient-scope in words
// that name scope.
func wantScope(t *testing.T, a *identityAPI, scope, method, path, bearer string, body any) {
	t.Helper()
	_, env := a.fail(nil, http.StatusForbidden, core.EInsufficientScope, method, path, bearer, body)
	if !strings.Contains(env.Message, `"`+scope+`"`) {
		t.Fatalf("%s %s: %q does not name the scope %q", method, path, env.Message, scope)
	}
}

// Over HTTP: a token is made with the scopes asked for (read-only when none
// are), unknown ones are 422 on the field scopes, the list shows each
// token's scopes, and a call beyond them is 403 auth/insufficient-scope.
func TestTokenScopesOverHTTP(t *testing.T) {
	testenv.Backends(t, testenv.Config{Start: testenv.DefaultStart}, func(t *testing.T, e *testenv.Env) {
		a := scopedAPI(t, e)
		toks, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: pw}, core.Client{})
		must(t, err)
		session := toks.IDToken
		letter := map[string]string{"title": "Rent", "name": "Bob", "recipient": "bob@example.com", "message": "The key."}

		for _, body := range []string{`{"name":"x","scopes":["messages:read","admin"]}`, `{"name":"x","scopes":[]}`} {
			_, env := a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, "POST", "/api/me/tokens", session, body)
			if !strings.Contains(env.Fields["scopes"], "messages:read, messages:write, account") {
				t.Fatalf("%s: fields %v, want the rule on scopes", body, env.Fields)
			}
		}
		var list []web.AccessTokenJSON
		a.ok(nil, http.StatusOK, "GET", "/api/me/tokens", session, nil, &list)
		if len(list) != 0 {
			t.Fatalf("a refused request made a token: %+v", list)
		}

		var reader, writer web.CreatedTokenJSON
		a.ok(nil, http.StatusCreated, "POST", "/api/me/tokens", session, map[string]string{"name": "reader"}, &reader)
		e.Clock.Add(time.Second) // the list is oldest first
		a.ok(nil, http.StatusCreated, "POST", "/api/me/tokens", session,
			map[string]any{"name": "tui", "scopes": []string{core.ScopeMessagesRead, core.ScopeMessagesWrite}}, &writer)
		if !slices.Equal(reader.Scopes, []string{core.ScopeMessagesRead}) || !slices.Equal(writer.Scopes, []string{core.ScopeMessagesRead, core.ScopeMessagesWrite}) {
			t.Fatalf("made with scopes %q and %q", reader.Scopes, writer.Scopes)
		}
		e.Clock.Add(time.Second)
		old := core.AccessTokenPrefix + core.NewSecret()
		must(t, e.Store.CreateAccessToken(e.Ctx, &core.AccessToken{UserID: toks.User.ID, Name: "old",
			Hash: core.HashSecret(old), CreatedAt: e.Clock.Now()}))

		resp, env := a.call(nil, "GET", "/api/me/tokens", session, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("list: %d %+v", resp.StatusCode, env)
		}
		var raw []map[string]any
		must(t, json.Unmarshal(env.Data, &raw))
		if len(raw) != 3 || raw[0]["madeBeforeScopes"] != nil || raw[2]["madeBeforeScopes"] != true ||
			len(raw[0]["scopes"].([]any)) != 1 || len(raw[2]["scopes"].([]any)) != 3 {
			t.Fatalf("the list: %s", env.Data)
		}

		a.ok(nil, http.StatusOK, "GET", "/api/messages", reader.Token, nil, nil)
		a.ok(nil, http.StatusOK, "GET", "/api/me", reader.Token, nil, nil)
		wantScope(t, a, core.ScopeMessagesWrite, "POST", "/api/messages", reader.Token, letter)
		wantScope(t, a, core.ScopeAccount, "PATCH", "/api/me", reader.Token, map[string]string{"name": "Mallory"})
		wantScope(t, a, core.ScopeAccount, "GET", "/api/me/tokens", reader.Token, nil)
		wantScope(t, a, core.ScopeAccount, "POST", "/api/me/tokens", reader.Token, map[string]string{"name": "more"})
		wantScope(t, a, core.ScopeAccount, "GET", "/api/me/export", reader.Token, nil)

		var m web.MessageJSON
		a.ok(nil, http.StatusCreated, "POST", "/api/messages", writer.Token, letter, &m)
		a.ok(nil, http.StatusOK, "DELETE", "/api/messages/"+m.ID, writer.Token, nil, nil)
		wantScope(t, a, core.ScopeAccount, "PATCH", "/api/me", writer.Token, map[string]string{"name": "Mallory"})
		wantScope(t, a, core.ScopeAccount, "DELETE", "/api/me/tokens/"+reader.ID, writer.Token, nil)

		// The token from before scopes keeps working in full.
		a.ok(nil, http.StatusCreated, "POST", "/api/messages", old, letter, nil)
		a.ok(nil, http.StatusOK, "PATCH", "/api/me", old, map[string]string{"name": "Ann"}, nil)
	})
}

// The replies the server keeps of an author's reads (the list's pages, a
// message) are the author's whoever read them: one kept from the session's
// read is not given to a token without messages:read.
func TestAKeptReadNeedsTheReadScope(t *testing.T) {
	testenv.Backends(t, testenv.Config{Start: testenv.DefaultStart}, func(t *testing.T, e *testenv.Env) {
		a := scopedAPI(t, e)
		if a.srv.Generations == nil {
			t.Fatal("the server keeps no replies: the test would prove nothing")
		}
		toks, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: pw}, core.Client{})
		must(t, err)
		session := toks.IDToken
		var m web.MessageJSON
		a.ok(nil, http.StatusCreated, "POST", "/api/messages", session,
			map[string]string{"title": "Rent", "name": "Bob", "recipient": "bob@example.com", "message": "The key."}, &m)
		var writer web.CreatedTokenJSON
		a.ok(nil, http.StatusCreated, "POST", "/api/me/tokens", session,
			map[string]any{"name": "writer", "scopes": []string{core.ScopeMessagesWrite}}, &writer)
		for _, path := range []string{"/api/messages", "/api/messages/" + m.ID} {
			a.ok(nil, http.StatusOK, "GET", path, session, nil, nil) // kept now
			wantScope(t, a, core.ScopeMessagesRead, "GET", path, writer.Token, nil)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

package web_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

// An author's draft comes back as it was put, replaced by the next, gone
// after DELETE, with the message it edits and with the account; another
// author reads none of it, whatever key they try.
func TestDraftsOverHTTP(t *testing.T) {
	testenv.Backends(t, testenv.Config{Start: testenv.DefaultStart}, func(t *testing.T, e *testenv.Env) {
		a := scopedAPI(t, e)
		ann, annID := signedUp(t, e, "ann@example.com")
		bob, _ := signedUp(t, e, "bob@example.com")

		noDraft(t, a, ann, "new")
		a.fail(nil, http.StatusUnauthorized, core.EInvalidToken, "GET", "/api/drafts/new", "", nil)
		put := map[string]any{"title": "To Grace", "message": "Dear Grace,\n\nlater.", "interval": "6M",
			"recipients": []map[string]string{{"name": "Grace", "recipient": "grace@exa"}}}
		var got, again web.DraftJSON
		a.ok(nil, http.StatusOK, "PUT", "/api/drafts/new", ann, put, &got)
		want := web.DraftJSON{Key: "new", Title: "To Grace", Message: "Dear Grace,\n\nlater.", Interval: "6M",
			Recipients: []web.DraftRecipientJSON{{Name: "Grace", Recipient: "grace@exa"}}, UpdatedAt: e.Clock.Now().UnixMilli()}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("PUT answered %+v, want %+v", got, want)
		}
		a.ok(nil, http.StatusOK, "GET", "/api/drafts/new", ann, nil, &again)
		if !reflect.DeepEqual(again, want) {
			t.Fatalf("GET = %+v, want %+v", again, want)
		}
		// Bob's "new" is his own; Ann's message's draft is not his to read,
		// write or delete: her message is not found, as every other of hers.
		noDraft(t, a, bob, "new")
		var m web.MessageJSON
		a.ok(nil, http.StatusCreated, "POST", "/api/messages", ann,
			map[string]string{"title": "Rent", "name": "Bob", "recipient": "bob@example.com", "message": "The key."}, &m)
		a.ok(nil, http.StatusOK, "PUT", "/api/drafts/"+m.ID, ann, map[string]any{"title": "Rent", "message": "The key, edited."}, nil)
		for _, method := range []string{"GET", "PUT", "DELETE"} {
			a.fail(nil, http.StatusNotFound, core.EMessageNotFound, method, "/api/drafts/"+m.ID, bob, map[string]any{"message": "mine now"})
		}
		a.ok(nil, http.StatusOK, "GET", "/api/drafts/"+m.ID, ann, nil, &got)
		if got.Message != "The key, edited." {
			t.Fatalf("Ann's draft after Bob's tries: %+v", got)
		}
		// Keys are "new" or one's own message: no other key stores anything.
		a.fail(nil, http.StatusNotFound, core.EMessageNotFound, "PUT", "/api/drafts/anything", ann, put)

		// Bounded like a message; a refused draft changes nothing.
		for field, body := range map[string]map[string]any{
			"title":      {"title": "two\nlines"},
			"message":    {"message": strings.Repeat("x", core.MaxBodyBytes+1)},
			"interval":   {"interval": "2Y"},
			"recipients": {"recipients": make([]map[string]string, core.MaxRecipients+1)},
		} {
			_, env := a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, "PUT", "/api/drafts/new", ann, body)
			if env.Fields[field] == "" {
				t.Fatalf("%s refused with fields %v, want one on %s", field, env.Fields, field)
			}
		}
		a.ok(nil, http.StatusOK, "GET", "/api/drafts/new", ann, nil, &again)
		if !reflect.DeepEqual(again, want) {
			t.Fatalf("a refused PUT changed the draft: %+v", again)
		}

		// A later PUT replaces it; DELETE deletes it (twice is fine).
		e.Clock.Add(time.Minute)
		a.ok(nil, http.StatusOK, "PUT", "/api/drafts/new", ann, map[string]any{"message": "shorter"}, &got)
		if got.Title != "" || got.Message != "shorter" || len(got.Recipients) != 0 || got.UpdatedAt != e.Clock.Now().UnixMilli() {
			t.Fatalf("replaced: %+v", got)
		}
		a.ok(nil, http.StatusOK, "DELETE", "/api/drafts/new", ann, nil, nil)
		a.ok(nil, http.StatusOK, "DELETE", "/api/drafts/new", ann, nil, nil)
		noDraft(t, a, ann, "new")

		// A message's draft goes with the message.
		a.ok(nil, http.StatusOK, "DELETE", "/api/messages/"+m.ID, ann, nil, nil)
		a.fail(nil, http.StatusNotFound, core.EMessageNotFound, "GET", "/api/drafts/"+m.ID, ann, nil)
		_, err := e.Store.Draft(e.Ctx, annID, m.ID)
		if core.ErrorCode(err) != core.EDraftNotFound {
			t.Fatalf("the deleted message's draft is still stored: %v", err)
		}
	})
}

// A token needs messages:write for drafts: they hold what the author writes.
func TestDraftsScope(t *testing.T) {
	e := newTestEnv(t, slogDiscard())
	a := scopedAPI(t, e)
	ann, _ := signedUp(t, e, "ann@example.com")
	var reader web.CreatedTokenJSON
	a.ok(nil, http.StatusCreated, "POST", "/api/me/tokens", ann, map[string]string{"name": "reader"}, &reader)
	for _, method := range []string{"GET", "PUT", "DELETE"} {
		wantScope(t, a, core.ScopeMessagesWrite, method, "/api/drafts/new", reader.Token, map[string]string{"message": "x"})
	}
}

// signedUp signs up email and returns its ID token and user id.
func signedUp(t *testing.T, e *testenv.Env, email string) (token, uid string) {
	t.Helper()
	toks, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: email, Password: pw}, core.Client{})
	must(t, err)
	return toks.IDToken, toks.User.ID
}

// noDraft fails unless GET /api/drafts/{key} answers null: no draft.
func noDraft(t *testing.T, a *identityAPI, token, key string) {
	t.Helper()
	var got any = "not null"
	a.ok(nil, http.StatusOK, "GET", "/api/drafts/"+key, token, nil, &got)
	if got != nil {
		t.Fatalf("GET /api/drafts/%s = %v, want null", key, got)
	}
}

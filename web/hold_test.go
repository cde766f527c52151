package web_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/sendlater/sendlater/web"
)

// PUT /api/me/hold holds the author's messages until a date the session
// user then carries; DELETE ends it. Bad dates name the field and change
// nothing.
func TestHoldAPI(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.author("ann@example.com")
	now := a.Clock.Now()

	for _, until := range []any{nil, now.Add(-time.Hour).UnixMilli(), now.AddDate(1, 0, 2).UnixMilli(), "tomorrow"} {
		code := "request/validation"
		status := http.StatusUnprocessableEntity
		if _, ok := until.(string); ok {
			code, status = "request/invalid-json", http.StatusBadRequest
		}
		_, env := a.fail(nil, status, code, "PUT", "/api/me/hold", ann.token, map[string]any{"until": until})
		if code == "request/validation" && env.Fields["until"] == "" {
			t.Fatalf("until %v: fields %v", until, env.Fields)
		}
	}
	var me web.SessionUserJSON
	a.ok(nil, http.StatusOK, "GET", "/api/me", ann.token, nil, &me)
	if me.HoldUntil != nil {
		t.Fatalf("held after refused holds: %v", *me.HoldUntil)
	}

	until := now.Add(14 * 24 * time.Hour).UnixMilli()
	a.ok(nil, http.StatusOK, "PUT", "/api/me/hold", ann.token, map[string]any{"until": until}, &me)
	if me.HoldUntil == nil || *me.HoldUntil != until {
		t.Fatalf("after PUT: %+v", me)
	}
	a.ok(nil, http.StatusOK, "GET", "/api/me", ann.token, nil, &me)
	if me.HoldUntil == nil || *me.HoldUntil != until {
		t.Fatalf("GET /api/me: %+v", me)
	}
	a.ok(nil, http.StatusOK, "DELETE", "/api/me/hold", ann.token, nil, &me)
	if me.HoldUntil != nil {
		t.Fatalf("after DELETE: %v", *me.HoldUntil)
	}
	a.fail(nil, http.StatusUnauthorized, "auth/invalid-user-token", "PUT", "/api/me/hold", "", map[string]any{"until": until})
}

package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/sendlater/sendlater/core"
)

// The identity a request acts as (withIdentity) is its own: never seen by
// another request, whether signed in as someone else or not at all, at the
// same time or after, and it stays in the request's context once set.
func TestIdentityStaysWithItsRequest(t *testing.T) {
	var mu sync.Mutex
	kept := map[string]context.Context{} // each signed-in request's context, by user
	mux := http.NewServeMux()
	mux.HandleFunc("/signed-in", func(w http.ResponseWriter, r *http.Request) {
		user := r.URL.Query().Get("user")
		if core.IdentityFrom(r.Context()) != nil {
			t.Errorf("%s: an identity before signing in", user)
		}
		r = withIdentity(r, &core.Identity{UserID: user})
		if id := core.IdentityFrom(r.Context()); id == nil || id.UserID != user {
			t.Errorf("%s acts as %v", user, id)
		}
		mu.Lock()
		kept[user] = r.Context()
		mu.Unlock()
	})
	mux.HandleFunc("/anonymous", func(w http.ResponseWriter, r *http.Request) {
		if id := core.IdentityFrom(r.Context()); id != nil {
			t.Errorf("an anonymous request acts as %s", id.UserID)
		}
	})
	h := withRequest(slog.New(slog.DiscardHandler), nil, nil, false, true, mux)

	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/signed-in?user=u"+strconv.Itoa(i), nil))
		})
		wg.Go(func() { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/anonymous", nil)) })
	}
	wg.Wait()
	for user, ctx := range kept {
		if id := core.IdentityFrom(ctx); id == nil || id.UserID != user {
			t.Fatalf("%s's request now acts as %v", user, id)
		}
	}

	// Outside withRequest (tests, handlers called directly) the identity
	// rides on a copy of the request.
	r := httptest.NewRequest("GET", "/", nil)
	signed := withIdentity(r, &core.Identity{UserID: "ann"})
	if core.IdentityFrom(r.Context()) != nil || core.IdentityFrom(signed.Context()).UserID != "ann" {
		t.Fatal("withIdentity outside withRequest")
	}
}

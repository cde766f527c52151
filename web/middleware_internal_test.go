package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
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

type parentKey struct{}

// The request's context (the request struct itself) is the context the
// request came with, plus the request and its identity slot: a value the
// connection put there (the admin socket's peer) is still seen, the
// request's end still reaches contexts made from it, an identity set on top
// with core.WithIdentity hides the slot's, and every request has an id of
// its own, 16 hex digits, the one its reply carries.
func TestRequestIsItsContext(t *testing.T) {
	ids := map[string]bool{}
	var mu sync.Mutex
	h := withRequest(slog.New(slog.DiscardHandler), nil, nil, false, true, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if ctx.Value(parentKey{}) != "peer" {
			t.Error("the connection's value is lost")
		}
		rq, ok := ctx.Value(requestKey{}).(*request)
		if !ok || rq.id != w.Header().Get("X-Request-Id") || len(rq.id) != 16 || strings.Trim(rq.id, "0123456789abcdef") != "" {
			t.Errorf("request id %q, header %q", rq.id, w.Header().Get("X-Request-Id"))
		}
		mu.Lock()
		if ids[rq.id] {
			t.Errorf("id %s twice", rq.id)
		}
		ids[rq.id] = true
		mu.Unlock()
		r = withIdentity(r, &core.Identity{UserID: "ann"})
		over := core.WithIdentity(r.Context(), &core.Identity{UserID: "ben"})
		if core.IdentityFrom(r.Context()).UserID != "ann" || core.IdentityFrom(over).UserID != "ben" {
			t.Error("identities mixed")
		}
		child, cancel := context.WithCancel(r.Context())
		defer cancel()
		if r.URL.Query().Get("end") != "" {
			<-child.Done() // the request's end (its client gone) reaches it
		}
	}))
	for range 1000 {
		req := httptest.NewRequest("GET", "/", nil)
		h.ServeHTTP(httptest.NewRecorder(), req.WithContext(context.WithValue(req.Context(), parentKey{}, "peer")))
	}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), parentKey{}, "peer"))
	done := make(chan struct{})
	go func() {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequestWithContext(ctx, "GET", "/?end=1", nil))
		close(done)
	}()
	cancel()
	<-done
}

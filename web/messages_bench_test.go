package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
)

// benchAPI is the handler over a store holding one Pro author with 20
// messages, and the author's ID token. The access log is on, as in
// production, into io.Discard.
func benchAPI(b *testing.B) (http.Handler, string) {
	b.Helper()
	e := newHandlerEnv(b)
	tok := e.proAuthor(b, "bench@example.com")
	for range 20 {
		if _, err := e.Messages.Create(e.As(tok.User.ID), core.MessageInput{
			Title: "For my sister", Name: "Ann", Recipient: "ann@example.com",
			Body: strings.Repeat("A letter for the future. ", 20), Interval: core.Interval12M,
		}); err != nil {
			b.Fatal(err)
		}
	}
	return e.handler(slogDiscard()), tok.IDToken
}

// BenchmarkListMessages is one authenticated GET /api/messages of 20
// messages, without the network: what the server spends per request.
func BenchmarkListMessages(b *testing.B) {
	h, token := benchAPI(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		req := httptest.NewRequest("GET", "/api/messages", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		for pb.Next() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("%d %s", rec.Code, rec.Body)
			}
		}
	})
}

// benchRead runs one authenticated GET of path (the bench author's list
// gives "{id}" its first message) back to back on every CPU.
func benchRead(b *testing.B, path string) {
	h, token := benchAPI(b)
	if strings.Contains(path, "{id}") {
		req := httptest.NewRequest("GET", "/api/messages", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		_, rest, _ := strings.Cut(rec.Body.String(), `"id":"`)
		id, _, _ := strings.Cut(rest, `"`)
		path = strings.Replace(path, "{id}", id, 1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		for pb.Next() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("%d %s", rec.Code, rec.Body)
			}
		}
	})
}

// BenchmarkMe is one authenticated GET /api/me, without the network.
func BenchmarkMe(b *testing.B) { benchRead(b, "/api/me") }

// BenchmarkGetMessage is one authenticated GET /api/messages/{id}, without
// the network.
func BenchmarkGetMessage(b *testing.B) { benchRead(b, "/api/messages/{id}") }

// BenchmarkSignInRest is POST /api/auth/signin for an account whose
// password hash costs next to nothing: what a sign-in spends beside
// argon2id through the whole server (the body, the limits, the account, the
// session's write, the refresh cookie, the reply and the access line).
// core's BenchmarkSignInParts sets it beside the hash (issue 35).
func BenchmarkSignInRest(b *testing.B) {
	e := newHandlerEnv(b)
	u := e.MustUser(b, "rest@example.com", "UTC", core.PlanStarter)
	if _, err := e.DB.UpdateUser(e.Ctx, u.ID, func(x *core.User) error {
		x.PasswordHash, x.EmailVerified = core.HashPassword(pw, core.PasswordParams{Memory: 8, Time: 1, Threads: 1}), true
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	h := e.handler(slogDiscard())
	body := `{"email":"rest@example.com","password":"` + pw + `"}`
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "/api/auth/signin", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
}

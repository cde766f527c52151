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

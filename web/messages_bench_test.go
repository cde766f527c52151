package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/mailer/mailertest"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/web"
)

// benchAPI is the handler over a store holding one Pro author with 20
// messages, and the author's ID token. The access log is on, as in
// production, into io.Discard.
func benchAPI(b *testing.B) (http.Handler, string) {
	b.Helper()
	db, err := bolt.Open(filepath.Join(b.TempDir(), "bench.db"), bolt.Options{
		Key: []byte("k3y-0f-32-bytes-for-aes-256-gcm!"), NoSync: true,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	emails, err := mailer.NewTemplates("Sendlater", identityBaseURL)
	if err != nil {
		b.Fatal(err)
	}
	clock := core.NewManualClock(time.Now())
	auth := &core.Auth{
		Users: db, Sessions: db, AccessTokens: db, ActionCodes: db, Messages: db,
		Mailer: &mailertest.Mailer{}, Emails: emails, Clock: clock, BaseURL: identityBaseURL,
		SigningKey:     []byte("an ID token signing key of 32+ bytes"),
		PasswordParams: core.PasswordParams{Memory: 64, Time: 1, Threads: 1},
	}
	messages := &core.MessageService{Messages: db, Users: db, Clock: clock}
	ctx := context.Background()
	tok, err := auth.SignUp(ctx, core.SignUpInput{Email: "bench@example.com", Password: pw}, core.Client{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.UpdateUser(ctx, tok.User.ID, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = core.PriceMap{}.PriceFor(core.PlanPro), "active"
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	for range 20 {
		if _, err := messages.Create(ctx, tok.User.ID, core.MessageInput{
			Title: "For my sister", Name: "Ann", Recipient: "ann@example.com",
			Body: strings.Repeat("A letter for the future. ", 20), Interval: core.Interval12M,
		}); err != nil {
			b.Fatal(err)
		}
	}
	s := &web.Server{
		Logger: slogDiscard(), BaseURL: identityBaseURL, Clock: clock, Users: db, Auth: auth, Messages: messages,
		Watcher: db,
	}
	return s.Handler(), tok.IDToken
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

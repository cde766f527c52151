package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

// GET /api/me's encoded reply is kept per user under their generation, and
// its gzip form beside it (a long picture address makes the reply worth
// compressing): read plain and gzipped, the same bytes; after every write
// (through the service, of the store itself, a message added or deleted,
// which turns canAddMessage), the very next read shows it, while other
// reads of the same user race the writes; a hold shows until it ends with
// no write in between; and one user's reply is never another's, even under
// the race. On both backends (PostgreSQL serving generations, as serve
// does).
func TestKeptMeIsNeverStale(t *testing.T) {
	testenv.Backends(t, testenv.Config{Start: time.Now()}, func(t *testing.T, e *testenv.Env) {
		if g, ok := e.Store.(core.GenerationServer); ok {
			g.ServeGenerations()
		}
		s := &web.Server{
			Logger: slogDiscard(), BaseURL: identityBaseURL, AppName: "Sendlater", Clock: e.Clock,
			Identities: e.Auth, Messages: e.Messages, Contact: e.Contact,
			Postpone: e.Postpone, Refusals: e.Refuse, WebhookSecrets: e.WebhookSecrets, Social: e.Social,
			StreamHeartbeat: testHeartbeat, Generations: e.Store.(core.UserGenerations),
		}
		h := s.Handler()
		signUp := func(email string) *core.Tokens {
			tok, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: email, Password: pw}, core.Client{})
			must(t, err)
			return tok
		}
		ann, ben := signUp("ann@example.com"), signUp("ben@example.com")
		picture := "https://pictures.example.com/" + strings.Repeat("ann", 500)
		_, err := e.Auth.UpdateProfile(e.As(ann.User.ID), core.ProfileUpdate{Picture: &picture})
		must(t, err)

		var meWith func(token, email string, want ...string) string
		// me reads /api/me for tok, plain and gzipped, and checks that both
		// are the same 200 reply holding want and the gzip form is gzip.
		me := func(tok *core.Tokens, want ...string) string {
			t.Helper()
			return meWith(tok.IDToken, tok.User.Email, want...)
		}
		meWith = func(token, email string, want ...string) string {
			t.Helper()
			plain := readWith(h, "/api/me", token, "")
			rec, body := readGzip(t, h, "/api/me", token)
			if plain.Code != http.StatusOK || rec.Code != http.StatusOK || body != plain.Body.String() {
				t.Fatalf("GET /api/me: %d, gzipped %d, differ:\n%.300s\n%.300s", plain.Code, rec.Code, plain.Body, body)
			}
			if plain.Header().Get("Content-Length") != fmt.Sprint(plain.Body.Len()) {
				t.Fatalf("GET /api/me: Content-Length %s for %d bytes", plain.Header().Get("Content-Length"), plain.Body.Len())
			}
			for _, w := range append(want, `"email":"`+email+`"`) {
				if !strings.Contains(body, w) {
					t.Fatalf("GET /api/me as %s: want %s:\n%.400s", email, w, body)
				}
			}
			return rec.Header().Get("Content-Encoding")
		}
		for range 2 { // made, then kept
			if enc := me(ann, picture, `"canAddMessage":true`); enc != "gzip" {
				t.Fatalf("GET /api/me of %d bytes with gzip: Content-Encoding %q", len(picture), enc)
			}
			if enc := me(ben); enc != "" {
				t.Fatalf("a short GET /api/me with gzip: Content-Encoding %q", enc)
			}
		}

		// Readers race the writes, each as one user: a reply always names
		// its own user.
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for i, tok := range []*core.Tokens{ann, ben, ann, ben} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					req := httptest.NewRequest("GET", "/api/me", nil)
					req.Header.Set("Authorization", "Bearer "+tok.IDToken)
					if i%2 == 0 {
						req.Header.Set("Accept-Encoding", "gzip")
					}
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					other := ann
					if tok == ann {
						other = ben
					}
					if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), other.User.Email) {
						t.Errorf("a racing GET /api/me as %s: %d, names %s", tok.User.Email, rec.Code, other.User.Email)
						return
					}
				}
			}()
		}
		stopRace := sync.OnceFunc(func() { close(stop); wg.Wait() })
		defer stopRace()

		var made *core.Message
		for i := 1; i <= 30; i++ {
			name := fmt.Sprintf("Ann %d", i)
			want := []string{`"name":"` + name + `"`}
			switch i % 3 {
			case 0:
				_, err = e.Auth.UpdateProfile(e.As(ann.User.ID), core.ProfileUpdate{Name: &name})
			case 1: // a write of the store itself, as the CLI or another process makes
				_, err = e.Store.UpdateUser(e.Ctx, ann.User.ID, func(u *core.User) error {
					u.Name = name
					return nil
				})
			case 2: // and a message added or deleted between two of those
				_, err = e.Store.UpdateUser(e.Ctx, ann.User.ID, func(u *core.User) error {
					u.Name = name
					return nil
				})
				must(t, err)
				if made == nil {
					made, err = e.Messages.Create(e.As(ann.User.ID), core.MessageInput{
						Title: "One", Name: "Cy", Recipient: "cy@example.com", Body: "Later.", Interval: core.Interval1M,
					})
					want = append(want, `"canAddMessage":false`)
				} else {
					err = e.Messages.Delete(e.As(ann.User.ID), made.ID)
					made = nil
					want = append(want, `"canAddMessage":true`)
				}
			}
			must(t, err)
			me(ann, want...)
		}

		// A hold is in the reply until it ends, and not after, with no
		// write in between: read with a personal access token, whose use
		// writes neither a session nor the user, and no other reads.
		stopRace()
		id, err := e.Auth.Authenticate(e.Ctx, ann.IDToken)
		must(t, err)
		_, pat, err := e.Auth.CreateAccessToken(e.Acting(id), "reader", core.AllScopes)
		must(t, err)
		end := e.Clock.Now().Add(10 * time.Minute)
		_, err = core.SetHold(e.Ctx, e.Store, e.Store, e.Clock.Now(), ann.User.ID, end, "test")
		must(t, err)
		held := fmt.Sprintf(`"holdUntil":%d`, end.UnixMilli())
		meWith(pat, ann.User.Email, held)
		meWith(pat, ann.User.Email, held)
		e.Clock.Add(10 * time.Minute)
		meWith(pat, ann.User.Email, `"holdUntil":null`)
		meWith(pat, ann.User.Email, `"holdUntil":null`)
	})
}

// A user's kept /api/me is never another's, whatever their generations:
// the key names the user.
func TestKeptMeIsKeyedByItsUser(t *testing.T) {
	e := newHandlerEnv(t)
	s := newTestServer(e.Env, slogDiscard())
	s.Generations = sameGeneration{e.DB}
	h := s.Handler()
	ann, ben := e.proAuthor(t, "ann@example.com"), e.proAuthor(t, "ben@example.com")
	for range 2 {
		for _, tok := range []*core.Tokens{ann, ben} {
			rec := readWith(h, "/api/me", tok.IDToken, "")
			if body := rec.Body.String(); rec.Code != http.StatusOK || !strings.Contains(body, `"email":"`+tok.User.Email+`"`) {
				t.Fatalf("GET /api/me as %s: %d %s", tok.User.Email, rec.Code, body)
			}
		}
	}
	// A token that no longer proves anyone gets no kept reply.
	if rec := readWith(h, "/api/me", ann.IDToken+"x", ""); rec.Code != http.StatusUnauthorized || strings.Contains(rec.Body.String(), "ann@example.com") {
		t.Fatalf("GET /api/me with a broken token: %d %s", rec.Code, rec.Body)
	}
}

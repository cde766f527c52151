package web_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
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

// readGzip reads path with token as a browser does (Accept-Encoding:
// gzip) and returns the reply with its body unzipped when it came gzipped.
func readGzip(t *testing.T, h http.Handler, path, token string) (rec *httptest.ResponseRecorder, body string) {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept-Encoding", "gzip, deflate, br")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Header().Get("Content-Encoding") != "gzip" {
		return rec, rec.Body.String()
	}
	zr, err := gzip.NewReader(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatalf("GET %s: not gzip: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("GET %s: broken gzip: %v", path, err)
	}
	if n := rec.Header().Get("Content-Length"); n != fmt.Sprint(rec.Body.Len()) {
		t.Fatalf("GET %s: Content-Length %s for %d gzipped bytes", path, n, rec.Body.Len())
	}
	return rec, string(b)
}

// A client that takes gzip (every browser, Go's HTTP client) gets the kept
// reply's gzip form, made once per generation: once unzipped, the same bytes
// and ETag as the plain reply; after every write, through the service or
// the store, the next read is the new reply, while other reads race it; and
// one author's gzip form is never another's. On both backends (PostgreSQL
// serving generations, as serve does).
func TestKeptGzipRepliesAreNeverStale(t *testing.T) {
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
		author := func(email string) *core.Tokens {
			tok, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: email, Password: pw}, core.Client{})
			must(t, err)
			_, err = e.Store.UpdateUser(e.Ctx, tok.User.ID, func(u *core.User) error {
				u.StripePriceID, u.StripeSubscriptionStatus = core.PriceMap{}.PriceFor(core.PlanPro), "active"
				return nil
			})
			must(t, err)
			return tok
		}
		ann, ben := author("ann@example.com"), author("ben@example.com")
		long := strings.Repeat("A letter long enough to be worth compressing. ", 60)
		m, err := e.Messages.Create(e.As(ann.User.ID), core.MessageInput{
			Title: "v0", Name: "Cy", Recipient: "cy@example.com", Body: long, Interval: core.Interval1M,
		})
		must(t, err)
		paths := []string{"/api/messages", "/api/messages/" + m.ID}

		for _, p := range paths {
			plain := readWith(h, p, ann.IDToken, "")
			for range 2 { // made, then kept
				rec, body := readGzip(t, h, p, ann.IDToken)
				if rec.Code != http.StatusOK || rec.Header().Get("Content-Encoding") != "gzip" || rec.Header().Get("Vary") != "Accept-Encoding" {
					t.Fatalf("GET %s with gzip: %d %v", p, rec.Code, rec.Header())
				}
				if body != plain.Body.String() || rec.Header().Get("ETag") != plain.Header().Get("ETag") {
					t.Fatalf("GET %s: the gzip form differs from the plain reply:\n%s\n%s", p, body, plain.Body)
				}
			}
			if rec, body := readGzip(t, h, p, ben.IDToken); strings.Contains(body, long) || (p == paths[1] && rec.Code != http.StatusNotFound) {
				t.Fatalf("another author's GET %s with gzip: %d %s", p, rec.Code, body)
			}
		}

		// Readers race the writes; after each write returns, the next read
		// shows it, gzipped or not.
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					for _, p := range paths {
						req := httptest.NewRequest("GET", p, nil)
						req.Header.Set("Authorization", "Bearer "+ann.IDToken)
						req.Header.Set("Accept-Encoding", "gzip")
						h.ServeHTTP(httptest.NewRecorder(), req)
					}
				}
			}()
		}
		defer func() { close(stop); wg.Wait() }()
		for i := 1; i <= 30; i++ {
			title := fmt.Sprintf("v%d", i)
			if i%2 == 0 {
				_, err = e.Messages.Update(e.As(ann.User.ID), m.ID, core.MessageUpdate{Title: &title})
			} else { // a write of the store itself, as the CLI or another process makes
				_, err = e.Store.UpdateMessage(e.Ctx, m.ID, func(m *core.Message) error {
					m.Title = title
					return nil
				})
			}
			must(t, err)
			for _, p := range paths {
				if _, body := readGzip(t, h, p, ann.IDToken); !strings.Contains(body, `"title":"`+title+`"`) {
					t.Fatalf("after write %d, GET %s with gzip is stale:\n%.200s", i, p, body)
				}
			}
		}
	})
}

package web_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// A request its client cancelled is logged as a cancellation, with no
// error line and no 500 anywhere in the log.
func TestCancelledRequestIsNoServerError(t *testing.T) {
	e := newHandlerEnv(t)
	tok := e.proAuthor(t, "gone@example.com")
	var logs lockedBuffer
	h := e.handler(slog.New(slog.NewTextHandler(&logs, nil)))
	for _, path := range []string{"/api/messages", "/api/me"} {
		ctx, cancel := context.WithCancel(context.Background())
		req := httptest.NewRequest("GET", path, nil).WithContext(ctx)
		req.Header.Set("Authorization", "Bearer "+tok.IDToken)
		cancel() // the client went away before the server read the store
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code == http.StatusInternalServerError {
			t.Errorf("GET %s cancelled: %d %s", path, rec.Code, rec.Body)
		}
	}
	out := logs.String()
	if strings.Contains(out, "level=ERROR") || strings.Contains(out, "status=500") || strings.Contains(out, "internal/error") {
		t.Fatalf("a cancelled request logged as a server error:\n%s", out)
	}
	if !strings.Contains(out, "request cancelled by the client") {
		t.Fatalf("no cancellation in the log:\n%s", out)
	}
}

// readWith reads path with token (and If-None-Match when etag is set).
func readWith(h http.Handler, path, token, etag string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// The list and a message carry an ETag; the same tag back is answered 304
// without a body, and any change — the author in another tab, the
// scheduler's reminder, an operator's command (the CLI's path) — gives a new
// tag and the new reply, never the old one.
func TestReadsAnswerNotModifiedAndAreNeverStale(t *testing.T) {
	e := newHandlerEnv(t)
	tok := e.proAuthor(t, "tags@example.com")
	h := e.handler(slogDiscard())
	m, err := e.Messages.Create(e.As(tok.User.ID), core.MessageInput{
		Title: "Tagged", Name: "Ann", Recipient: "ann@example.com", Body: "Hello later.", Interval: core.Interval1M,
	})
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"/api/messages", "/api/messages/" + m.ID}
	tags := map[string]string{}
	for _, p := range paths {
		first := readWith(h, p, tok.IDToken, "")
		tags[p] = first.Header().Get("ETag")
		if first.Code != http.StatusOK || !strings.HasPrefix(tags[p], `W/"`) {
			t.Fatalf("GET %s: %d, ETag %q", p, first.Code, tags[p])
		}
		again := readWith(h, p, tok.IDToken, tags[p])
		if again.Code != http.StatusNotModified || again.Body.Len() != 0 || again.Header().Get("ETag") != tags[p] {
			t.Fatalf("GET %s with its tag: %d, %d bytes, ETag %q", p, again.Code, again.Body.Len(), again.Header().Get("ETag"))
		}
		if other := readWith(h, p, tok.IDToken, `W/"something else", "another"`); other.Code != http.StatusOK {
			t.Fatalf("GET %s with other tags: %d", p, other.Code)
		}
	}
	// Someone who may not read the message gets no 304 for guessing its tag.
	stranger := e.proAuthor(t, "stranger@example.com")
	if rec := readWith(h, paths[1], stranger.IDToken, tags[paths[1]]); rec.Code != http.StatusNotFound {
		t.Fatalf("a stranger with the tag: %d", rec.Code)
	}

	changes := []struct {
		who    string
		change func()
		want   string // in the new reply
	}{
		{"another tab", func() {
			req := httptest.NewRequest("PATCH", "/api/messages/"+m.ID, strings.NewReader(`{"title":"Retitled"}`))
			req.Header.Set("Authorization", "Bearer "+tok.IDToken)
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Fatalf("PATCH: %d %s", rec.Code, rec.Body)
			}
		}, `"title":"Retitled"`},
		{"the scheduler", func() {
			e.Clock.Set(m.SendDate.Add(-9 * 24 * time.Hour))
			if _, err := e.Delivery.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			// Three weeks on, the author's ID token has expired: sign in again.
			again, err := e.Auth.SignIn(context.Background(), "tags@example.com", pw, core.Client{})
			if err != nil {
				t.Fatal(err)
			}
			tok = again
		}, `"status":"reminded"`},
		{"the CLI", func() {
			if _, err := e.Admin.SetMessageActive(context.Background(), m.ID, false); err != nil {
				t.Fatal(err)
			}
		}, `"isActive":false`},
	}
	for _, c := range changes {
		c.change()
		for _, p := range paths {
			rec := readWith(h, p, tok.IDToken, tags[p])
			if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), c.want) {
				t.Fatalf("after %s, GET %s with the old tag: %d, want 200 with %s:\n%s", c.who, p, rec.Code, c.want, rec.Body)
			}
			if tag := rec.Header().Get("ETag"); tag == tags[p] || tag == "" {
				t.Fatalf("after %s, GET %s: the tag stayed %q", c.who, p, tag)
			} else {
				tags[p] = tag
			}
		}
	}
}

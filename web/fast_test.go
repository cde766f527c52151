package web_test

import (
	"context"
	"fmt"
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

// The replies of the list's pages and of a message are kept under the
// author's generation (core.UserGenerations). Read with a personal access
// token, whose use writes neither a session nor the user, each change below
// is the only write between two reads: the scheduler's reminder, a write of
// the store itself, an operator's pause and resume (the CLI's path), the
// delivery. Each gives the new list and message at once, with new tags; and
// one author's kept reads are never another's.
func TestKeptListFollowsEveryWrite(t *testing.T) {
	e := newHandlerEnv(t)
	tok := e.proAuthor(t, "kept@example.com")
	h := e.handler(slogDiscard())
	m, err := e.Messages.Create(e.As(tok.User.ID), core.MessageInput{
		Title: "Kept", Name: "Ann", Recipient: "ann@example.com", Body: "Hello later.", Interval: core.Interval1M,
	})
	if err != nil {
		t.Fatal(err)
	}
	id, err := e.Auth.Authenticate(e.Ctx, tok.IDToken)
	if err != nil {
		t.Fatal(err)
	}
	_, pat, err := e.Auth.CreateAccessToken(e.Acting(id), "reader", core.AllScopes)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"/api/messages", "/api/messages/" + m.ID}
	tags := map[string]string{}
	for _, p := range paths {
		first := readWith(h, p, pat, "")
		tags[p] = first.Header().Get("ETag")
		if again := readWith(h, p, pat, ""); first.Code != http.StatusOK || again.Body.String() != first.Body.String() || again.Header().Get("ETag") != tags[p] {
			t.Fatalf("GET %s read twice: %d, differs:\n%s\n%s", p, first.Code, first.Body, again.Body)
		}
		if rec := readWith(h, p, pat, tags[p]); rec.Code != http.StatusNotModified {
			t.Fatalf("the kept GET %s with its tag: %d", p, rec.Code)
		}
	}

	// Another author's reads, after the first author's were kept, are their
	// own: their list, and no message of someone else's.
	other := e.proAuthor(t, "other@example.com")
	if rec := readWith(h, paths[0], other.IDToken, tags[paths[0]]); rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), m.ID) {
		t.Fatalf("another author's list: %d %s", rec.Code, rec.Body)
	}
	if rec := readWith(h, paths[1], other.IDToken, tags[paths[1]]); rec.Code != http.StatusNotFound || strings.Contains(rec.Body.String(), "Hello later") {
		t.Fatalf("another author's GET of the message: %d %s", rec.Code, rec.Body)
	}

	changes := []struct {
		who    string
		change func()
		want   string
	}{
		{"the scheduler's reminder", func() {
			e.Clock.Set(m.SendDate.Add(-9 * 24 * time.Hour))
			if _, err := e.Delivery.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
		}, `"status":"reminded"`},
		{"a write of the store", func() {
			if _, err := e.DB.UpdateMessage(context.Background(), m.ID, func(m *core.Message) error {
				m.Title = "Rewritten"
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}, `"title":"Rewritten"`},
		{"an operator's pause (the CLI)", func() {
			if _, err := e.Admin.SetMessageActive(context.Background(), m.ID, false); err != nil {
				t.Fatal(err)
			}
		}, `"isActive":false`},
		{"an operator's resume", func() {
			if _, err := e.Admin.SetMessageActive(context.Background(), m.ID, true); err != nil {
				t.Fatal(err)
			}
		}, `"isActive":true`},
		{"the delivery", func() {
			e.Clock.Set(m.SendDate.Add(time.Minute))
			if _, err := e.Delivery.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
		}, `"deliveredAt":`},
	}
	for _, c := range changes {
		c.change()
		for _, p := range paths {
			rec := readWith(h, p, pat, tags[p])
			if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), c.want) {
				t.Fatalf("after %s, GET %s with the old tag: %d, want 200 with %s:\n%s", c.who, p, rec.Code, c.want, rec.Body)
			}
			if next := rec.Header().Get("ETag"); next == tags[p] {
				t.Fatalf("after %s, the tag of GET %s stayed %q", c.who, p, next)
			} else {
				tags[p] = next
			}
		}
	}
}

// sameGeneration gives every user the same generation, which never moves:
// what keeps one author's kept reads from another's is then the key alone.
type sameGeneration struct{ core.UserGenerations }

func (sameGeneration) UserGeneration(string) uint64 { return 1 }

// One author's kept list and message are never another's, whatever their
// generations: the key names the author.
func TestKeptReadsAreKeyedByTheirAuthor(t *testing.T) {
	e := newHandlerEnv(t)
	s := newTestServer(e.Env, slogDiscard())
	s.Generations = sameGeneration{e.DB}
	h := s.Handler()
	ann, ben := e.proAuthor(t, "ann@example.com"), e.proAuthor(t, "ben@example.com")
	m, err := e.Messages.Create(e.As(ann.User.ID), core.MessageInput{
		Title: "Ann's", Name: "Cy", Recipient: "cy@example.com", Body: "For Cy only.", Interval: core.Interval1M,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/api/messages", "/api/messages/" + m.ID} {
		if rec := readWith(h, p, ann.IDToken, ""); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "For Cy only.") {
			t.Fatalf("Ann's GET %s: %d %s", p, rec.Code, rec.Body)
		}
	}
	if rec := readWith(h, "/api/messages", ben.IDToken, ""); rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), m.ID) {
		t.Fatalf("Ben's list: %d %s", rec.Code, rec.Body)
	}
	if rec := readWith(h, "/api/messages/"+m.ID, ben.IDToken, ""); rec.Code != http.StatusNotFound || strings.Contains(rec.Body.String(), "For Cy only.") {
		t.Fatalf("Ben's GET of Ann's message: %d %s", rec.Code, rec.Body)
	}
}

// /api/me keeps what it read (the user, whether they have messages) under
// the author's generation: a message the store adds and a plan the store
// changes show on the very next read.
func TestKeptProfileFollowsTheStore(t *testing.T) {
	e := newHandlerEnv(t)
	tok, err := e.Auth.SignUp(context.Background(), core.SignUpInput{Email: "free@example.com", Password: pw}, core.Client{})
	if err != nil {
		t.Fatal(err)
	}
	h := e.handler(slogDiscard())
	me := func(want string) {
		t.Helper()
		for range 2 { // the second from what was kept
			rec := readWith(h, "/api/me", tok.IDToken, "")
			if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), want) {
				t.Fatalf("GET /api/me: %d, want %s:\n%s", rec.Code, want, rec.Body)
			}
		}
	}
	me(`"canAddMessage":true`)
	m := core.NewMessage(tok.User.ID, core.MessageInput{Title: "T", Name: "N", Recipient: "n@example.com", Body: "B"},
		e.Clock.Now(), time.UTC)
	if err := e.DB.CreateMessage(context.Background(), m, nil); err != nil {
		t.Fatal(err)
	}
	me(`"canAddMessage":false`)
	if _, err := e.DB.UpdateUser(context.Background(), tok.User.ID, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = core.PriceMap{}.PriceFor(core.PlanPro), "active"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	me(`"canAddMessage":true`)

	// A hold is in the reply until it ends, and not after, with no write
	// in between: what depends on the time is worked out at every read.
	end := e.Clock.Now().Add(10 * time.Minute)
	if _, err := core.SetHold(context.Background(), e.DB, e.DB, e.Clock.Now(), tok.User.ID, end, "test"); err != nil {
		t.Fatal(err)
	}
	me(fmt.Sprintf(`"holdUntil":%d`, end.UnixMilli()))
	e.Clock.Add(10 * time.Minute)
	me(`"holdUntil":null`)
}

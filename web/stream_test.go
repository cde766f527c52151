package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// The stream sends the list at once and again within a second of every
// change, whoever made it, and nothing about other users' messages.
func TestMessageStreamFollowsEveryChange(t *testing.T) {
	a := mustIdentityAPI(t)
	ann, bob := a.author("ann@example.com"), a.author("bob@example.com")
	a.grantPlan(ann.uid, core.PlanPro)
	first := a.createMessage(ann, nil)

	s := openStream(t, a.srv.URL(), ann.token, true)
	for h, want := range map[string]string{
		"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", "X-Accel-Buffering": "no",
	} {
		if got := s.resp.Header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	if ms := s.list(time.Second); len(ms) != 1 || ms[0] != first {
		t.Fatalf("first list %+v", ms)
	}
	// The same list as GET /api/messages.
	get := func() string {
		_, env := a.call(nil, "GET", "/api/messages", ann.token, nil)
		return string(env.Data)
	}

	// Through the API.
	a.Clock.Set(a.Clock.Now().Add(time.Second))
	second := a.createMessage(ann, map[string]any{"title": "second"})
	ev := s.next(time.Second)
	if ev.name != "messages" || ev.data != get() {
		t.Fatalf("after create: %q %s, want the list %s", ev.name, ev.data, get())
	}
	a.ok(nil, http.StatusOK, "PATCH", "/api/messages/"+first.ID, ann.token, map[string]any{"isActive": false}, nil)
	if ms := s.list(time.Second); len(ms) != 2 || ms[1].Status != "paused" {
		t.Fatalf("after toggle: %+v", ms)
	}

	// Through the store, as the admin socket and the delivery pass write.
	ctx := context.Background()
	if _, err := a.DB.UpdateMessage(ctx, second.ID, func(m *core.Message) error {
		m.Status, m.DeliveredAt = core.StatusDelivered, a.Clock.Now()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if ms := s.list(time.Second); ms[0].Status != "delivered" || ms[0].DeliveredAt == nil {
		t.Fatalf("after delivery: %+v", ms)
	}

	// A burst is one list, or a few, never one per write.
	for i := range 20 {
		if _, err := a.DB.UpdateMessage(ctx, first.ID, func(m *core.Message) error {
			m.Title = strings.Repeat("x", i+1)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	lists := 0
	for deadline := time.After(time.Second); ; {
		done := false
		select {
		case ev := <-s.events:
			if ev.name == "messages" {
				lists++
				var ms []messageReply
				json.Unmarshal([]byte(ev.data), &ms)
				done = ms[1].Title == strings.Repeat("x", 20)
			}
		case <-deadline:
			t.Fatalf("the burst's last write was not sent within a second (%d lists)", lists)
		}
		if done {
			break
		}
	}
	if lists > 3 {
		t.Errorf("a burst of 20 writes sent %d lists", lists)
	}

	// Other users' changes are not this stream's business.
	a.createMessage(bob, nil)
	s.quiet(400 * time.Millisecond)

	a.ok(nil, http.StatusOK, "DELETE", "/api/messages/"+first.ID, ann.token, nil, nil)
	if ms := s.list(time.Second); len(ms) != 1 || ms[0].ID != second.ID {
		t.Fatalf("after delete: %+v", ms)
	}
}

// Heartbeats keep the stream open through proxies, and each one checks the
// token: signing out ends the stream with the event "error".
func TestMessageStreamEndsWhenTheTokenIsRevoked(t *testing.T) {
	a := mustIdentityAPI(t)
	a.author("ann@example.com")
	c := browserClient(t)
	tok := a.signIn(c, "ann@example.com", pw)

	s := openStream(t, a.srv.URL(), tok.IDToken, false)
	if ms := s.list(time.Second); len(ms) != 0 {
		t.Fatalf("first list %+v", ms)
	}
	beats := 0
	for deadline := time.After(3 * testHeartbeat); beats < 2; {
		select {
		case ev := <-s.events:
			if ev.name == ":" {
				beats++
			}
		case <-deadline:
			t.Fatalf("%d heartbeats in %s", beats, 3*testHeartbeat)
		}
	}

	a.ok(c, http.StatusOK, "POST", "/api/auth/signout", tok.IDToken, nil, nil)
	ev := s.next(3 * testHeartbeat)
	var env envelope
	json.Unmarshal([]byte(ev.data), &env)
	if ev.name != "error" || env.Status != "error" || env.Code != core.EInvalidToken || env.Message == "" {
		t.Fatalf("after sign-out: %q %s", ev.name, ev.data)
	}
	s.ended(time.Second)
}

// A stream outlives the server's read and write timeouts, and graceful
// shutdown does not wait for it.
func TestMessageStreamTimeoutsAndShutdown(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.author("ann@example.com")

	hs := httptest.NewUnstartedServer(a.srv.Handler())
	hs.Config.ReadTimeout = 300 * time.Millisecond
	hs.Config.WriteTimeout = 300 * time.Millisecond
	hs.Start()
	defer hs.Close()
	s := openStream(t, hs.URL, ann.token, true)
	s.list(time.Second)
	time.Sleep(time.Second)
	a.createMessage(ann, nil)
	if ms := s.list(time.Second); len(ms) != 1 {
		t.Fatalf("after the timeouts: %+v", ms)
	}

	// The real server: Close ends its streams and returns at once.
	s2 := openStream(t, a.srv.URL(), ann.token, true)
	s2.list(time.Second)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.srv.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Close took %s with a stream open", d)
	}
	s2.ended(time.Second)
}

// One user's live lists are at most core.MaxStreams: a sixth makes the
// oldest end with stream/replaced, and each sends the first page of a long
// list, never the whole of it.
func TestMessageStreamsAreBoundedPerUser(t *testing.T) {
	a := mustIdentityAPI(t)
	who := a.author("ann@example.com")
	a.grantPlan(who.uid, core.PlanPro)
	for i := range core.DefaultPageSize + 5 {
		a.createMessage(who, map[string]any{"title": fmt.Sprint("m", i)})
	}
	other := a.author("bob@example.com")
	var streams []*stream
	for range core.MaxStreams {
		a.Clock.Add(time.Millisecond) // the oldest is the first opened
		s := openStream(t, a.srv.URL(), who.token, true)
		if got := s.list(time.Second); len(got) != core.DefaultPageSize {
			t.Fatalf("a stream's list of %d messages, want the first page of %d", len(got), core.DefaultPageSize)
		}
		streams = append(streams, s)
	}
	bobs := openStream(t, a.srv.URL(), other.token, true)
	bobs.list(time.Second)
	a.Clock.Add(time.Millisecond)
	sixth := openStream(t, a.srv.URL(), who.token, true)
	sixth.list(time.Second)
	// The oldest gives way at its next recheck; the others, and another
	// user's, go on.
	ev := streams[0].next(3 * testHeartbeat)
	if ev.name != "error" || !strings.Contains(ev.data, `"code":"stream/replaced"`) {
		t.Fatalf("the oldest stream: %+v", ev)
	}
	streams[0].ended(time.Second)
	for _, s := range append(streams[1:], sixth, bobs) {
		s.quiet(3 * testHeartbeat)
	}
}

// GET /api/messages pages: 50 by default, nextCursor beside the data, at
// most 200 a page, and a bad cursor or limit is a clear 400.
func TestMessageListPages(t *testing.T) {
	a := mustIdentityAPI(t)
	who := a.author("ann@example.com")
	a.grantPlan(who.uid, core.PlanPro)
	const total = 120
	for i := range total {
		a.Clock.Add(time.Second)
		a.createMessage(who, map[string]any{"title": fmt.Sprint("m", i)})
	}
	type page struct {
		Data       []messageReply `json:"data"`
		NextCursor string         `json:"nextCursor"`
	}
	get := func(query string) page {
		t.Helper()
		_, body := a.raw("GET", "/api/messages"+query, map[string]string{"Authorization": "Bearer " + who.token}, "")
		var p page
		if err := json.Unmarshal([]byte(body), &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := get("")
	if len(first.Data) != core.DefaultPageSize || first.NextCursor == "" || first.Data[0].Title != fmt.Sprint("m", total-1) {
		t.Fatalf("first page: %d messages, next %q", len(first.Data), first.NextCursor)
	}
	seen := map[string]bool{}
	for p := first; ; p = get("?limit=30&cursor=" + url.QueryEscape(p.NextCursor)) {
		for _, m := range p.Data {
			if seen[m.ID] {
				t.Fatalf("message %s twice", m.ID)
			}
			seen[m.ID] = true
		}
		if p.NextCursor == "" {
			break
		}
	}
	if len(seen) != total {
		t.Fatalf("%d messages over the pages, want %d", len(seen), total)
	}
	if all := get("?limit=200"); len(all.Data) != total || all.NextCursor != "" {
		t.Fatalf("a page of 200: %d, next %q", len(all.Data), all.NextCursor)
	}
	for _, q := range []string{"?limit=201", "?limit=0", "?limit=x", "?cursor=not-a-cursor"} {
		a.fail(nil, http.StatusBadRequest, core.EInvalid, "GET", "/api/messages"+q, who.token, nil)
	}
}

package web_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/web"
)

// sseEvent is one Server-Sent Event; a comment line is an event named ":".
type sseEvent struct {
	name, data string
}

// stream is an open GET /api/messages/stream.
type stream struct {
	t      *testing.T
	resp   *http.Response
	events chan sseEvent // closed when the stream ends
	me     chan string   // the data of the "me" events, kept apart
}

// openStream opens the message stream of token, in the query or the header.
func openStream(t *testing.T, base, token string, inQuery bool) *stream {
	t.Helper()
	u := base + "/api/messages/stream"
	if inQuery {
		u += "?token=" + url.QueryEscape(token)
	}
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !inQuery {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stream: %d", resp.StatusCode)
	}
	s := &stream{t: t, resp: resp, events: make(chan sseEvent, 64), me: make(chan string, 64)}
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "" && ev.name == "me":
				s.me <- ev.data
				ev = sseEvent{}
			case line == "":
				if ev.name != "" || ev.data != "" {
					s.events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, ":"):
				ev.name = ":"
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data += strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return s
}

// next returns the next event other than a heartbeat, failing after within.
func (s *stream) next(within time.Duration) sseEvent {
	s.t.Helper()
	deadline := time.After(within)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				s.t.Fatal("the stream ended")
			}
			if ev.name != ":" {
				return ev
			}
		case <-deadline:
			s.t.Fatalf("no event within %s", within)
		}
	}
}

// user returns the session user of the next "me" event, failing after
// within.
func (s *stream) user(within time.Duration) web.SessionUserJSON {
	s.t.Helper()
	select {
	case data := <-s.me:
		var su web.SessionUserJSON
		if err := json.Unmarshal([]byte(data), &su); err != nil {
			s.t.Fatalf("me event: %v: %s", err, data)
		}
		return su
	case <-time.After(within):
		s.t.Fatalf("no me event within %s", within)
	}
	return web.SessionUserJSON{}
}

// noUser fails if a "me" event came.
func (s *stream) noUser() {
	s.t.Helper()
	select {
	case data := <-s.me:
		s.t.Fatalf("unexpected me event %s", data)
	default:
	}
}

// list returns the next event, which must be a list of messages.
func (s *stream) list(within time.Duration) []messageReply {
	s.t.Helper()
	ev := s.next(within)
	if ev.name != "messages" {
		s.t.Fatalf("event %q %s, want messages", ev.name, ev.data)
	}
	var ms []messageReply
	if err := json.Unmarshal([]byte(ev.data), &ms); err != nil {
		s.t.Fatalf("messages event: %v: %s", err, ev.data)
	}
	return ms
}

// quiet fails if an event other than a heartbeat comes within d.
func (s *stream) quiet(d time.Duration) {
	s.t.Helper()
	deadline := time.After(d)
	for {
		select {
		case ev, ok := <-s.events:
			if ok && ev.name != ":" {
				s.t.Fatalf("unexpected event %q %s", ev.name, ev.data)
			}
		case <-deadline:
			return
		}
	}
}

// ended waits for the stream to end.
func (s *stream) ended(within time.Duration) {
	s.t.Helper()
	deadline := time.After(within)
	for {
		select {
		case _, ok := <-s.events:
			if !ok {
				return
			}
		case <-deadline:
			s.t.Fatalf("the stream is still open after %s", within)
		}
	}
}

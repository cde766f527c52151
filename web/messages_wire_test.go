package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

func TestMessagesNeedAValidToken(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.author("ann@example.com")
	m := a.createMessage(ann, nil)

	c := browserClient(t)
	tok := a.signIn(c, "ann@example.com", pw)
	a.ok(c, http.StatusOK, "POST", "/api/auth/signout", tok.IDToken, nil, nil)

	endpoints := []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/messages", nil},
		{"POST", "/api/messages", newMessage(nil)},
		{"GET", "/api/messages/" + m.ID, nil},
		{"PATCH", "/api/messages/" + m.ID, map[string]any{"title": "x"}},
		{"POST", "/api/messages/" + m.ID + "/postpone", nil},
		{"DELETE", "/api/messages/" + m.ID, nil},
		{"GET", "/api/messages/stream", nil},
	}
	for _, token := range []string{"", "not-a-token", tok.IDToken, tampered(ann.token)} {
		for _, e := range endpoints {
			a.fail(nil, http.StatusUnauthorized, core.EInvalidToken, e.method, e.path, token, e.body)
		}
	}
	// The stream's query token is checked the same way.
	a.fail(nil, http.StatusUnauthorized, core.EInvalidToken, "GET", "/api/messages/stream?token="+tok.IDToken, "", nil)

	var got messageReply
	a.ok(nil, http.StatusOK, "GET", "/api/messages/"+m.ID, ann.token, nil, &got)
	if got != m {
		t.Fatalf("changed without a valid token: %+v", got)
	}
}

// tampered returns token with one character of its signature changed.
func tampered(token string) string {
	i := len(token) - 5
	c := byte('x')
	if token[i] == c {
		c = 'y'
	}
	return token[:i] + string(c) + token[i+1:]
}

// Bodies that are not one JSON object of the right shape, under 1 MiB, are
// refused before anything runs.
func TestMessageBodiesAreCheckedJSON(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.author("ann@example.com")
	m := a.createMessage(ann, nil)
	a.grantPlan(ann.uid, core.PlanPro)
	valid, _ := json.Marshal(newMessage(nil))
	huge := `{"title":"t","name":"n","recipient":"r@example.com","message":"` + strings.Repeat("x", 1<<20) + `"}`

	for _, tc := range []struct {
		name, method, path, contentType, body string
		status                                int
		code                                  string
	}{
		{"malformed", "POST", "/api/messages", "application/json", `{"title":`, 400, core.EInvalidJSON},
		{"empty", "POST", "/api/messages", "application/json", ``, 400, core.EInvalidJSON},
		{"array", "POST", "/api/messages", "application/json", `[]`, 400, core.EInvalidJSON},
		{"two values", "POST", "/api/messages", "application/json", string(valid) + string(valid), 400, core.EInvalidJSON},
		{"unknown field", "POST", "/api/messages", "application/json", `{"title":"t","owner":"someone-else"}`, 400, core.EInvalidJSON},
		{"postpone code", "PATCH", "/api/messages/" + m.ID, "application/json", `{"postponeCode":"AAAAAAAAAA"}`, 400, core.EInvalidJSON},
		{"wrong type", "PATCH", "/api/messages/" + m.ID, "application/json", `{"isActive":"yes"}`, 400, core.EInvalidJSON},
		{"number title", "POST", "/api/messages", "application/json", `{"title":1}`, 400, core.EInvalidJSON},
		{"form", "POST", "/api/messages", "application/x-www-form-urlencoded", `title=t`, 400, core.EInvalidJSON},
		{"text", "POST", "/api/messages", "text/plain", string(valid), 400, core.EInvalidJSON},
		{"too large", "POST", "/api/messages", "application/json", huge, 413, core.ETooLarge},
		{"too large edit", "PATCH", "/api/messages/" + m.ID, "application/json", huge, 413, core.ETooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := a.raw(tc.method, tc.path, map[string]string{
				"Content-Type": tc.contentType, "Authorization": "Bearer " + ann.token,
			}, tc.body)
			env := decodeEnvelope(t, body)
			if resp.StatusCode != tc.status || env.Code != tc.code || env.Message == "" {
				t.Fatalf("%d %+v, want %d %s", resp.StatusCode, env, tc.status, tc.code)
			}
		})
	}
	if ms := a.listMessages(ann); len(ms) != 1 || ms[0] != m {
		t.Fatalf("refused bodies changed the messages: %+v", ms)
	}
}

// A POST retried with the same Idempotency-Key (a lost reply, a double
// click) makes one message, even when the retries race; another message
// under that key is refused.
func TestRetriedCreateMakesOneMessage(t *testing.T) {
	a := mustIdentityAPI(t)
	who := a.author("ann@example.com")
	post := func(body map[string]any, key string) (*http.Response, envelope) {
		raw, _ := json.Marshal(body)
		resp, text := a.raw("POST", "/api/messages", map[string]string{
			"Content-Type": "application/json", "Authorization": "Bearer " + who.token, "Idempotency-Key": key,
		}, string(raw))
		return resp, decodeEnvelope(t, text)
	}
	ids := make(chan string, 5)
	for range 5 {
		go func() {
			resp, env := post(newMessage(nil), "retry-key-1")
			var m messageReply
			json.Unmarshal(env.Data, &m)
			if resp.StatusCode != http.StatusCreated {
				t.Errorf("create: %d %+v", resp.StatusCode, env)
			}
			ids <- m.ID
		}()
	}
	first := <-ids
	for range 4 {
		if id := <-ids; id != first {
			t.Fatalf("two messages for one key: %s, %s", first, id)
		}
	}
	if ms := a.listMessages(who); len(ms) != 1 || ms[0].ID != first {
		t.Fatalf("%d messages after the retries", len(ms))
	}
	// The free plan's limit does not refuse the retry of what it allowed.
	if resp, env := post(newMessage(nil), "retry-key-1"); resp.StatusCode != http.StatusCreated {
		t.Fatalf("a retry on the free plan: %d %+v", resp.StatusCode, env)
	}
	a.grantPlan(who.uid, core.PlanPro)
	resp, env := post(newMessage(map[string]any{"title": "Another"}), "retry-key-1")
	if resp.StatusCode != http.StatusConflict || env.Code != core.EConflict {
		t.Fatalf("another message under the key: %d %+v", resp.StatusCode, env)
	}
	resp, env = post(newMessage(nil), strings.Repeat("k", 256))
	if resp.StatusCode != http.StatusUnprocessableEntity || env.Fields["idempotencyKey"] == "" {
		t.Fatalf("a long key: %d %+v", resp.StatusCode, env)
	}
	if ms := a.listMessages(who); len(ms) != 1 {
		t.Fatalf("%d messages", len(ms))
	}
}

// A message made today says on the wire that a postpone would not move its
// date until the author's next day starts (core's rule, in their zone);
// a day later it says nothing still ahead, a postpone moves the date, and the reply
// says it again, until the day after.
func TestPostponeBlockedUntilOnTheWire(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.author("ann@example.com")
	now := a.Clock.Now()
	type wire struct {
		SendDate             int64  `json:"sendDate"`
		PostponeBlockedUntil *int64 `json:"postponeBlockedUntil"`
	}
	nextDay := func(t time.Time) int64 {
		y, m, d := t.UTC().Date()
		return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC).UnixMilli()
	}
	var got wire
	a.ok(nil, http.StatusCreated, "POST", "/api/messages", ann.token, newMessage(nil), &got)
	if got.PostponeBlockedUntil == nil || *got.PostponeBlockedUntil != nextDay(now) {
		t.Fatalf("created: %+v, want blocked until %d", got, nextDay(now))
	}
	var list []wire
	a.ok(nil, http.StatusOK, "GET", "/api/messages", ann.token, nil, &list)
	if len(list) != 1 || list[0].PostponeBlockedUntil == nil || *list[0].PostponeBlockedUntil != nextDay(now) {
		t.Fatalf("listed: %+v", list)
	}
	m := a.listMessages(ann)[0]
	// The same day, the postpone leaves the date; the reply still says so.
	a.ok(nil, http.StatusOK, "POST", "/api/messages/"+m.ID+"/postpone", ann.token, nil, &got)
	if got.SendDate != m.SendDate || got.PostponeBlockedUntil == nil {
		t.Fatalf("same-day postpone: %+v", got)
	}
	later := now.Add(24 * time.Hour)
	a.Clock.Set(later)
	ann = a.signInAgain(ann)
	a.ok(nil, http.StatusOK, "GET", "/api/messages", ann.token, nil, &list)
	// (A kept reply may still carry yesterday's instant: past, it blocks nothing.)
	if len(list) != 1 || list[0].PostponeBlockedUntil != nil && *list[0].PostponeBlockedUntil > later.UnixMilli() {
		t.Fatalf("a day later: %+v", list)
	}
	a.ok(nil, http.StatusOK, "POST", "/api/messages/"+m.ID+"/postpone", ann.token, nil, &got)
	if got.SendDate == m.SendDate || got.PostponeBlockedUntil == nil || *got.PostponeBlockedUntil != nextDay(later) {
		t.Fatalf("postponed: %+v", got)
	}
}

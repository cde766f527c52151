package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

func TestMessagesLifecycle(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.author("ann@example.com")
	now := a.Clock.Now()

	if ms := a.listMessages(ann); ms == nil || len(ms) != 0 {
		t.Fatalf("empty list: %#v, want []", ms)
	}

	m := a.createMessage(ann, nil)
	want := messageReply{
		ID: m.ID, Owner: ann.uid, Title: "For my sister", Name: "Ann", Recipient: "ann@example.com",
		Message: "The key is under the blue pot.", Interval: "1M",
		SendDate: core.AddMonths(now, 1, time.UTC).UnixMilli(), IsActive: true,
		CreatedAt: now.UnixMilli(), Status: "scheduled",
	}
	if m != want {
		t.Fatalf("created\n%+v, want\n%+v", m, want)
	}

	// The postpone code never leaves the server.
	_, env := a.call(nil, "GET", "/api/messages/"+m.ID, ann.token, nil)
	if strings.Contains(strings.ReplaceAll(strings.ToLower(string(env.Data)), `"postponeblockeduntil":`, ""), "postpone") {
		t.Fatalf("the reply shows the postpone code: %s", env.Data)
	}
	var got messageReply
	a.ok(nil, http.StatusOK, "GET", "/api/messages/"+m.ID, ann.token, nil, &got)
	if got != m {
		t.Fatalf("get %+v, want %+v", got, m)
	}

	// An edit changes what it names; only a new interval moves sendDate.
	later := now.Add(48 * time.Hour)
	a.Clock.Set(later)
	ann = a.signInAgain(ann)
	a.ok(nil, http.StatusOK, "PATCH", "/api/messages/"+m.ID, ann.token,
		map[string]any{"title": "For Ann", "message": "Under the red pot.", "name": nil, "interval": "1M"}, &got)
	want.Title, want.Message = "For Ann", "Under the red pot."
	if got != want {
		t.Fatalf("patched %+v, want %+v", got, want)
	}
	a.ok(nil, http.StatusOK, "PATCH", "/api/messages/"+m.ID, ann.token, map[string]any{"interval": "6M"}, &got)
	want.Interval, want.SendDate = "6M", core.AddMonths(later, 6, time.UTC).UnixMilli()
	if got != want {
		t.Fatalf("new interval %+v, want %+v", got, want)
	}

	// The toggle pauses and resumes.
	a.ok(nil, http.StatusOK, "PATCH", "/api/messages/"+m.ID, ann.token, map[string]any{"isActive": false}, &got)
	if got.IsActive || got.Status != "paused" {
		t.Fatalf("switched off: %+v", got)
	}
	a.ok(nil, http.StatusOK, "PATCH", "/api/messages/"+m.ID, ann.token, map[string]any{"isActive": true}, &got)
	if !got.IsActive || got.Status != "scheduled" {
		t.Fatalf("switched on: %+v", got)
	}

	// Postpone: now + the interval, and a no-op on the same day.
	postponed := later.Add(30 * 24 * time.Hour)
	a.Clock.Set(postponed)
	ann = a.signInAgain(ann)
	a.ok(nil, http.StatusOK, "POST", "/api/messages/"+m.ID+"/postpone", ann.token, nil, &got)
	if wantDate := core.AddMonths(postponed, 6, time.UTC).UnixMilli(); got.SendDate != wantDate {
		t.Fatalf("postponed to %d, want %d", got.SendDate, wantDate)
	}
	first := got.SendDate
	a.Clock.Set(postponed.Add(time.Minute))
	a.ok(nil, http.StatusOK, "POST", "/api/messages/"+m.ID+"/postpone", ann.token, nil, &got)
	if got.SendDate != first {
		t.Fatalf("a second postpone the same day moved sendDate from %d to %d", first, got.SendDate)
	}

	// The list is newest first.
	a.grantPlan(ann.uid, core.PlanPro)
	a.Clock.Set(postponed.Add(30 * time.Minute))
	second := a.createMessage(ann, map[string]any{"interval": "12M"})
	ms := a.listMessages(ann)
	if len(ms) != 2 || ms[0].ID != second.ID || ms[1].ID != m.ID {
		t.Fatalf("list %+v, want the second message first", ms)
	}

	var null any = "not null"
	a.ok(nil, http.StatusOK, "DELETE", "/api/messages/"+m.ID, ann.token, nil, &null)
	if null != nil {
		t.Fatalf("delete answered %v, want null", null)
	}
	a.fail(nil, http.StatusNotFound, core.EMessageNotFound, "GET", "/api/messages/"+m.ID, ann.token, nil)
	a.fail(nil, http.StatusNotFound, core.EMessageNotFound, "DELETE", "/api/messages/"+m.ID, ann.token, nil)
	if ms := a.listMessages(ann); len(ms) != 1 || ms[0].ID != second.ID {
		t.Fatalf("after delete: %+v", ms)
	}
}

func TestMessageValidation(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.author("ann@example.com")
	a.grantPlan(ann.uid, core.PlanPro)
	for _, tc := range []struct {
		name   string
		change map[string]any
		fields map[string]string
	}{
		{"no title", map[string]any{"title": nil}, map[string]string{"title": "Please enter a title"}},
		{"blank title", map[string]any{"title": "  "}, map[string]string{"title": "Please enter a title"}},
		{"long title", map[string]any{"title": strings.Repeat("é", 201)}, map[string]string{"title": "The title must be at most 200 characters"}},
		{"no name", map[string]any{"name": ""}, map[string]string{"name": "Please enter a recipient name"}},
		{"name on two lines", map[string]any{"name": "Ann\r\nBcc: x@example.com"}, map[string]string{"name": "The recipient name must be on one line"}},
		{"no recipient", map[string]any{"recipient": nil}, map[string]string{"recipient": "Please enter a recipient email address"}},
		{"bad recipient", map[string]any{"recipient": "ann at example"}, map[string]string{"recipient": "Please enter a valid email address"}},
		{"recipient with a name", map[string]any{"recipient": "Ann <ann@example.com>"}, map[string]string{"recipient": "Please enter a valid email address"}},
		{"no message", map[string]any{"message": "\n\t"}, map[string]string{"message": "Please enter a message"}},
		{"message too long", map[string]any{"message": strings.Repeat("x", core.MaxBodyBytes+1)}, map[string]string{"message": "The message must be at most 100 KB"}},
		{"bad interval", map[string]any{"interval": "2M"}, map[string]string{"interval": "Please choose an interval of 1M, 6M or 12M"}},
		{"everything missing", map[string]any{"title": nil, "name": nil, "recipient": nil, "message": nil}, map[string]string{
			"title": "Please enter a title", "name": "Please enter a recipient name",
			"recipient": "Please enter a recipient email address", "message": "Please enter a message",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, env := a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, "POST", "/api/messages", ann.token, newMessage(tc.change))
			if !equalFields(env.Fields, tc.fields) {
				t.Fatalf("create: fields %v, want %v", env.Fields, tc.fields)
			}
		})
	}
	if ms := a.listMessages(ann); len(ms) != 0 {
		t.Fatalf("invalid creates stored %d messages", len(ms))
	}

	m := a.createMessage(ann, nil)
	for _, tc := range []struct {
		body   map[string]any
		fields map[string]string
	}{
		{map[string]any{"title": ""}, map[string]string{"title": "Please enter a title"}},
		{map[string]any{"name": " "}, map[string]string{"name": "Please enter a recipient name"}},
		{map[string]any{"recipient": ""}, map[string]string{"recipient": "Please enter a recipient email address"}},
		{map[string]any{"message": ""}, map[string]string{"message": "Please enter a message"}},
		{map[string]any{"interval": "3M", "title": ""}, map[string]string{"interval": "Please choose an interval of 1M, 6M or 12M", "title": "Please enter a title"}},
	} {
		_, env := a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, "PATCH", "/api/messages/"+m.ID, ann.token, tc.body)
		if !equalFields(env.Fields, tc.fields) {
			t.Fatalf("patch %v: fields %v, want %v", tc.body, env.Fields, tc.fields)
		}
	}
	var got messageReply
	a.ok(nil, http.StatusOK, "GET", "/api/messages/"+m.ID, ann.token, nil, &got)
	if got != m {
		t.Fatalf("invalid edits changed the message: %+v, want %+v", got, m)
	}

	// Webhooks are a Business feature.
	a.fail(nil, http.StatusForbidden, core.EFeatureNotIncluded, "POST", "/api/messages", ann.token,
		newMessage(map[string]any{"webhookUrl": "https://example.com/hook"}))
	a.fail(nil, http.StatusForbidden, core.EFeatureNotIncluded, "PATCH", "/api/messages/"+m.ID, ann.token,
		map[string]any{"webhookUrl": "https://example.com/hook"})
}

func equalFields(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Another user's message is not found, whatever is asked of it, and stays
// as it was.
func TestMessagesAreTheOwnersOnly(t *testing.T) {
	a := mustIdentityAPI(t)
	ann, bob := a.author("ann@example.com"), a.author("bob@example.com")
	m := a.createMessage(ann, nil)

	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/messages/" + m.ID, nil},
		{"PATCH", "/api/messages/" + m.ID, map[string]any{"title": "mine now", "recipient": "bob@example.com"}},
		{"PATCH", "/api/messages/" + m.ID, map[string]any{"isActive": false}},
		{"POST", "/api/messages/" + m.ID + "/postpone", nil},
		{"DELETE", "/api/messages/" + m.ID, nil},
		{"GET", "/api/messages/no-such-message", nil},
		{"PATCH", "/api/messages/no-such-message", map[string]any{"title": "x"}},
		{"POST", "/api/messages/no-such-message/postpone", nil},
		{"DELETE", "/api/messages/no-such-message", nil},
	} {
		a.fail(nil, http.StatusNotFound, core.EMessageNotFound, c.method, c.path, bob.token, c.body)
	}
	if ms := a.listMessages(bob); len(ms) != 0 {
		t.Fatalf("bob sees %+v", ms)
	}
	var got messageReply
	a.ok(nil, http.StatusOK, "GET", "/api/messages/"+m.ID, ann.token, nil, &got)
	if got != m {
		t.Fatalf("bob changed ann's message: %+v, want %+v", got, m)
	}
}

func TestMessagePlanLimit(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.author("ann@example.com")
	a.createMessage(ann, nil)
	_, env := a.fail(nil, http.StatusForbidden, core.EPlanLimit, "POST", "/api/messages", ann.token, newMessage(nil))
	if env.Message == "" {
		t.Fatal("no message")
	}

	// Pro is unlimited; when the subscription lapses, nothing more is added
	// but what exists stays.
	a.grantPlan(ann.uid, core.PlanPro)
	for range 3 {
		a.createMessage(ann, nil)
	}
	if _, err := a.DB.UpdateUser(context.Background(), ann.uid, func(u *core.User) error {
		u.StripeSubscriptionStatus = "canceled"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	a.fail(nil, http.StatusForbidden, core.EPlanLimit, "POST", "/api/messages", ann.token, newMessage(nil))
	if ms := a.listMessages(ann); len(ms) != 4 {
		t.Fatalf("%d messages, want 4", len(ms))
	}

	// Concurrent creates cannot beat the free plan's limit.
	bob := a.author("bob@example.com")
	results := make(chan int, 8)
	for range 8 {
		go func() {
			resp, _ := a.rawJSON("POST", "/api/messages", bob.token, newMessage(nil))
			results <- resp.StatusCode
		}()
	}
	created := 0
	for range 8 {
		switch code := <-results; code {
		case http.StatusCreated:
			created++
		case http.StatusForbidden:
		default:
			t.Errorf("concurrent create: %d", code)
		}
	}
	if created != 1 {
		t.Fatalf("%d concurrent creates succeeded on the free plan, want 1", created)
	}
}

// rawJSON is call without a testing.T failure on a broken reply: safe from
// goroutines.
func (a *identityAPI) rawJSON(method, path, bearer string, body any) (*http.Response, error) {
	raw, _ := json.Marshal(body)
	req, err := http.NewRequest(method, a.srv.URL()+path, strings.NewReader(string(raw)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	return resp, nil
}

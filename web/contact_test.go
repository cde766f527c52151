package web_test

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

func TestContactIsStoredAndForwarded(t *testing.T) {
	a := mustIdentityAPI(t)
	var data any = "not null"
	a.ok(nil, http.StatusOK, "POST", "/api/contact", "", map[string]string{
		"name": "Ann Example", "email": "ann@example.com", "message": "Do you offer <b>business</b> plans?\nThanks",
	}, &data)
	if data != nil {
		t.Fatalf("data %v, want null", data)
	}
	cs, err := a.DB.ListContacts(context.Background(), 0)
	if err != nil || len(cs) != 1 {
		t.Fatalf("stored %d contacts, %v", len(cs), err)
	}
	if c := cs[0]; c.Name != "Ann Example" || c.Email != "ann@example.com" || !strings.HasPrefix(c.Message, "Do you offer") {
		t.Fatalf("stored %+v", c)
	}

	e := a.email(operatorEmail)
	if !strings.Contains(e.Subject, "Ann Example") || !strings.Contains(e.Text, "Do you offer <b>business</b> plans?") ||
		!strings.Contains(e.Header.Get("Reply-To"), "ann@example.com") {
		t.Fatalf("forwarded %q %q reply-to %q", e.Subject, e.Text, e.Header.Get("Reply-To"))
	}
	if strings.Contains(e.HTML, "<b>business</b>") {
		t.Fatal("the HTML part does not escape the submission")
	}

	// The name is optional.
	a.ok(nil, http.StatusOK, "POST", "/api/contact", "", map[string]string{"email": "bob@example.com", "message": "Hi"}, nil)
	if e := a.email(operatorEmail); !strings.Contains(e.Subject, "bob@example.com") {
		t.Fatalf("subject without a name: %q", e.Subject)
	}

	// When forwarding fails for good the submission is kept, the sender
	// told it arrived, and the operator's log and outbox say so.
	a.SMTP.FailNextData(1, 554, "mailbox unavailable")
	a.ok(nil, http.StatusOK, "POST", "/api/contact", "", map[string]string{"email": "cy@example.com", "message": "Hello?"}, nil)
	cs, _ = a.DB.ListContacts(context.Background(), 0)
	if len(cs) != 3 || !slices.ContainsFunc(cs, func(c *core.ContactSubmission) bool { return c.Email == "cy@example.com" }) {
		t.Fatalf("after a failed forward: %d stored", len(cs))
	}
	a.noMoreEmail() // runs the outbox
	if !strings.Contains(a.logs.String(), "outbox item failed for good") {
		t.Fatal("the failed forward is not logged")
	}
	if _, failed, _ := a.DB.CountOutbox(context.Background()); failed != 1 {
		t.Fatalf("%d failed outbox items, want the forward", failed)
	}
}

func TestContactValidation(t *testing.T) {
	a := mustIdentityAPI(t)
	for _, tc := range []struct {
		name   string
		body   map[string]string
		fields map[string]string
	}{
		{"no email", map[string]string{"message": "Hi"}, map[string]string{"email": "Please enter your email"}},
		{"bad email", map[string]string{"email": "ann@", "message": "Hi"}, map[string]string{"email": "Please enter a valid email address"}},
		{"no message", map[string]string{"email": "ann@example.com", "message": "  "}, map[string]string{"message": "Please enter a message"}},
		{"nothing", map[string]string{}, map[string]string{"email": "Please enter your email", "message": "Please enter a message"}},
		{"blank name", map[string]string{"name": " ", "email": "ann@example.com", "message": "Hi"}, map[string]string{"name": "Please enter your name"}},
		{"long name", map[string]string{"name": strings.Repeat("n", 201), "email": "ann@example.com", "message": "Hi"}, map[string]string{"name": "The name must be at most 200 characters"}},
		{"header in the name", map[string]string{"name": "Ann\r\nBcc: all@example.com", "email": "ann@example.com", "message": "Hi"}, map[string]string{"name": "The name must be on one line"}},
		{"long message", map[string]string{"email": "ann@example.com", "message": strings.Repeat("m", core.MaxContactMessageBytes+1)}, map[string]string{"message": "The message must be at most 10 KB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, env := a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, "POST", "/api/contact", "", tc.body)
			if !equalFields(env.Fields, tc.fields) {
				t.Fatalf("fields %v, want %v", env.Fields, tc.fields)
			}
		})
	}
	a.fail(nil, http.StatusBadRequest, core.EInvalidJSON, "POST", "/api/contact", "", `{"email":"ann@example.com","message":"Hi","phone":"1"}`)
	if cs, _ := a.DB.ListContacts(context.Background(), 0); len(cs) != 0 {
		t.Fatalf("invalid submissions stored: %+v", cs)
	}
	a.noMoreEmail()
}

// A filled honeypot looks like success to the bot and goes nowhere.
func TestContactHoneypot(t *testing.T) {
	a := mustIdentityAPI(t)
	a.ok(nil, http.StatusOK, "POST", "/api/contact", "", map[string]string{
		"email": "bot@example.com", "message": "cheap pills", "website": "http://pills.example",
	}, nil)
	time.Sleep(100 * time.Millisecond)
	if cs, _ := a.DB.ListContacts(context.Background(), 0); len(cs) != 0 {
		t.Fatalf("honeypot submission stored: %+v", cs)
	}
	a.noMoreEmail()
}

// Each client address may send LimitContactClient.Max submissions per
// window; invalid ones do not count.
func TestContactRateLimit(t *testing.T) {
	a := mustIdentityAPI(t)
	body := map[string]string{"email": "ann@example.com", "message": "Hi"}
	a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, "POST", "/api/contact", "", map[string]string{})
	for range core.LimitContactClient.Max {
		a.ok(nil, http.StatusOK, "POST", "/api/contact", "", body, nil)
	}
	resp, _ := a.fail(nil, http.StatusTooManyRequests, core.ETooManyRequests, "POST", "/api/contact", "", body)
	secs, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || secs <= 0 || secs > int(core.LimitContactClient.Window.Seconds()) {
		t.Fatalf("Retry-After %q", resp.Header.Get("Retry-After"))
	}
	a.Clock.Set(a.Clock.Now().Add(core.LimitContactClient.Window + time.Second))
	a.ok(nil, http.StatusOK, "POST", "/api/contact", "", body, nil)
	if cs, _ := a.DB.ListContacts(context.Background(), 0); len(cs) != core.LimitContactClient.Max+1 {
		t.Fatalf("%d stored, want %d", len(cs), core.LimitContactClient.Max+1)
	}
}

package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/web"
)

type recipientsReply struct {
	ID         string              `json:"id"`
	Name       string              `json:"name"`
	Recipient  string              `json:"recipient"`
	SendDate   int64               `json:"sendDate"`
	Status     string              `json:"status"`
	Recipients []web.RecipientJSON `json:"recipients"`
}

var threeRecipients = []map[string]string{
	{"name": "Ann", "recipient": "ann@example.com"},
	{"name": "Ben", "recipient": "ben@example.com"},
	{"name": "Cleo", "recipient": "cleo@example.com"},
}

// recipients[] holds every recipient; name and recipient stay the first's
// for clients that know one; the free plan keeps one.
func TestMessageRecipientsAPI(t *testing.T) {
	a := mustIdentityAPI(t)
	free := a.author("free@example.com")
	_, env := a.fail(nil, http.StatusForbidden, "plan/limit-reached", "POST", "/api/messages", free.token,
		newMessage(map[string]any{"name": nil, "recipient": nil, "recipients": threeRecipients}))
	if env.Message == "" {
		t.Fatal("no message names the limit")
	}
	one := a.createMessage(free, nil)
	var got recipientsReply
	a.ok(nil, http.StatusOK, "GET", "/api/messages/"+one.ID, free.token, nil, &got)
	if len(got.Recipients) != 1 || got.Recipients[0].Recipient != "ann@example.com" || got.Recipients[0].Status != core.RecipientPending {
		t.Fatalf("one recipient reads %+v", got.Recipients)
	}

	pro := a.author("pro@example.com")
	a.grantPlan(pro.uid, core.PlanPro)
	_, env = a.fail(nil, http.StatusUnprocessableEntity, "request/validation", "POST", "/api/messages", pro.token,
		newMessage(map[string]any{"name": nil, "recipient": nil, "recipients": []map[string]string{
			{"name": "Ann", "recipient": "ann@example.com"}, {"name": "", "recipient": "not an address"}}}))
	if env.Fields["recipients[1].name"] != "Please enter a recipient name" || env.Fields["recipients[1].recipient"] != "Please enter a valid email address" {
		t.Fatalf("fields %v", env.Fields)
	}
	a.ok(nil, http.StatusCreated, "POST", "/api/messages", pro.token,
		newMessage(map[string]any{"name": nil, "recipient": nil, "recipients": threeRecipients}), &got)
	if got.Name != "Ann" || got.Recipient != "ann@example.com" || len(got.Recipients) != 3 || got.Recipients[2].Name != "Cleo" {
		t.Fatalf("created %+v", got)
	}
	a.ok(nil, http.StatusOK, "PATCH", "/api/messages/"+got.ID, pro.token,
		map[string]any{"recipients": threeRecipients[1:]}, &got)
	if got.Name != "Ben" || len(got.Recipients) != 2 {
		t.Fatalf("edited %+v", got)
	}

	// Delivered: one email each, and each one's status.
	a.Clock.Set(time.UnixMilli(got.SendDate).Add(time.Second))
	if res, err := a.Delivery.Run(context.Background()); err != nil || res.Delivered != 3 { // the free message too
		t.Fatalf("pass %+v %v", res, err)
	}
	a.NextEach(t, "ann@example.com", "ben@example.com", "cleo@example.com")
	pro = a.signInAgain(pro)
	a.ok(nil, http.StatusOK, "GET", "/api/messages/"+got.ID, pro.token, nil, &got)
	for _, r := range got.Recipients {
		if r.Status != core.RecipientSent || r.SentAt == nil {
			t.Fatalf("after the pass %+v", got.Recipients)
		}
	}

	// The timeline: created, edited, then one "sent" per recipient.
	var events []web.EventJSON
	a.ok(nil, http.StatusOK, "GET", "/api/messages/"+got.ID+"/events", pro.token, nil, &events)
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, string(e.Kind)+" "+e.Recipient)
	}
	if want := "[created  edited  sent ben@example.com sent cleo@example.com]"; fmt.Sprint(kinds) != want {
		t.Fatalf("timeline %v, want %s", kinds, want)
	}
	free = a.signInAgain(free)
	a.fail(nil, http.StatusNotFound, "message/not-found", "GET", "/api/messages/"+got.ID+"/events", free.token, nil)
	// Exported with the account.
	var export struct {
		Messages []struct {
			ID     string          `json:"id"`
			Events []web.EventJSON `json:"events"`
		} `json:"messages"`
	}
	a.ok(nil, http.StatusOK, "GET", "/api/me/export", pro.token, nil, &export)
	if len(export.Messages) != 1 || len(export.Messages[0].Events) != 4 {
		t.Fatalf("export %+v", export)
	}
}

// POST /api/messages/preview renders each recipient's email; POST
// /api/messages/{id}/test emails the author at a confirmed address, 5 an
// hour whatever the message.
func TestPreviewAndTestSendAPI(t *testing.T) {
	a := mustIdentityAPI(t)
	pro := a.author("pro@example.com")
	a.grantPlan(pro.uid, core.PlanPro)
	var previews []web.EmailPreviewJSON
	a.ok(nil, http.StatusOK, "POST", "/api/messages/preview", pro.token,
		newMessage(map[string]any{"name": nil, "recipient": nil, "recipients": threeRecipients}), &previews)
	if len(previews) != 3 || previews[2].To.Address != "cleo@example.com" || !strings.Contains(previews[2].Text, "Dear Cleo,") ||
		!strings.Contains(previews[0].HTML, "The key is under the blue pot.") {
		t.Fatalf("previews %+v", previews)
	}
	_, env := a.fail(nil, http.StatusUnprocessableEntity, "request/validation", "POST", "/api/messages/preview", pro.token,
		newMessage(map[string]any{"message": ""}))
	if env.Fields["message"] != "Please enter a message" {
		t.Fatalf("fields %v", env.Fields)
	}

	m := a.createMessage(pro, nil)
	other := a.author("other@example.com") // signed up before the tests fill the mailbox
	var sent web.TestSendJSON
	_, env = a.fail(nil, http.StatusForbidden, "auth/email-not-verified", "POST", "/api/messages/"+m.ID+"/test", pro.token, nil)
	if !strings.Contains(env.Message, "confirm your email address") {
		t.Fatalf("the refusal of an unverified account: %q", env.Message)
	}
	a.MustVerify(t, pro.uid)
	for range 5 {
		a.ok(nil, http.StatusOK, "POST", "/api/messages/"+m.ID+"/test", pro.token, nil, &sent)
		if sent.Sent != 1 {
			t.Fatalf("sent %+v", sent)
		}
	}
	resp, _ := a.fail(nil, http.StatusTooManyRequests, "auth/too-many-requests", "POST", "/api/messages/"+m.ID+"/test", pro.token, nil)
	if resp.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	a.fail(nil, http.StatusNotFound, "message/not-found", "POST", "/api/messages/"+m.ID+"/test", other.token, nil)
	again := a.createMessage(pro, nil) // another message counts with the account
	a.fail(nil, http.StatusTooManyRequests, "auth/too-many-requests", "POST", "/api/messages/"+again.ID+"/test", pro.token, nil)

	// POST /api/messages/{id}/preview: the stored message, with PATCH's
	// fields applied ({} for none); the owner's only.
	a.ok(nil, http.StatusOK, "POST", "/api/messages/"+m.ID+"/preview", pro.token, map[string]any{}, &previews)
	if len(previews) != 1 || !strings.Contains(previews[0].Text, "The key is under the blue pot.") {
		t.Fatalf("preview of the stored message %+v", previews)
	}
	a.ok(nil, http.StatusOK, "POST", "/api/messages/"+m.ID+"/preview", pro.token,
		map[string]any{"recipients": threeRecipients[1:]}, &previews)
	if len(previews) != 2 || !strings.Contains(previews[1].Text, "Dear Cleo,") {
		t.Fatalf("preview of a change %+v", previews)
	}
	a.fail(nil, http.StatusNotFound, "message/not-found", "POST", "/api/messages/"+m.ID+"/preview", other.token, map[string]any{})
	a.fail(nil, http.StatusNotFound, "message/not-found", "POST", "/api/messages/nope/preview", pro.token, map[string]any{})
	a.fail(nil, http.StatusUnauthorized, "auth/invalid-user-token", "POST", "/api/messages/"+m.ID+"/preview", "", map[string]any{})
	_, env = a.fail(nil, http.StatusUnprocessableEntity, "request/validation", "POST", "/api/messages/"+m.ID+"/preview", pro.token,
		map[string]any{"recipients": []map[string]string{{"name": "", "recipient": "x"}}})
	if len(env.Fields) == 0 {
		t.Fatal("no fields name the bad change")
	}
}

// A test email's List-Unsubscribe link stops test emails to its address:
// the page says what it refuses (not every message), its one-click POST
// records it, and the next test is refused with message/test-emails-refused.
func TestTestEmailRefusalLinkAPI(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.author("ann@example.com") // its verification email taken
	a.MustVerify(t, ann.uid)
	m := a.createMessage(ann, nil)
	a.ok(nil, http.StatusOK, "POST", "/api/messages/"+m.ID+"/test", ann.token, nil, nil)
	p, _ := a.Next(t, "ann@example.com")
	link := strings.Trim(p.Header.Get("List-Unsubscribe"), "<>")
	if !strings.HasPrefix(link, identityBaseURL+"/unsubscribe/") || p.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
		t.Fatalf("List-Unsubscribe %q", link)
	}
	path := strings.TrimPrefix(link, identityBaseURL)

	page := func(method string, body io.Reader) string {
		t.Helper()
		req, _ := http.NewRequest(method, a.srv.URL()+path, body)
		if body != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", method, resp.StatusCode, b)
		}
		return string(b)
	}
	if s := page("GET", nil); !strings.Contains(s, "stop test emails to this address?") || !strings.Contains(s, "Stop test emails</button>") {
		t.Fatalf("GET:\n%s", s)
	}
	a.ok(nil, http.StatusOK, "POST", "/api/messages/"+m.ID+"/test", ann.token, nil, nil) // opening it refused nothing
	a.Next(t, "ann@example.com")
	if s := page("POST", strings.NewReader("List-Unsubscribe=One-Click")); !strings.Contains(s, "No further test emails will be sent to this address") {
		t.Fatalf("POST:\n%s", s)
	}
	_, env := a.fail(nil, http.StatusForbidden, "message/test-emails-refused", "POST", "/api/messages/"+m.ID+"/test", ann.token, nil)
	if !strings.Contains(env.Message, "ann@example.com refused test emails") {
		t.Fatalf("the refusal: %q", env.Message)
	}
	a.NoMoreEmail(t)
	if refused, _ := a.Store.AddressRefused(context.Background(), "ann@example.com"); refused {
		t.Fatal("refusing test emails refused every message")
	}
}

// The preview shows one salutation: the template's "Dear Ann," when the
// letter does not open with a greeting, none when it does.
func TestPreviewGreetsOnce(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.author("ann@example.com")
	for body, greeted := range map[string]bool{"Dear Ann,\nthe key.": false, "The key is under the pot.": true} {
		var previews []web.EmailPreviewJSON
		a.ok(nil, http.StatusOK, "POST", "/api/messages/preview", ann.token, newMessage(map[string]any{"message": body}), &previews)
		if len(previews) != 1 {
			t.Fatalf("previews %+v", previews)
		}
		text := strings.ReplaceAll(previews[0].Text, "\r\n", "\n")
		if strings.Count(text, "Dear Ann,") != 1 || strings.Contains(text, "Dear Ann,\n\n"+body) != greeted ||
			strings.Contains(previews[0].HTML, ">Dear Ann,</p>") != greeted {
			t.Errorf("%q: greeted %v expected:\n%s", body, greeted, text)
		}
	}
}

package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// deliveryAPI is the public server with the delivery routes over a real store.
type deliveryAPI struct {
	*testenv.Env
	t   *testing.T
	url string
}

func mustDeliveryAPI(t *testing.T) *deliveryAPI {
	t.Helper()
	e := testenv.New(t, testenv.Config{BaseURL: identityBaseURL, Start: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)})
	hs := httptest.NewServer(newTestServer(e, slogDiscard()).Handler())
	t.Cleanup(hs.Close)
	return &deliveryAPI{Env: e, t: t, url: hs.URL}
}

func (a *deliveryAPI) message() *core.Message {
	a.t.Helper()
	ctx := context.Background()
	u := &core.User{Email: "ada@example.com", Timezone: "Europe/Berlin"}
	if err := a.DB.CreateUser(ctx, u); err != nil {
		a.t.Fatal(err)
	}
	m := core.NewMessage(u.ID, core.MessageInput{Title: "For Charles", Name: "Charles", Recipient: "charles@example.com",
		Body: "Hello", Interval: core.Interval6M}, a.Clock.Now(), u.Location())
	if err := a.DB.CreateMessage(ctx, m, nil); err != nil {
		a.t.Fatal(err)
	}
	return m
}

func (a *deliveryAPI) do(method, path, body string) (*http.Response, string) {
	a.t.Helper()
	req, err := http.NewRequest(method, a.url+path, strings.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestPostponeByLink(t *testing.T) {
	a := mustDeliveryAPI(t)
	m := a.message()

	resp, body := a.do("GET", "/api/postpone/"+m.ID+"?code="+m.PostponeCode, "")
	var shown struct {
		Status string
		Data   struct {
			Title    string `json:"title"`
			SendDate int64  `json:"sendDate"`
			Interval string `json:"interval"`
			To       int64  `json:"postponeTo"`
			Blocked  *int64 `json:"postponeBlockedUntil"`
		}
	}
	json.Unmarshal([]byte(body), &shown)
	if resp.StatusCode != 200 || shown.Data.Title != "For Charles" || shown.Data.SendDate != m.SendDate.UnixMilli() || shown.Data.Interval != "6M" {
		t.Fatalf("GET: %d %s", resp.StatusCode, body)
	}
	// Made today: the button would move nothing until the author's next
	// day (Berlin), and the page is told so and the date it would set.
	berlin := core.LoadLocation("Europe/Berlin")
	y, mo, d := a.Clock.Now().In(berlin).Date()
	if shown.Data.To != core.AddMonths(a.Clock.Now(), 6, berlin).UnixMilli() || shown.Data.Blocked == nil ||
		*shown.Data.Blocked != time.Date(y, mo, d+1, 0, 0, 0, 0, berlin).UnixMilli() {
		t.Fatalf("GET says the postpone would move it to %d, blocked until %v: %s", shown.Data.To, shown.Data.Blocked, body)
	}
	if strings.Contains(body, m.PostponeCode) || strings.Contains(body, "charles@example.com") {
		t.Fatalf("GET shows more than the page needs: %s", body)
	}

	resp, body = a.do("GET", "/api/postpone/"+m.ID+"?code=WRONGCODE1", "")
	if resp.StatusCode != 403 || !strings.Contains(body, `"code":"message/invalid-postpone-code"`) {
		t.Fatalf("wrong code: %d %s", resp.StatusCode, body)
	}

	a.Clock.Add(48 * time.Hour)
	_, body = a.do("GET", "/api/postpone/"+m.ID+"?code="+m.PostponeCode, "")
	shown.Data.Blocked = nil
	json.Unmarshal([]byte(body), &shown)
	if shown.Data.Blocked != nil || shown.Data.To != core.AddMonths(a.Clock.Now(), 6, berlin).UnixMilli() {
		t.Fatalf("GET two days later: %s", body)
	}
	resp, body = a.do("POST", "/api/postpone/"+m.ID, `{"code":"`+m.PostponeCode+`"}`)
	var moved struct{ Data struct{ SendDate int64 } }
	json.Unmarshal([]byte(body), &moved)
	want := core.AddMonths(a.Clock.Now(), 6, core.LoadLocation("Europe/Berlin"))
	if resp.StatusCode != 200 || moved.Data.SendDate != want.UnixMilli() {
		t.Fatalf("POST: %d %s, want sendDate %d", resp.StatusCode, body, want.UnixMilli())
	}

	// Guessing makes the guesser wait, with Retry-After.
	for range core.LimitPostponeMessageClient.Max {
		a.do("POST", "/api/postpone/"+m.ID, `{"code":"guess"}`)
	}
	resp, body = a.do("POST", "/api/postpone/"+m.ID, `{"code":"`+m.PostponeCode+`"}`)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "auth/too-many-requests") {
		t.Fatalf("after guessing: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
}

// 1,000 wrong postpone codes, from one guesser and from many addresses,
// leave the right code working from the author's devices.
func TestWrongPostponeCodesLeaveTheRightOneWorking(t *testing.T) {
	a := mustDeliveryAPI(t)
	m := a.message()
	post := func(c *http.Client, code string) *http.Response {
		req, _ := http.NewRequest("POST", a.url+"/api/postpone/"+m.ID, strings.NewReader(`{"code":"`+code+`"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	guesser := clientFrom("203.0.113.9")
	for i := range 1000 {
		c := guesser
		if i%2 == 1 { // every other guess from an address of its own
			c = clientFrom(fmt.Sprintf("198.18.%d.%d", i/250, i%250))
		}
		code := fmt.Sprintf("WRONG%05d", i)
		if resp := post(c, code); resp.StatusCode != 403 && resp.StatusCode != 429 {
			t.Fatalf("guess %d: %d", i, resp.StatusCode)
		}
	}
	if resp := post(guesser, m.PostponeCode); resp.StatusCode != 429 {
		t.Fatalf("the guesser with the right code: %d, want 429", resp.StatusCode)
	}
	for _, device := range []string{"192.0.2.1", "2001:db8::1"} {
		if resp := post(clientFrom(device), m.PostponeCode); resp.StatusCode != 200 {
			t.Fatalf("the author from %s: %d", device, resp.StatusCode)
		}
	}
}

func TestRefusalLink(t *testing.T) {
	a := mustDeliveryAPI(t)
	token := a.Refusals.Token("Charles@Example.com")

	resp, body := a.do("GET", "/unsubscribe/"+token, "")
	if resp.StatusCode != 200 || !strings.Contains(body, `<form method="post">`) {
		t.Fatalf("GET: %d %s", resp.StatusCode, body)
	}
	if refused, _ := a.DB.AddressRefused(context.Background(), "charles@example.com"); refused {
		t.Fatal("opening the link refused")
	}
	resp, _ = a.do("GET", "/unsubscribe/not-a-token", "")
	if resp.StatusCode != 400 {
		t.Fatalf("bad token: %d", resp.StatusCode)
	}

	// RFC 8058 one-click: a POST with List-Unsubscribe=One-Click.
	req, _ := http.NewRequest("POST", a.url+"/unsubscribe/"+token, strings.NewReader("List-Unsubscribe=One-Click"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("one-click POST: %d", resp.StatusCode)
	}
	if refused, _ := a.DB.AddressRefused(context.Background(), "charles@example.com"); !refused {
		t.Fatal("not refused after the POST")
	}
}

// A failure its author's notice could not tell is still in the author's
// list, with its reason, and in /healthz's counters.
func TestAFailureNobodyWasToldIsOnTheDashboardAndHealth(t *testing.T) {
	a := mustIdentityAPI(t)
	who := a.author("ann@example.com")
	m := a.createMessage(who, nil)
	a.Delivery.Reminders = nil
	a.SMTP.FailNext(2, 550, "5.1.1 mailbox unavailable") // the delivery, then the notice
	a.Clock.Set(time.UnixMilli(m.SendDate).Add(time.Second))
	if res, err := a.Delivery.Run(context.Background()); err != nil || res.Failed != 1 {
		t.Fatalf("pass: %v %v", res, err)
	}
	var ms []struct {
		ID            string `json:"id"`
		Status        string `json:"status"`
		FailureReason string `json:"failureReason"`
	}
	who = a.signInAgain(who) // a month later
	a.ok(nil, http.StatusOK, "GET", "/api/messages", who.token, nil, &ms)
	if len(ms) != 1 || ms[0].Status != "failed" || !strings.Contains(ms[0].FailureReason, "mailbox unavailable") {
		t.Fatalf("the author's list: %+v", ms)
	}
	resp, body := a.raw("GET", "/healthz", nil, "")
	var health struct {
		Outbox struct{ Pending, Failed int }
	}
	json.Unmarshal([]byte(body), &health)
	if resp.StatusCode != 200 || health.Outbox.Failed != 1 || health.Outbox.Pending != 0 {
		t.Fatalf("healthz: %d %s", resp.StatusCode, body)
	}
}

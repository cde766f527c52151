package core_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/webhook"
)

func TestBusinessWebhookIsSignedAndRetried(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.Delivery.Reminders = nil
	e.Delivery.Webhooks = webhook.NewClient(true, 2*time.Second) // the test server is on loopback
	type hit struct {
		body []byte
		sig  string
	}
	hits := make(chan hit, 10)
	fail := atomic.Int32{}
	fail.Store(1)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hits <- hit{b, r.Header.Get(core.WebhookSignatureHeader)}
		if fail.Add(-1) >= 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(hook.Close)

	u := e.mustUser(t, "ada@example.com", "")
	// Only the business plan may set a webhook or make its secret.
	secrets := e.WebhookSecrets
	_, err := secrets.Rotate(e.As(u.ID))
	wantCode(t, err, core.EFeatureNotIncluded)
	_, err = e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "t", Name: "n", Recipient: "charles@example.com", Body: "b", WebhookURL: hook.URL})
	wantCode(t, err, core.EFeatureNotIncluded)
	if _, err := e.DB.UpdateUser(e.Ctx, u.ID, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = "plan:business", "active"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	secret, err := secrets.Rotate(e.As(u.ID))
	if err != nil || len(secret) < 40 {
		t.Fatalf("secret %q %v", secret, err)
	}
	m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "t", Name: "n", Recipient: "charles@example.com", Body: "b", WebhookURL: hook.URL})
	if err != nil {
		t.Fatal(err)
	}

	e.Clock.Set(m.SendDate)
	res := e.pass(t, core.PassResult{Delivered: 1})
	if res.Webhooks != 0 {
		t.Fatalf("webhook succeeded against a failing endpoint: %v", res)
	}
	first := <-hits // 503: retried after a minute
	e.Clock.Add(time.Minute)
	res = e.pass(t, core.PassResult{})
	if res.Webhooks != 1 {
		t.Fatalf("retry: %v", res)
	}
	second := <-hits
	var p core.WebhookPayload
	if err := json.Unmarshal(second.body, &p); err != nil || p.MessageID != m.ID || p.Recipient != "charles@example.com" ||
		p.DeliveredAt != m.SendDate.UnixMilli() || p.Attempt != 2 || p.Event != "message.delivered" {
		t.Fatalf("payload %s (%v)", second.body, err)
	}
	if second.sig != core.SignWebhook(secret, second.body) || first.sig != core.SignWebhook(secret, first.body) {
		t.Fatalf("signature %q", second.sig)
	}
	e.Clock.Add(time.Hour)
	if res = e.pass(t, core.PassResult{}); res.Webhooks != 0 {
		t.Fatal("a webhook was called again after success")
	}
	// The timeline tells both calls.
	events, err := e.Messages.Events(e.As(u.ID), m.ID)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, ev := range events {
		if ev.Kind == core.EventWebhook {
			calls = append(calls, ev.Detail)
		}
	}
	if len(calls) != 2 || !strings.HasPrefix(calls[0], "failed, will retry: ") || calls[1] != "answered 2xx" {
		t.Fatalf("webhook calls in the timeline: %q", calls)
	}
}

// The author's notice of a failed delivery is queued with the failure: a
// mail server that refuses it for a while only delays it.
func TestTheFailureNoticeWaitsForTheMailServer(t *testing.T) {
	e := MustDeliveryEnv(t, march1)
	e.Delivery.Reminders = nil
	u := e.mustUser(t, "ada@example.com", "")
	m := e.mustMessage(t, u.ID, core.Interval1M)
	e.Clock.Set(m.SendDate)
	e.SMTP.FailNext(1, 550, "no such user")         // the delivery, for good
	e.SMTP.FailNextData(1, 451, "mail system busy") // then the notice, for now
	e.pass(t, core.PassResult{Failed: 1})
	e.NoMoreEmail(t)

	e.Clock.Add(core.RetryDelays[0])
	e.pass(t, core.PassResult{})
	p, _ := e.nextEmail(t, "ada@example.com")
	if !strings.Contains(p.Subject, "could not be delivered") || !strings.Contains(p.Text, "no such user") {
		t.Fatalf("failure email %q:\n%s", p.Subject, p.Text)
	}
	e.Clock.Add(time.Hour)
	e.pass(t, core.PassResult{})
	e.NoMoreEmail(t)
}

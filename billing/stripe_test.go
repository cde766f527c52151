package billing_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/billing"
	"github.com/sendlater/sendlater/billing/stripemock"
	"github.com/sendlater/sendlater/core"
)

var ctx = context.Background()

func TestStripeMockListensOnLoopbackOnly(t *testing.T) {
	p := stripemock.StartPeer(t)
	for _, raw := range []string{p.URL, p.HTTPSURL} {
		u, err := url.Parse(raw)
		if err != nil || u.Hostname() != "127.0.0.1" || u.Port() == "" {
			t.Fatalf("stripe-mock listens at %q, want 127.0.0.1 and a port", raw)
		}
	}
	// Both listeners answer as Stripe does.
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for _, base := range []string{p.URL, p.HTTPSURL} {
		req, _ := http.NewRequest("GET", base+"/v1/customers/cus_1", nil)
		req.SetBasicAuth("sk_test_sendlater", "")
		resp, err := insecure.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var cus struct{ ID, Object string }
		json.NewDecoder(resp.Body).Decode(&cus)
		resp.Body.Close()
		if resp.StatusCode != 200 || cus.Object != "customer" || cus.ID != "cus_1" {
			t.Fatalf("%s: %d %+v", base, resp.StatusCode, cus)
		}
	}
}

func TestCustomerCheckoutPortalAndSubscriptions(t *testing.T) {
	p := stripemock.StartPeer(t)
	s := client(p)

	id, err := s.CreateCustomer(ctx, core.CustomerInput{UserID: "u1", Email: "ada@example.com", Name: "Ada", IdempotencyKey: "key-u1"})
	if err != nil || !strings.HasPrefix(id, "cus_") {
		t.Fatalf("CreateCustomer = %q, %v", id, err)
	}
	r := p.Sent("POST", "/v1/customers")
	if len(r) != 1 || r[0].Form.Get("email") != "ada@example.com" || r[0].Form.Get("name") != "Ada" ||
		r[0].Form.Get("metadata[sendlater_user_id]") != "u1" || r[0].IdempotencyKey != "key-u1" {
		t.Fatalf("customer request = %+v", r)
	}

	cs, err := s.CreateCheckoutSession(ctx, core.CheckoutInput{
		CustomerID: id, PriceID: "price_pro", UserID: "u1",
		SuccessURL: "https://sendlater.example/dashboard?paid=true", CancelURL: "https://sendlater.example/pricing",
	})
	if err != nil || !strings.HasPrefix(cs.ID, "cs_") || !strings.HasPrefix(cs.URL, p.APIBase+"/pay/") {
		t.Fatalf("CreateCheckoutSession = %+v, %v", cs, err)
	}
	r = p.Sent("POST", "/v1/checkout/sessions")
	want := map[string]string{
		"mode": "subscription", "customer": id, "line_items[0][price]": "price_pro", "line_items[0][quantity]": "1",
		"client_reference_id": "u1", "metadata[sendlater_user_id]": "u1",
		"subscription_data[metadata][sendlater_user_id]": "u1",
		"success_url": "https://sendlater.example/dashboard?paid=true", "cancel_url": "https://sendlater.example/pricing",
	}
	for k, v := range want {
		if len(r) != 1 || r[0].Form.Get(k) != v {
			t.Fatalf("checkout request %s = %q, want %q (%v)", k, r[0].Form.Get(k), v, r)
		}
	}

	portal, err := s.CreatePortalSession(ctx, id, "https://sendlater.example/settings/general")
	if err != nil || !strings.HasPrefix(portal, "https://") {
		t.Fatalf("CreatePortalSession = %q, %v", portal, err)
	}
	r = p.Sent("POST", "/v1/billing_portal/sessions")
	if len(r) != 1 || r[0].Form.Get("customer") != id || r[0].Form.Get("return_url") != "https://sendlater.example/settings/general" {
		t.Fatalf("portal request = %+v", r)
	}

	subs, err := s.Subscriptions(ctx, id)
	if err != nil || len(subs) == 0 {
		t.Fatalf("Subscriptions = %+v, %v", subs, err)
	}
	if subs[0].Status != "active" || len(subs[0].PriceIDs) == 0 || subs[0].PriceIDs[0] != fixturePrice || subs[0].Created.IsZero() {
		t.Fatalf("subscription = %+v", subs[0])
	}
	r = p.Sent("GET", "/v1/subscriptions")
	if len(r) != 1 || r[0].Form.Get("customer") != id || r[0].Form.Get("status") != "all" {
		t.Fatalf("subscriptions request = %+v", r)
	}
}

func TestStripeDownIsUnavailable(t *testing.T) {
	p := stripemock.StartPeer(t)
	p.SetDown(true)
	_, err := client(p).Subscriptions(ctx, "cus_1")
	if core.ErrorCode(err) != core.EUnavailable || !strings.Contains(err.Error(), "503") {
		t.Fatalf("Subscriptions while Stripe is down: %v", err)
	}
	if msg := core.ErrorMessage(err); strings.Contains(msg, "503") || strings.Contains(msg, "stripe") {
		t.Fatalf("the user's message carries internal detail: %q", msg)
	}
}

func TestParseWebhook(t *testing.T) {
	s := newClient("http://127.0.0.1:1") // no request is made
	checkout := event("evt_1", core.EventCheckoutCompleted, map[string]any{
		"id": "cs_1", "object": "checkout.session", "customer": "cus_1", "client_reference_id": "u1",
	})
	ev, err := s.ParseWebhook(checkout, sign(checkout, webhookSecret, time.Now()))
	if err != nil || ev.ID != "evt_1" || ev.Type != core.EventCheckoutCompleted || ev.CustomerID != "cus_1" || ev.ClientReference != "u1" {
		t.Fatalf("ParseWebhook = %+v, %v", ev, err)
	}
	// An expanded customer, and an older API version of the endpoint.
	sub, _ := json.Marshal(map[string]any{
		"id": "evt_2", "object": "event", "type": core.EventSubscriptionUpdated, "api_version": "2020-08-27",
		"created": time.Now().Unix(), "data": map[string]any{"object": map[string]any{
			"id": "sub_1", "object": "subscription", "customer": map[string]any{"id": "cus_2", "object": "customer"},
		}},
	})
	ev, err = s.ParseWebhook(sub, sign(sub, webhookSecret, time.Now()))
	if err != nil || ev.CustomerID != "cus_2" || ev.Type != core.EventSubscriptionUpdated {
		t.Fatalf("ParseWebhook(expanded customer) = %+v, %v", ev, err)
	}

	for name, sig := range map[string]string{
		"wrong secret":  sign(checkout, "whsec_other", time.Now()),
		"stale":         sign(checkout, webhookSecret, time.Now().Add(-6*time.Minute)),
		"ahead":         sign(checkout, webhookSecret, time.Now().Add(10*time.Minute)),
		"just ahead":    sign(checkout, webhookSecret, time.Now().Add(billing.WebhookTolerance+time.Minute)),
		"unsigned":      "",
		"garbage":       "t=abc,v1=zz",
		"other payload": sign(sub, webhookSecret, time.Now()),
	} {
		if _, err := s.ParseWebhook(checkout, sig); core.ErrorCode(err) != core.EInvalidSignature {
			t.Errorf("%s: ParseWebhook = %v, want %s", name, err, core.EInvalidSignature)
		}
	}
	// Within the tolerance of five minutes, either way.
	if _, err := s.ParseWebhook(checkout, sign(checkout, webhookSecret, time.Now().Add(-4*time.Minute))); err != nil {
		t.Fatalf("a 4-minute-old signature: %v", err)
	}
	if _, err := s.ParseWebhook(checkout, sign(checkout, webhookSecret, time.Now().Add(4*time.Minute))); err != nil {
		t.Fatalf("a signature 4 minutes ahead: %v", err)
	}
}

package web_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/billing"
	"github.com/sendlater/sendlater/billing/stripemock"
	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

// The payment tests run the real server with Stripe configured against the
// stripe-mock peer (billing/stripemock), Pro on sale at the fixture's price.

const testWebhookSecret = "whsec_test_sendlater"

type paymentsAPI struct {
	*identityAPI
	peer *stripemock.Peer
}

func mustPaymentsAPI(t *testing.T) *paymentsAPI {
	t.Helper()
	peer := stripemock.StartPeer(t)
	a := startIdentityAPI(t, func(e *testenv.Env, s *web.Server, log *slog.Logger) {
		prices := core.PriceMap{stripemock.FixturePrice: core.PlanPro}
		e.Auth.Prices, e.Messages.Prices = prices, prices
		s.Payments = &core.BillingService{
			Users: e.DB, Billing: e.DB, Prices: prices, Clock: e.Clock, BaseURL: identityBaseURL, Logger: log,
			Provider: billing.New(billing.Config{SecretKey: "sk_test_sendlater", WebhookSecret: testWebhookSecret, APIBase: peer.APIBase}),
		}
	})
	peer.Webhook(a.srv.URL()+"/api/stripe-webhook", testWebhookSecret, false)
	return &paymentsAPI{identityAPI: a, peer: peer}
}

// me is the session user of bearer.
func (a *identityAPI) me(bearer string) web.SessionUserJSON {
	a.t.Helper()
	var su web.SessionUserJSON
	a.ok(nil, http.StatusOK, "GET", "/api/me", bearer, nil, &su)
	return su
}

func (a *identityAPI) wantPlan(when, bearer string, plan core.PlanID, active bool) {
	a.t.Helper()
	if su := a.me(bearer); su.PlanID != plan || su.PlanIsActive != active {
		a.t.Fatalf("%s: plan %s active %v, want %s active %v", when, su.PlanID, su.PlanIsActive, plan, active)
	}
}

func TestPlansSayWhatIsOnSale(t *testing.T) {
	var plans []web.PlanJSON
	off := mustIdentityAPI(t)
	off.ok(nil, http.StatusOK, "GET", "/api/plans", "", nil, &plans)
	if len(plans) != 3 || plans[0].Name != "Free" || plans[1].Name != "Pro" || plans[1].Price != "10" || plans[2].Price != "-" ||
		!slices.Contains(plans[2].Perks, "Trigger an HTTP endpoint") || plans[0].Purchasable || plans[1].Purchasable || plans[2].Purchasable {
		t.Fatalf("plans without payments: %+v", plans)
	}
	a := mustPaymentsAPI(t)
	a.ok(nil, http.StatusOK, "GET", "/api/plans", "", nil, &plans)
	if plans[0].Purchasable || !plans[1].Purchasable || plans[2].Purchasable {
		t.Fatalf("plans with Pro on sale: %+v", plans)
	}
}

func TestCheckoutAndPortal(t *testing.T) {
	a := mustPaymentsAPI(t)
	const checkout, portal = "/api/stripe-create-checkout-session", "/api/stripe-create-billing-session"
	a.fail(nil, http.StatusUnauthorized, core.EInvalidToken, "POST", checkout, "", map[string]string{"planId": "pro"})
	ann := a.author("ann@example.com")
	a.fail(nil, http.StatusConflict, core.EBillingNoCustomer, "POST", portal, ann.token, map[string]string{})
	a.fail(nil, http.StatusBadRequest, core.ENothingToBuy, "POST", checkout, ann.token, map[string]string{"planId": "starter"})
	a.fail(nil, http.StatusForbidden, core.EContactUs, "POST", checkout, ann.token, map[string]string{"planId": "business"})
	_, env := a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, "POST", checkout, ann.token,
		map[string]string{"planId": "pro", "successUrl": "https://evil.example/dashboard"})
	if env.Fields["successUrl"] == "" {
		t.Fatalf("fields %v", env.Fields)
	}
	a.fail(nil, http.StatusBadRequest, core.EInvalidJSON, "POST", checkout, ann.token, map[string]any{"planId": "pro", "coupon": "FREE"})

	var cs web.CheckoutJSON
	a.ok(nil, http.StatusOK, "POST", checkout, ann.token, map[string]string{"priceId": stripemock.FixturePrice, "cancelUrl": identityBaseURL + "/pricing?from=test"}, &cs)
	if !strings.HasPrefix(cs.ID, "cs_") || !strings.HasPrefix(cs.URL, a.peer.APIBase+"/pay/") {
		t.Fatalf("checkout %+v", cs)
	}
	sent := a.peer.Sent("POST", "/v1/checkout/sessions")
	if f := sent[0].Form; f.Get("client_reference_id") != ann.uid || f.Get("success_url") != identityBaseURL+"/dashboard?paid=true" ||
		f.Get("cancel_url") != identityBaseURL+"/pricing?from=test" || f.Get("mode") != "subscription" {
		t.Fatalf("checkout request %v", f)
	}

	a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, "POST", portal, ann.token, map[string]string{"returnUrl": "https://evil.example/"})
	var p web.URLJSON
	a.ok(nil, http.StatusOK, "POST", portal, ann.token, map[string]string{}, &p)
	if p.URL == "" || a.peer.Sent("POST", "/v1/billing_portal/sessions")[0].Form.Get("return_url") != identityBaseURL+"/settings/general" {
		t.Fatalf("portal %+v", p)
	}
}

// deliver posts a webhook event for the customer of uid, signed at signedAt
// with secret, and returns the reply's status.
func (a *paymentsAPI) deliver(id, typ, uid, secret string, signedAt time.Time) int {
	a.t.Helper()
	u, err := a.DB.FindUserByID(context.Background(), uid)
	if err != nil {
		a.t.Fatal(err)
	}
	obj := map[string]any{"object": "subscription", "id": "sub_1", "customer": u.StripeCustomerID}
	if typ == core.EventCheckoutCompleted {
		obj = map[string]any{"object": "checkout.session", "id": "cs_1", "customer": u.StripeCustomerID, "client_reference_id": uid}
	}
	payload := stripemock.Event(id, typ, obj)
	resp, body := a.raw("POST", "/api/stripe-webhook", map[string]string{
		"Content-Type": "application/json", "Stripe-Signature": stripemock.Sign(payload, secret, signedAt),
	}, string(payload))
	decodeEnvelope(a.t, body)
	return resp.StatusCode
}

func TestStripeWebhooks(t *testing.T) {
	a := mustPaymentsAPI(t)
	ann := a.author("ann@example.com")
	a.ok(nil, http.StatusOK, "POST", "/api/stripe-create-checkout-session", ann.token, map[string]string{"planId": "pro"}, nil)
	reads := func() int { return len(a.peer.Sent("GET", "/v1/subscriptions")) }
	now := time.Now()
	want := func(what string, got, status int, plan core.PlanID, active bool) {
		t.Helper()
		if got != status {
			t.Fatalf("%s: HTTP %d, want %d", what, got, status)
		}
		a.wantPlan("after "+what, ann.token, plan, active)
	}

	// Badly signed and stale deliveries are refused and change nothing.
	a.peer.Set("active", stripemock.FixturePrice)
	want("a bad signature", a.deliver("evt_paid", core.EventCheckoutCompleted, ann.uid, "whsec_forged", now), http.StatusBadRequest, core.PlanStarter, false)
	want("a stale signature", a.deliver("evt_paid", core.EventCheckoutCompleted, ann.uid, testWebhookSecret, now.Add(-6*time.Minute)), http.StatusBadRequest, core.PlanStarter, false)
	resp, _ := a.raw("POST", "/api/stripe-webhook", map[string]string{"Stripe-Signature": "t=1,v1=00"}, strings.Repeat("x", web.MaxWebhookBytes+1))
	if resp.StatusCode != http.StatusRequestEntityTooLarge || reads() != 0 {
		t.Fatalf("an oversized body: %d, %d reads", resp.StatusCode, reads())
	}

	// Paid, then the same event again: applied once.
	want("checkout.session.completed", a.deliver("evt_paid", core.EventCheckoutCompleted, ann.uid, testWebhookSecret, now), http.StatusOK, core.PlanPro, true)
	before := reads()
	want("a duplicate", a.deliver("evt_paid", core.EventCheckoutCompleted, ann.uid, testWebhookSecret, now), http.StatusOK, core.PlanPro, true)
	if reads() != before {
		t.Fatal("a duplicate event read Stripe again")
	}
	// Out of order: a late "deleted" of an old subscription while Stripe
	// says active leaves the plan active.
	want("a late subscription.deleted", a.deliver("evt_old_deleted", core.EventSubscriptionDeleted, ann.uid, testWebhookSecret, now), http.StatusOK, core.PlanPro, true)

	// Canceled; a late "created" cannot bring it back.
	a.peer.Set("canceled", stripemock.FixturePrice)
	want("subscription.deleted", a.deliver("evt_deleted", core.EventSubscriptionDeleted, ann.uid, testWebhookSecret, now), http.StatusOK, core.PlanPro, false)
	want("a late subscription.created", a.deliver("evt_late_created", core.EventSubscriptionCreated, ann.uid, testWebhookSecret, now), http.StatusOK, core.PlanPro, false)

	// Applying fails (Stripe down): 5xx, so Stripe retries; the retry applies.
	a.peer.Set("active", stripemock.FixturePrice)
	a.peer.SetDown(true)
	want("a failed apply", a.deliver("evt_renewed", core.EventSubscriptionUpdated, ann.uid, testWebhookSecret, now), http.StatusServiceUnavailable, core.PlanPro, false)
	a.peer.SetDown(false)
	want("the retry", a.deliver("evt_renewed", core.EventSubscriptionUpdated, ann.uid, testWebhookSecret, now), http.StatusOK, core.PlanPro, true)
	if !strings.Contains(a.logs.String(), "stripe webhook not applied") {
		t.Fatal("the failed apply was not logged")
	}
}

// Paying through the hosted checkout shows at once: the webhook stores the
// plan, the live list sends the session user with it, and the next message
// may be added.
func TestPaidPlanShowsAtOnce(t *testing.T) {
	a := mustPaymentsAPI(t)
	ann := a.author("ann@example.com")
	a.createMessage(ann, nil)
	s := openStream(t, a.srv.URL(), ann.token, false)
	if su := s.user(time.Second); su.CanAddMessage {
		t.Fatalf("before paying: %+v", su)
	}
	a.fail(nil, http.StatusForbidden, core.EPlanLimit, "POST", "/api/messages", ann.token, newMessage(nil))

	var cs web.CheckoutJSON
	a.ok(nil, http.StatusOK, "POST", "/api/stripe-create-checkout-session", ann.token, map[string]string{"planId": "pro"}, &cs)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Post(cs.URL, "application/x-www-form-urlencoded", bytes.NewReader(nil))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != identityBaseURL+"/dashboard?paid=true" {
		t.Fatalf("paying: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if su := s.user(time.Second); su.PlanID != core.PlanPro || !su.PlanIsActive || !su.CanAddMessage {
		t.Fatalf("the live list after paying: %+v", su)
	}
	a.createMessage(ann, map[string]any{"title": "second"})
}

// A plan that lapses keeps what was scheduled: the messages are still
// delivered, edited and postponed; only adding beyond the free limit stops.
func TestLapsedPlanKeepsWhatWasScheduled(t *testing.T) {
	a := mustPaymentsAPI(t)
	ann := a.author("ann@example.com")
	a.ok(nil, http.StatusOK, "POST", "/api/stripe-create-checkout-session", ann.token, map[string]string{"planId": "pro"}, nil)
	a.peer.Set("active", stripemock.FixturePrice)
	if got := a.deliver("evt_paid", core.EventCheckoutCompleted, ann.uid, testWebhookSecret, time.Now()); got != http.StatusOK {
		t.Fatalf("paid: %d", got)
	}
	first := a.createMessage(ann, map[string]any{"recipient": "cy@example.com"})
	second := a.createMessage(ann, map[string]any{"title": "second", "recipient": "bob@example.com"})

	a.peer.Set("canceled", stripemock.FixturePrice)
	if got := a.deliver("evt_deleted", core.EventSubscriptionDeleted, ann.uid, testWebhookSecret, time.Now()); got != http.StatusOK {
		t.Fatalf("canceled: %d", got)
	}
	if su := a.me(ann.token); su.PlanIsActive || su.CanAddMessage {
		t.Fatalf("after the plan lapsed: %+v", su)
	}
	a.fail(nil, http.StatusForbidden, core.EPlanLimit, "POST", "/api/messages", ann.token, newMessage(nil))
	a.ok(nil, http.StatusOK, "PATCH", "/api/messages/"+first.ID, ann.token, map[string]any{"title": "edited", "interval": "6M"}, nil)
	a.ok(nil, http.StatusOK, "POST", "/api/messages/"+second.ID+"/postpone", ann.token, nil, nil)

	// Both are delivered when due.
	a.Clock.Add(13 * 31 * 24 * time.Hour)
	if _, err := a.Delivery.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{"cy@example.com", "bob@example.com"} {
		found := false
		for _, m := range a.SMTP.Messages() {
			p, err := m.Parse()
			found = found || err == nil && slices.Equal(m.To, []string{to}) && strings.Contains(p.Text, "The key is under the blue pot.")
		}
		if !found {
			t.Errorf("no delivery to %s", to)
		}
	}
}

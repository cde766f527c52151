package web_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/billing"
	"github.com/sendlater/sendlater/billing/stripemock"
	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

// A Stripe event signed more than 5 minutes ahead of our clock is refused
// as one signed more than 5 minutes ago is, and changes nothing; one
// signed 4 minutes ahead (a clock a little fast) is applied. On main the
// event signed 10 minutes ahead was applied.
func TestStripeWebhookSignedAheadIsRefused(t *testing.T) {
	peer := stripemock.StartPeer(t)
	peer.Set("active", stripemock.FixturePrice)
	reads := func() int { return len(peer.Sent("GET", "/v1/subscriptions")) }
	testenv.Backends(t, testenv.Config{Start: time.Now()}, func(t *testing.T, e *testenv.Env) {
		prices := core.PriceMap{stripemock.FixturePrice: core.PlanPro}
		h := (&web.Server{
			Logger: slogDiscard(), BaseURL: identityBaseURL, AppName: "Sendlater", Clock: e.Clock,
			Identities: e.Auth, Messages: e.Messages,
			Payments: &core.BillingService{
				Users: e.Store, Billing: e.Store, Prices: prices, Clock: e.Clock, BaseURL: identityBaseURL, Logger: slogDiscard(),
				Provider: billing.New(billing.Config{SecretKey: "sk_test_sendlater", WebhookSecret: testWebhookSecret, APIBase: peer.APIBase}),
			},
		}).Handler()
		u := e.MustUser(t, "ann@example.com", "", core.PlanStarter)
		payload := stripemock.Event("evt_ahead", core.EventCheckoutCompleted, map[string]any{
			"object": "checkout.session", "id": "cs_1", "customer": "cus_ahead", "client_reference_id": u.ID,
		})
		deliver := func(signedAt time.Time) (int, string) {
			req := httptest.NewRequest("POST", "/api/stripe-webhook", strings.NewReader(string(payload)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Stripe-Signature", stripemock.Sign(payload, testWebhookSecret, signedAt))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			var env struct {
				Code string `json:"code"`
			}
			json.Unmarshal(rec.Body.Bytes(), &env)
			return rec.Code, env.Code
		}
		state := func() (bool, core.PlanID, bool) {
			seen, err := e.Store.BillingEventSeen(e.Ctx, "evt_ahead")
			if err != nil {
				t.Fatal(err)
			}
			now, err := e.Store.FindUserByID(e.Ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			plan, active := prices.PlanOf(now)
			return seen, plan, active
		}

		before := reads()
		if status, code := deliver(time.Now().Add(10 * time.Minute)); status != http.StatusBadRequest || code != core.EInvalidSignature {
			t.Fatalf("signed 10 minutes ahead: %d %s, want 400 %s", status, code, core.EInvalidSignature)
		}
		if seen, plan, _ := state(); seen || plan != core.PlanStarter || reads() != before {
			t.Fatalf("signed 10 minutes ahead: recorded %v, plan %s, %d reads of Stripe", seen, plan, reads()-before)
		}
		if status, code := deliver(time.Now().Add(4 * time.Minute)); status != http.StatusOK {
			t.Fatalf("signed 4 minutes ahead: %d %s, want 200", status, code)
		}
		if seen, plan, active := state(); !seen || plan != core.PlanPro || !active {
			t.Fatalf("signed 4 minutes ahead: recorded %v, plan %s active %v", seen, plan, active)
		}
	})
}

package billing_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/billing/stripemock"
	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// env is core.BillingService over Stripe (stripe-mock behind the proxy) and
// the test environment's bbolt store, with one signed-up user.
type env struct {
	*testenv.Env
	peer    *stripemock.Peer
	svc     *core.BillingService
	user    *core.User
	userCtx context.Context
}

const proPrice = fixturePrice // stripe-mock's subscriptions are on this price

func newEnv(t *testing.T, prices core.PriceMap) *env {
	t.Helper()
	te := testenv.New(t, testenv.Config{BaseURL: "https://sendlater.example/"})
	now := te.Clock.Now()
	u := &core.User{ID: core.NewID(), Email: "ada@example.com", Name: "Ada", Providers: []string{core.ProviderPassword}, CreatedAt: now, UpdatedAt: now}
	if err := te.DB.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	p := stripemock.StartPeer(t)
	return &env{
		Env: te, peer: p, user: u,
		svc: &core.BillingService{
			Users: te.DB, Billing: te.DB, Provider: client(p), Prices: prices,
			Clock: te.Clock, BaseURL: te.BaseURL, Logger: slog.New(slog.DiscardHandler),
		},
		userCtx: te.Acting(&core.Identity{UserID: u.ID, SessionID: "s1", AuthTime: now}),
	}
}

// plan is the user's plan as the session user shows it.
func (e *env) plan(t *testing.T) (core.PlanID, bool) {
	t.Helper()
	u, err := e.DB.FindUserByID(ctx, e.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	s := u.Session(e.svc.Prices, false)
	return s.PlanID, s.PlanIsActive
}

func (e *env) wantPlan(t *testing.T, when string, plan core.PlanID, active bool) {
	t.Helper()
	if p, a := e.plan(t); p != plan || a != active {
		t.Fatalf("%s: plan %s active %v, want %s active %v", when, p, a, plan, active)
	}
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := core.ErrorCode(err); got != code {
		t.Fatalf("%s: error %q (%v), want %q", what, got, err, code)
	}
}

func TestCheckoutRules(t *testing.T) {
	e := newEnv(t, core.PriceMap{proPrice: core.PlanPro})

	_, err := e.svc.Checkout(e.userCtx, core.CheckoutRequest{PlanID: core.PlanStarter})
	wantCode(t, "starter", err, core.ENothingToBuy)
	_, err = e.svc.Checkout(e.userCtx, core.CheckoutRequest{PlanID: core.PlanBusiness})
	wantCode(t, "business without a price", err, core.EContactUs)
	if !strings.Contains(core.ErrorMessage(err), "contact page") {
		t.Fatalf("business: %q", core.ErrorMessage(err))
	}
	_, err = e.svc.Checkout(e.userCtx, core.CheckoutRequest{PlanID: "gold"})
	wantCode(t, "unknown plan", err, core.EValidation)
	_, err = e.svc.Checkout(e.userCtx, core.CheckoutRequest{PriceID: "plan:pro"})
	wantCode(t, "an operator grant is no price", err, core.EValidation)
	for _, bad := range []string{"https://evil.example/dashboard", "http://sendlater.example/dashboard", "//evil.example/", "javascript:alert(1)", "https://user@sendlater.example/"} {
		_, err = e.svc.Checkout(e.userCtx, core.CheckoutRequest{PlanID: core.PlanPro, SuccessURL: bad})
		wantCode(t, "success URL "+bad, err, core.EValidation)
		if ve, _ := core.AsError(err); ve.Fields["successUrl"] == "" {
			t.Fatalf("success URL %s: fields %v", bad, ve.Fields)
		}
	}
	_, err = e.svc.Checkout(ctx, core.CheckoutRequest{PlanID: core.PlanPro})
	wantCode(t, "signed out", err, core.EInvalidToken)
	if n := len(e.peer.Sent("POST", "/v1/customers")); n != 0 {
		t.Fatalf("refused checkouts created %d customers", n)
	}

	// The first checkout creates the customer and stores it; the next one
	// reuses it.
	cs, err := e.svc.Checkout(e.userCtx, core.CheckoutRequest{PlanID: core.PlanPro})
	if err != nil || cs.ID == "" || !strings.HasPrefix(cs.URL, e.peer.APIBase+"/pay/") {
		t.Fatalf("Checkout = %+v, %v", cs, err)
	}
	u, _ := e.DB.FindUserByID(ctx, e.user.ID)
	if !strings.HasPrefix(u.StripeCustomerID, "cus_") {
		t.Fatalf("customer not stored: %q", u.StripeCustomerID)
	}
	_, err = e.svc.Checkout(e.userCtx, core.CheckoutRequest{PriceID: proPrice, SuccessURL: "https://sendlater.example/dashboard?paid=true&from=test"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(e.peer.Sent("POST", "/v1/customers")); n != 1 {
		t.Fatalf("%d customers created for one user, want 1", n)
	}
	sessions := e.peer.Sent("POST", "/v1/checkout/sessions")
	first, second := sessions[0].Form, sessions[1].Form
	if first.Get("customer") != u.StripeCustomerID || second.Get("customer") != u.StripeCustomerID ||
		first.Get("client_reference_id") != u.ID || first.Get("line_items[0][price]") != proPrice ||
		first.Get("success_url") != "https://sendlater.example/dashboard?paid=true" ||
		first.Get("cancel_url") != "https://sendlater.example/pricing" ||
		second.Get("success_url") != "https://sendlater.example/dashboard?paid=true&from=test" {
		t.Fatalf("checkout requests: %v / %v", first, second)
	}
	if c, _ := e.DB.FindUserByStripeCustomer(ctx, u.StripeCustomerID); c == nil || c.ID != u.ID {
		t.Fatal("the customer does not find its user")
	}

	// A user whose plan is active manages it in the portal instead.
	e.peer.Set("active", proPrice)
	if _, err := e.svc.Sync(ctx, u.Email); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.Checkout(e.userCtx, core.CheckoutRequest{PlanID: core.PlanPro})
	wantCode(t, "active plan", err, core.EAlreadySubscribed)
}

func TestBusinessWithAPriceIsSold(t *testing.T) {
	e := newEnv(t, core.PriceMap{proPrice: core.PlanPro, "price_business": core.PlanBusiness})
	if _, err := e.svc.Checkout(e.userCtx, core.CheckoutRequest{PlanID: core.PlanBusiness}); err != nil {
		t.Fatal(err)
	}
	if r := e.peer.Sent("POST", "/v1/checkout/sessions"); r[0].Form.Get("line_items[0][price]") != "price_business" {
		t.Fatalf("business checkout: %v", r[0].Form)
	}
}

func TestPortal(t *testing.T) {
	e := newEnv(t, core.PriceMap{proPrice: core.PlanPro})
	_, err := e.svc.Portal(e.userCtx, "")
	wantCode(t, "no customer", err, core.EBillingNoCustomer)
	if _, err := e.svc.Checkout(e.userCtx, core.CheckoutRequest{PlanID: core.PlanPro}); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.Portal(e.userCtx, "https://evil.example/")
	wantCode(t, "foreign return URL", err, core.EValidation)
	url, err := e.svc.Portal(e.userCtx, "")
	if err != nil || !strings.HasPrefix(url, "https://") {
		t.Fatalf("Portal = %q, %v", url, err)
	}
	if r := e.peer.Sent("POST", "/v1/billing_portal/sessions"); len(r) != 1 || r[0].Form.Get("return_url") != "https://sendlater.example/settings/general" {
		t.Fatalf("portal requests: %+v", r)
	}
}

// deliver signs an event for the user's customer as Stripe would and hands it
// to the service.
func (e *env) deliver(id, typ string, signedAt time.Time) error {
	u, _ := e.DB.FindUserByID(ctx, e.user.ID)
	obj := map[string]any{"object": "subscription", "id": "sub_1", "customer": u.StripeCustomerID}
	if typ == core.EventCheckoutCompleted {
		obj = map[string]any{"object": "checkout.session", "id": "cs_1", "customer": u.StripeCustomerID, "client_reference_id": u.ID}
	}
	payload := event(id, typ, obj)
	return e.svc.HandleWebhook(ctx, payload, sign(payload, webhookSecret, signedAt))
}

func TestWebhooks(t *testing.T) {
	e := newEnv(t, core.PriceMap{proPrice: core.PlanPro})
	if _, err := e.svc.Checkout(e.userCtx, core.CheckoutRequest{PlanID: core.PlanPro}); err != nil {
		t.Fatal(err)
	}
	e.wantPlan(t, "before paying", core.PlanStarter, false)
	reads := func() int { return len(e.peer.Sent("GET", "/v1/subscriptions")) }

	// Badly signed and stale deliveries change nothing and are not recorded.
	u, _ := e.DB.FindUserByID(ctx, e.user.ID)
	payload := event("evt_paid", core.EventCheckoutCompleted, map[string]any{"object": "checkout.session", "customer": u.StripeCustomerID, "client_reference_id": u.ID})
	wantCode(t, "bad signature", e.svc.HandleWebhook(ctx, payload, sign(payload, "whsec_forged", time.Now())), core.EInvalidSignature)
	wantCode(t, "stale", e.deliver("evt_paid", core.EventCheckoutCompleted, time.Now().Add(-10*time.Minute)), core.EInvalidSignature)
	e.wantPlan(t, "after refused deliveries", core.PlanStarter, false)
	if reads() != 0 {
		t.Fatal("a refused delivery read Stripe")
	}

	// Paid: checkout completed, Stripe says active.
	e.peer.Set("active", proPrice)
	if err := e.deliver("evt_paid", core.EventCheckoutCompleted, time.Now()); err != nil {
		t.Fatal(err)
	}
	e.wantPlan(t, "after checkout.session.completed", core.PlanPro, true)

	// The same event again is ignored, without asking Stripe.
	before := reads()
	if err := e.deliver("evt_paid", core.EventCheckoutCompleted, time.Now()); err != nil {
		t.Fatal(err)
	}
	if reads() != before {
		t.Fatal("a duplicate event read Stripe again")
	}

	// Out of order: a late "deleted" of an old subscription while Stripe
	// says the plan is active leaves it active.
	if err := e.deliver("evt_old_deleted", core.EventSubscriptionDeleted, time.Now()); err != nil {
		t.Fatal(err)
	}
	e.wantPlan(t, "after a late subscription.deleted", core.PlanPro, true)

	// Payment fails: Stripe says past_due; the plan is no longer active.
	e.peer.Set("past_due", proPrice)
	if err := e.deliver("evt_failed", core.EventInvoicePaymentFailed, time.Now()); err != nil {
		t.Fatal(err)
	}
	e.wantPlan(t, "after invoice.payment_failed", core.PlanPro, false)

	// Canceled, then a late "created" and "updated" arrive: they re-read
	// Stripe, which still says canceled, and cannot bring the plan back.
	e.peer.Set("canceled", proPrice)
	if err := e.deliver("evt_deleted", core.EventSubscriptionDeleted, time.Now()); err != nil {
		t.Fatal(err)
	}
	e.wantPlan(t, "after subscription.deleted", core.PlanPro, false)
	for _, id := range []string{"evt_late_created", "evt_late_updated"} {
		if err := e.deliver(id, core.EventSubscriptionCreated, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	e.wantPlan(t, "after late created/updated", core.PlanPro, false)

	// An event whose apply fails (Stripe down) is an error and not
	// recorded: Stripe's retry applies it.
	e.peer.Set("active", proPrice)
	e.peer.SetDown(true)
	err := e.deliver("evt_renewed", core.EventSubscriptionUpdated, time.Now())
	wantCode(t, "apply while Stripe is down", err, core.EUnavailable)
	e.wantPlan(t, "after a failed apply", core.PlanPro, false)
	if seen, _ := e.DB.BillingEventSeen(ctx, "evt_renewed"); seen {
		t.Fatal("an event that failed to apply was recorded")
	}
	e.peer.SetDown(false)
	if err := e.deliver("evt_renewed", core.EventSubscriptionUpdated, time.Now()); err != nil {
		t.Fatal(err)
	}
	e.wantPlan(t, "after the retry", core.PlanPro, true)

	// Events that change no subscription, and customers that are not ours,
	// are acknowledged and recorded.
	other := event("evt_other_app", core.EventSubscriptionUpdated, map[string]any{"object": "subscription", "customer": "cus_not_ours"})
	if err := e.svc.HandleWebhook(ctx, other, sign(other, webhookSecret, time.Now())); err != nil {
		t.Fatal(err)
	}
	if err := e.deliver("evt_invoice_paid", "invoice.paid", time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"evt_other_app", "evt_invoice_paid", "evt_paid", "evt_renewed"} {
		if seen, _ := e.DB.BillingEventSeen(ctx, id); !seen {
			t.Fatalf("%s not recorded", id)
		}
	}
	e.wantPlan(t, "at the end", core.PlanPro, true)
}

// A checkout completed for a user whose customer was not stored (a crash
// between creating and storing it) attaches the customer to the user named
// by the client reference.
func TestCheckoutCompletedAttachesTheCustomer(t *testing.T) {
	e := newEnv(t, core.PriceMap{proPrice: core.PlanPro})
	payload := event("evt_1", core.EventCheckoutCompleted, map[string]any{"object": "checkout.session", "customer": "cus_new", "client_reference_id": e.user.ID})
	if err := e.svc.HandleWebhook(ctx, payload, sign(payload, webhookSecret, time.Now())); err != nil {
		t.Fatal(err)
	}
	u, _ := e.DB.FindUserByID(ctx, e.user.ID)
	if u.StripeCustomerID != "cus_new" {
		t.Fatalf("customer = %q", u.StripeCustomerID)
	}
	e.wantPlan(t, "after checkout", core.PlanPro, true)
}

func TestSync(t *testing.T) {
	e := newEnv(t, core.PriceMap{proPrice: core.PlanPro, "price_business": core.PlanBusiness})
	other := &core.User{ID: core.NewID(), Email: "grace@example.com"}
	if err := e.DB.CreateUser(ctx, other); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.Sync(ctx, "grace@example.com")
	wantCode(t, "sync of a user without customer", err, core.EBillingNoCustomer)
	if _, err := e.svc.Checkout(e.userCtx, core.CheckoutRequest{PlanID: core.PlanPro}); err != nil {
		t.Fatal(err)
	}

	e.peer.Set("active", "price_business")
	changes, err := e.svc.Sync(ctx, "")
	if err != nil || len(changes) != 1 {
		t.Fatalf("Sync = %+v, %v", changes, err)
	}
	c := changes[0]
	if !c.Changed() || c.Email != "ada@example.com" || c.OldPlan != core.PlanStarter || c.Plan != core.PlanBusiness || !c.PlanActive || c.Status != "active" {
		t.Fatalf("change = %+v", c)
	}
	e.wantPlan(t, "after sync", core.PlanBusiness, true)
	changes, err = e.svc.Sync(ctx, e.user.ID)
	if err != nil || len(changes) != 1 || changes[0].Changed() {
		t.Fatalf("second Sync = %+v, %v", changes, err)
	}
}

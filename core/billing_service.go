package core

import (
	"context"
	"log/slog"
	"strings"
)

// BillingService sells plans through a PaymentProvider: checkout, the billing
// portal, webhooks and the operator's sync. The user who acts is the identity
// in ctx. A user's plan is never taken from an event's body: every change
// re-reads the customer's subscriptions from the provider, so events that
// come late, twice or out of order store the provider's state of now.
type BillingService struct {
	Users    UserStore
	Billing  BillingStore
	Provider PaymentProvider
	Prices   PriceMap
	Clock    Clock
	BaseURL  string // e.g. https://sendlater.example, without a trailing slash
	Logger   *slog.Logger
	// Metrics counts the provider's events by type and outcome; nil: not
	// counted.
	Metrics Metrics

	locks keyedMutex
}

var _ Payments = (*BillingService)(nil)

// CheckoutRequest is what the pricing page sends: a plan or a price, and
// optionally where to come back to (on this site only).
type CheckoutRequest struct {
	PlanID     PlanID
	PriceID    string
	SuccessURL string
	CancelURL  string
}

func (s *BillingService) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

func (s *BillingService) baseURL() string { return strings.TrimRight(s.BaseURL, "/") }

// Plans returns the plans of the pricing screen; a paid plan is purchasable
// when its price is configured.
func (s *BillingService) Plans() []Plan {
	plans := Plans()
	for i := range plans {
		for _, plan := range s.Prices {
			if plan == plans[i].ID && plan != PlanStarter {
				plans[i].Purchasable = true
			}
		}
	}
	return plans
}

// Checkout starts a subscription checkout with the purchase rules of SPEC.md
// section 4: a user whose plan is active manages it in the billing portal,
// the Free plan needs no purchase, and Business without a configured price
// is arranged through the contact page.
func (s *BillingService) Checkout(ctx context.Context, in CheckoutRequest) (*CheckoutSession, error) {
	if _, err := authorized(ctx, ScopeAccount); err != nil {
		return nil, err
	}
	plan, price, err := s.resolvePrice(in)
	if err != nil {
		return nil, err
	}
	f := map[string]string{}
	success := s.ownURL(f, "successUrl", in.SuccessURL, "/dashboard?paid=true")
	cancel := s.ownURL(f, "cancelUrl", in.CancelURL, "/pricing")
	if err := ValidationError(f); err != nil {
		return nil, err
	}
	u, err := signedInUser(ctx, s.Users)
	if err != nil {
		return nil, err
	}
	if SubscriptionActive(u.StripeSubscriptionStatus) {
		return nil, Errorf(EAlreadySubscribed, "Your %s plan is active: change it from the billing portal.", planName(s.Prices.PlanFor(u.StripePriceID)))
	}
	switch {
	case plan == PlanStarter:
		return nil, Errorf(ENothingToBuy, "The Free plan needs no purchase.")
	case price == "":
		return nil, Errorf(EContactUs, "The %s plan is arranged with us: please write to us from the contact page.", planName(plan))
	}
	customer, err := s.customer(ctx, u)
	if err != nil {
		return nil, err
	}
	return s.Provider.CreateCheckoutSession(ctx, CheckoutInput{
		CustomerID: customer, PriceID: price, UserID: u.ID, SuccessURL: success, CancelURL: cancel,
	})
}

// resolvePrice finds the plan and its configured price from a plan id or a
// price id. A known plan without a configured price has price "".
func (s *BillingService) resolvePrice(in CheckoutRequest) (PlanID, string, error) {
	if in.PriceID != "" {
		plan, ok := s.Prices[in.PriceID]
		if !ok {
			return "", "", ValidationError(map[string]string{"priceId": "The price is not one of this site's plans"})
		}
		return plan, in.PriceID, nil
	}
	if _, ok := FindPlan(in.PlanID); !ok {
		return "", "", ValidationError(map[string]string{"planId": "The plan must be starter, pro or business"})
	}
	for price, plan := range s.Prices {
		if plan == in.PlanID {
			return plan, price, nil
		}
	}
	return in.PlanID, "", nil
}

// ownURL returns raw when it is on this site, the default path when raw is
// empty, and notes a field error otherwise.
func (s *BillingService) ownURL(f map[string]string, field, raw, defaultPath string) string {
	if raw == "" {
		return s.baseURL() + defaultPath
	}
	if len(raw) > MaxPictureURLLen || !SameOrigin(s.baseURL(), raw) {
		f[field] = "The address must be on this site (" + s.baseURL() + ")"
	}
	return raw
}

func planName(id PlanID) string {
	p, _ := FindPlan(id)
	return p.Name
}

// customer returns the user's provider customer, creating it the first time.
// The idempotency key makes concurrent first checkouts create one customer,
// and the first one stored stays.
func (s *BillingService) customer(ctx context.Context, u *User) (string, error) {
	if u.StripeCustomerID != "" {
		return u.StripeCustomerID, nil
	}
	id, err := s.Provider.CreateCustomer(ctx, CustomerInput{
		UserID: u.ID, Email: u.Email, Name: u.Name, IdempotencyKey: "sendlater-customer-" + u.ID,
	})
	if err != nil {
		return "", err
	}
	u, err = s.Users.UpdateUser(ctx, u.ID, func(u *User) error {
		if u.StripeCustomerID == "" {
			u.StripeCustomerID = id
			u.UpdatedAt = s.Clock.Now()
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return u.StripeCustomerID, nil
}

// Portal returns the URL of the user's billing portal, which sends them back
// to returnURL (on this site; default /settings/general).
func (s *BillingService) Portal(ctx context.Context, returnURL string) (string, error) {
	if _, err := authorized(ctx, ScopeAccount); err != nil {
		return "", err
	}
	f := map[string]string{}
	back := s.ownURL(f, "returnUrl", returnURL, "/settings/general")
	if err := ValidationError(f); err != nil {
		return "", err
	}
	u, err := signedInUser(ctx, s.Users)
	if err != nil {
		return "", err
	}
	if u.StripeCustomerID == "" {
		return "", Errorf(EBillingNoCustomer, "You have no subscription to manage yet: choose a plan first.")
	}
	return s.Provider.CreatePortalSession(ctx, u.StripeCustomerID, back)
}

// HandleWebhook verifies and applies one webhook delivery. An event seen
// before is ignored; one that changes a subscription re-reads the customer's
// subscriptions and stores the current one. Its id is recorded only once it
// is applied, so an error here (answered 5xx) makes the provider retry it.
func (s *BillingService) HandleWebhook(ctx context.Context, payload []byte, signature string) error {
	ev, err := s.Provider.ParseWebhook(payload, signature)
	if err != nil {
		metricsOr(s.Metrics).StripeEvent("unknown", "invalid")
		return err
	}
	outcome, err := s.handleEvent(ctx, ev)
	metricsOr(s.Metrics).StripeEvent(StripeEventType(ev.Type), outcome)
	return err
}

// handleEvent applies ev unless it was seen, and says what came of it:
// applied, duplicate or error.
func (s *BillingService) handleEvent(ctx context.Context, ev *BillingEvent) (string, error) {
	seen, err := s.Billing.BillingEventSeen(ctx, ev.ID)
	if err != nil {
		return "error", err
	}
	if seen {
		return "duplicate", nil
	}
	if ev.changesSubscription() {
		if err := s.applyEvent(ctx, ev); err != nil {
			return "error", err
		}
	}
	if err := s.Billing.RecordBillingEvent(ctx, ev.ID, s.Clock.Now()); err != nil {
		return "error", err
	}
	return "applied", nil
}

// applyEvent finds the event's user and syncs them. A customer that is no
// user of ours (another application on the same account) is logged and
// left alone.
func (s *BillingService) applyEvent(ctx context.Context, ev *BillingEvent) error {
	u, err := s.eventUser(ctx, ev)
	if ErrorCode(err) == EUserNotFound {
		s.log().Warn("billing event for an unknown customer", "event", ev.ID, "type", ev.Type, "customer", ev.CustomerID)
		return nil
	}
	if err != nil {
		return err
	}
	change, err := s.sync(ctx, u)
	if err != nil {
		return err
	}
	if change.Changed() {
		s.log().Info("subscription changed", "event", ev.ID, "type", ev.Type, "uid", u.ID,
			"price", change.PriceID, "status", change.Status)
	}
	return nil
}

// eventUser finds the user of the event's customer, or for a checkout the
// user it was started for, whose customer it then becomes.
func (s *BillingService) eventUser(ctx context.Context, ev *BillingEvent) (*User, error) {
	if ev.CustomerID == "" {
		return nil, Errorf(EUserNotFound, "The event names no customer.")
	}
	u, err := s.Billing.FindUserByStripeCustomer(ctx, ev.CustomerID)
	if ErrorCode(err) != EUserNotFound || ev.ClientReference == "" {
		return u, err
	}
	return s.Users.UpdateUser(ctx, ev.ClientReference, func(u *User) error {
		if u.StripeCustomerID != "" && u.StripeCustomerID != ev.CustomerID {
			return Errorf(EUserNotFound, "The checkout's user has another customer.")
		}
		u.StripeCustomerID = ev.CustomerID
		u.UpdatedAt = s.Clock.Now()
		return nil
	})
}

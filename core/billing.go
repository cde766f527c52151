package core

import (
	"cmp"
	"context"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Billing error codes (docs/billing.md; the web layer maps them to statuses).
const (
	EBillingNoCustomer = "billing/no-customer"
	EAlreadySubscribed = "billing/already-subscribed"
	ENothingToBuy      = "billing/nothing-to-buy"
	EContactUs         = "billing/contact-us"
	EInvalidSignature  = "billing/invalid-signature"
)

// Billing events that change a user's subscription. Each makes the service
// re-read the customer's subscriptions from the payment provider.
const (
	EventCheckoutCompleted    = "checkout.session.completed"
	EventSubscriptionCreated  = "customer.subscription.created"
	EventSubscriptionUpdated  = "customer.subscription.updated"
	EventSubscriptionDeleted  = "customer.subscription.deleted"
	EventInvoicePaymentFailed = "invoice.payment_failed"
)

// BillingEventRetention is how long an applied event id is remembered:
// Stripe retries an event for three days.
const BillingEventRetention = 30 * 24 * time.Hour

// PaymentProvider is the card payment provider (Stripe, in billing/). Every
// call is one request to it; none keeps state here.
type PaymentProvider interface {
	// CreateCustomer creates the provider's customer for a user. The same
	// idempotency key returns the same customer.
	CreateCustomer(ctx context.Context, c CustomerInput) (customerID string, err error)
	CreateCheckoutSession(ctx context.Context, in CheckoutInput) (*CheckoutSession, error)
	// CreatePortalSession returns the URL of the customer's billing portal.
	CreatePortalSession(ctx context.Context, customerID, returnURL string) (string, error)
	// Subscriptions lists every subscription of the customer, whatever its
	// status, as the provider knows them now.
	Subscriptions(ctx context.Context, customerID string) ([]Subscription, error)
	// ParseWebhook verifies a webhook's signature on its raw body and reads
	// the event; a bad or stale signature is EInvalidSignature.
	ParseWebhook(payload []byte, signature string) (*BillingEvent, error)
}

// CustomerInput is what the provider's customer is made from.
type CustomerInput struct {
	UserID         string
	Email          string
	Name           string
	IdempotencyKey string
}

// CheckoutInput asks for a subscription checkout of one price.
type CheckoutInput struct {
	CustomerID string
	PriceID    string
	UserID     string // client reference and metadata, to find the user again
	SuccessURL string
	CancelURL  string
}

// CheckoutSession is where the browser goes to pay.
type CheckoutSession struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

// Subscription is the part of a provider subscription a plan depends on.
type Subscription struct {
	Status   string // Stripe's: active, trialing, past_due, canceled ...
	PriceIDs []string
	Created  time.Time
}

// BillingEvent is a verified webhook event, reduced to what finds the user.
type BillingEvent struct {
	ID              string
	Type            string
	CustomerID      string
	ClientReference string // checkout.session.completed: our user id
}

// changesSubscription reports whether the event type is one the service
// applies.
func (e *BillingEvent) changesSubscription() bool {
	switch e.Type {
	case EventCheckoutCompleted, EventSubscriptionCreated, EventSubscriptionUpdated,
		EventSubscriptionDeleted, EventInvoicePaymentFailed:
		return true
	}
	return false
}

// BillingStore is what billing keeps beyond the user: the index of users by
// customer and the ids of webhook events already applied.
type BillingStore interface {
	// FindUserByStripeCustomer finds the user holding the customer id, or
	// EUserNotFound.
	FindUserByStripeCustomer(ctx context.Context, customerID string) (*User, error)
	// BillingEventSeen reports whether the event id was recorded.
	BillingEventSeen(ctx context.Context, id string) (bool, error)
	// RecordBillingEvent records an applied event id at now, and forgets
	// the ids recorded before now - BillingEventRetention.
	RecordBillingEvent(ctx context.Context, id string, now time.Time) error
}

// subscriptionRank orders statuses: a live plan beats one that is failing
// to pay, which beats one that has ended.
func subscriptionRank(status string) int {
	switch status {
	case "active", "trialing":
		return 3
	case "past_due", "unpaid", "incomplete", "paused":
		return 2
	}
	return 1
}

// CurrentSubscription picks the subscription that decides the user's plan:
// the best ranked status, then the newest. It returns the price (the first
// that maps to a plan, else the first) and the status.
func CurrentSubscription(subs []Subscription, prices PriceMap) (priceID, status string, ok bool) {
	if len(subs) == 0 {
		return "", "", false
	}
	best := slices.MaxFunc(subs, func(a, b Subscription) int {
		return cmp.Or(cmp.Compare(subscriptionRank(a.Status), subscriptionRank(b.Status)), a.Created.Compare(b.Created))
	})
	for _, p := range best.PriceIDs {
		if _, known := prices[p]; known {
			return p, best.Status, true
		}
	}
	if len(best.PriceIDs) > 0 {
		priceID = best.PriceIDs[0]
	}
	return priceID, best.Status, true
}

// SameOrigin reports whether raw is an absolute http(s) URL on the origin
// (scheme, host and port) of base, without credentials.
func SameOrigin(base, raw string) bool {
	b, err := url.Parse(base)
	if err != nil {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil || u.User != nil || u.Opaque != "" {
		return false
	}
	return (u.Scheme == "http" || u.Scheme == "https") &&
		strings.EqualFold(u.Scheme, b.Scheme) && strings.EqualFold(u.Host, b.Host)
}

// PaymentsOff is Payments while none are configured: nothing is on sale, and
// every call says so.
type PaymentsOff struct{}

var _ Payments = PaymentsOff{}

func errPaymentsOff() error {
	return Errorf(EBillingNotConfigured, "Payments are not set up on this server yet.")
}

func (PaymentsOff) Plans() []Plan { return Plans() }

func (PaymentsOff) Checkout(context.Context, CheckoutRequest) (*CheckoutSession, error) {
	return nil, errPaymentsOff()
}

func (PaymentsOff) Portal(context.Context, string) (string, error) { return "", errPaymentsOff() }

func (PaymentsOff) HandleWebhook(context.Context, []byte, string) error { return errPaymentsOff() }

// ErrCustomerTaken is a payment provider's customer another user holds
// (a customer is one user's).
func ErrCustomerTaken() error {
	return Errorf(EConflict, "The Stripe customer belongs to another user.")
}

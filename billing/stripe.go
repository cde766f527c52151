// Package billing is core.PaymentProvider over Stripe (stripe-go): customers,
// checkout and billing portal sessions, subscription reads and webhook
// verification. It holds no state; core.BillingService decides what to do.
package billing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"
)

// WebhookTolerance is how old a webhook's signature may be, and how far
// ahead of our clock.
const WebhookTolerance = 5 * time.Minute

// Config configures Stripe.
type Config struct {
	SecretKey     string // sk_live_... or sk_test_...
	WebhookSecret string // whsec_..., of the webhook endpoint
	// APIBase replaces https://api.stripe.com (tests, gateways).
	APIBase string
	// HTTPClient makes the requests; nil: stripe-go's (80 s timeout).
	HTTPClient *http.Client
}

// Stripe implements core.PaymentProvider.
type Stripe struct {
	client        *stripe.Client
	webhookSecret string
}

var _ core.PaymentProvider = (*Stripe)(nil)

// New returns the Stripe provider of cfg.
func New(cfg Config) *Stripe {
	bc := &stripe.BackendConfig{
		HTTPClient: cfg.HTTPClient,
		// Failures reach the caller as errors; stripe-go's own log would
		// print them again, without the request they belong to.
		LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelNull},
	}
	if cfg.APIBase != "" {
		bc.URL = stripe.String(cfg.APIBase)
	}
	backends := &stripe.Backends{
		API:         stripe.GetBackendWithConfig(stripe.APIBackend, bc),
		Connect:     stripe.GetBackendWithConfig(stripe.ConnectBackend, bc),
		Uploads:     stripe.GetBackendWithConfig(stripe.UploadsBackend, bc),
		MeterEvents: stripe.GetBackendWithConfig(stripe.MeterEventsBackend, bc),
	}
	return &Stripe{
		client:        stripe.NewClient(cfg.SecretKey, stripe.WithBackends(backends)),
		webhookSecret: cfg.WebhookSecret,
	}
}

// metadataUserID is the metadata key under which objects name their user.
const metadataUserID = "sendlater_user_id"

func (s *Stripe) CreateCustomer(ctx context.Context, c core.CustomerInput) (string, error) {
	p := &stripe.CustomerCreateParams{
		Email:    stripe.String(c.Email),
		Metadata: map[string]string{metadataUserID: c.UserID},
	}
	if c.Name != "" {
		p.Name = stripe.String(c.Name)
	}
	if c.IdempotencyKey != "" {
		p.SetIdempotencyKey(c.IdempotencyKey)
	}
	cus, err := s.client.V1Customers.Create(ctx, p)
	if err != nil {
		return "", stripeError("creating a customer", err)
	}
	return cus.ID, nil
}

func (s *Stripe) CreateCheckoutSession(ctx context.Context, in core.CheckoutInput) (*core.CheckoutSession, error) {
	meta := map[string]string{metadataUserID: in.UserID}
	cs, err := s.client.V1CheckoutSessions.Create(ctx, &stripe.CheckoutSessionCreateParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModeSubscription)),
		Customer:          stripe.String(in.CustomerID),
		LineItems:         []*stripe.CheckoutSessionCreateLineItemParams{{Price: stripe.String(in.PriceID), Quantity: stripe.Int64(1)}},
		ClientReferenceID: stripe.String(in.UserID),
		Metadata:          meta,
		SubscriptionData:  &stripe.CheckoutSessionCreateSubscriptionDataParams{Metadata: meta},
		SuccessURL:        stripe.String(in.SuccessURL),
		CancelURL:         stripe.String(in.CancelURL),
	})
	if err != nil {
		return nil, stripeError("creating a checkout session", err)
	}
	return &core.CheckoutSession{ID: cs.ID, URL: cs.URL}, nil
}

func (s *Stripe) CreatePortalSession(ctx context.Context, customerID, returnURL string) (string, error) {
	ps, err := s.client.V1BillingPortalSessions.Create(ctx, &stripe.BillingPortalSessionCreateParams{
		Customer:  stripe.String(customerID),
		ReturnURL: stripe.String(returnURL),
	})
	if err != nil {
		return "", stripeError("creating a billing portal session", err)
	}
	return ps.URL, nil
}

func (s *Stripe) Subscriptions(ctx context.Context, customerID string) ([]core.Subscription, error) {
	p := &stripe.SubscriptionListParams{Customer: stripe.String(customerID), Status: stripe.String("all")}
	p.Limit = stripe.Int64(100)
	var out []core.Subscription
	for sub, err := range s.client.V1Subscriptions.List(ctx, p).All(ctx) {
		if err != nil {
			return nil, stripeError("listing subscriptions", err)
		}
		cs := core.Subscription{Status: string(sub.Status), Created: time.Unix(sub.Created, 0).UTC()}
		if sub.Items != nil {
			for _, it := range sub.Items.Data {
				if it.Price != nil {
					cs.PriceIDs = append(cs.PriceIDs, it.Price.ID)
				}
			}
		}
		out = append(out, cs)
	}
	return out, nil
}

// ParseWebhook verifies the Stripe-Signature header on the raw body with a
// tolerance of five minutes either way: stripe-go refuses a signature made
// longer ago, and ParseWebhook one made further ahead, which a captured
// event with a far-future timestamp would otherwise keep valid for as long
// as its signer chose. The endpoint's API version may differ from the
// one stripe-go pins: only the event's id, type, customer and client
// reference are read, which every version has, and the subscription itself
// is read through the API.
func (s *Stripe) ParseWebhook(payload []byte, signature string) (*core.BillingEvent, error) {
	ev, err := webhook.ConstructEventWithOptions(payload, signature, s.webhookSecret, webhook.ConstructEventOptions{
		Tolerance:                WebhookTolerance,
		IgnoreAPIVersionMismatch: true,
	})
	if err == nil && signedAt(signature).After(time.Now().Add(WebhookTolerance)) {
		err = webhook.ErrTooOld
	}
	switch {
	case errors.Is(err, webhook.ErrNotSigned), errors.Is(err, webhook.ErrInvalidHeader),
		errors.Is(err, webhook.ErrNoValidSignature), errors.Is(err, webhook.ErrTooOld):
		return nil, core.Errorf(core.EInvalidSignature, "The webhook signature is invalid, or not within 5 minutes of now.")
	case err != nil:
		return nil, core.Errorf(core.EInvalid, "The webhook is not a Stripe event.")
	}
	var obj struct {
		Customer          json.RawMessage `json:"customer"`
		ClientReferenceID string          `json:"client_reference_id"`
	}
	if ev.Data != nil && len(ev.Data.Raw) > 0 {
		if err := json.Unmarshal(ev.Data.Raw, &obj); err != nil {
			return nil, core.Errorf(core.EInvalid, "The webhook's object cannot be read.")
		}
	}
	return &core.BillingEvent{
		ID:              ev.ID,
		Type:            string(ev.Type),
		CustomerID:      expandableID(obj.Customer),
		ClientReference: obj.ClientReferenceID,
	}, nil
}

// signedAt is the time a valid Stripe-Signature header names (t=), read as
// stripe-go reads it: the last t of the comma-separated key=value pairs.
func signedAt(header string) time.Time {
	var at time.Time
	for _, pair := range strings.Split(header, ",") {
		if k, v, ok := strings.Cut(pair, "="); ok && k == "t" {
			if sec, err := strconv.ParseInt(v, 10, 64); err == nil {
				at = time.Unix(sec, 0)
			}
		}
	}
	return at
}

// expandableID reads a Stripe reference that is either an id or an expanded
// object with an id.
func expandableID(raw json.RawMessage) string {
	var id string
	if json.Unmarshal(raw, &id) == nil {
		return id
	}
	var obj struct {
		ID string `json:"id"`
	}
	json.Unmarshal(raw, &obj)
	return obj.ID
}

// stripeError makes Stripe's failures core errors: Stripe unreachable or
// failing is service/unavailable (try again), anything else is internal (a
// wrong key or price in the config) with Stripe's detail for the log only.
func stripeError(what string, err error) error {
	detail := fmt.Errorf("stripe: %s: %w", what, err)
	var se *stripe.Error
	var ne net.Error
	unavailable := errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded)
	if errors.As(err, &se) {
		unavailable = se.HTTPStatusCode >= 500 || se.HTTPStatusCode == http.StatusTooManyRequests ||
			se.HTTPStatusCode == 0
	}
	if unavailable {
		return errors.Join(core.Errorf(core.EUnavailable, "Payments are unavailable right now. Please try again in a moment."), detail)
	}
	return detail
}

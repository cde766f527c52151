package main

import (
	"fmt"
	"strings"

	"github.com/sendlater/sendlater/billing"
	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/oauth"
)

// billingService is payments through Stripe when stripe.secret_key is set,
// else nil: payments are off.
func (a *app) billingService(st store, clock core.Clock, prices core.PriceMap) *core.BillingService {
	s := a.cfg.Stripe
	if s.SecretKey == "" {
		return nil
	}
	return &core.BillingService{
		Users: st, Billing: st, Prices: prices, Clock: clock, BaseURL: a.cfg.BaseURL, Logger: a.log,
		Provider: billing.New(billing.Config{SecretKey: s.SecretKey, WebhookSecret: s.WebhookSecret, APIBase: s.APIBase}),
	}
}

// socialFlow is the flow of the social sign-in providers configured (none:
// social sign-in is off), its state signed with a key derived from key.
func (a *app) socialFlow(key []byte, clock core.Clock) (*oauth.Flow, error) {
	var providers []*oauth.Provider
	for _, p := range a.cfg.Auth.providers() {
		if p.cfg.ClientID == "" {
			continue
		}
		op, err := oauth.NewProvider(p.id, p.cfg.oauthConfig(), a.cfg.BaseURL+"/api/auth/oauth/"+p.id+"/callback", nil)
		if err != nil {
			return nil, fmt.Errorf("config: auth.providers.%s: %w", p.id, err)
		}
		providers = append(providers, op)
	}
	f, err := oauth.NewFlow(core.DeriveKey(key, core.PurposeOAuthState), clock, providers...)
	if err != nil {
		return nil, err
	}
	f.Logger = a.log
	return f, nil
}

// logIntegrations says at start-up whether payments and social sign-in are
// on, and how to switch them on when they are not.
func (a *app) logIntegrations(s *services) {
	if s.Billing == nil {
		a.log.Info("payments off: set stripe.secret_key, stripe.webhook_secret and stripe.prices.pro (docs/billing.md)")
	} else {
		a.log.Info("payments on (Stripe)", "pro", orNone(a.cfg.Stripe.Prices.Pro), "business", orNone(a.cfg.Stripe.Prices.Business),
			"webhook", a.cfg.BaseURL+"/api/stripe-webhook")
	}
	if on := s.SocialFlow.Providers(); len(on) > 0 {
		a.log.Info("social sign-in on", "providers", strings.Join(on, ","))
	} else {
		a.log.Info("social sign-in off: set auth.providers.<google|facebook|twitter|github>.client_id and client_secret (docs/identity.md)")
	}
	if s.PasskeyProblem != "" {
		a.log.Info(s.PasskeyProblem)
	}
}

func orNone(s string) string {
	if s == "" {
		return "none (contact us)"
	}
	return s
}

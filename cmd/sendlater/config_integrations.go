package main

import (
	"fmt"
	"maps"
	"net/url"
	"os"
	"strings"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/oauth"
)

// StripeConfig is payments (docs/billing.md): off until secret_key is set.
type StripeConfig struct {
	SecretKey         string `mapstructure:"secret_key" secret:"true"`
	SecretKeyFile     string `mapstructure:"secret_key_file"`
	WebhookSecret     string `mapstructure:"webhook_secret" secret:"true"`
	WebhookSecretFile string `mapstructure:"webhook_secret_file"`
	// PublishableKey is optional: no Stripe script runs on our pages (the
	// browser goes to Checkout's address), so it is only checked to be of
	// the secret key's mode, test or live.
	PublishableKey string `mapstructure:"publishable_key"`
	// APIBase replaces https://api.stripe.com (tests, gateways).
	APIBase string `mapstructure:"api_base"`
	Prices  struct {
		Pro      string `mapstructure:"pro"`
		Business string `mapstructure:"business"`
	} `mapstructure:"prices"`
}

// ProviderConfig is one social sign-in provider (docs/identity.md): on when
// client_id and client_secret are set. The endpoints default to the
// provider's own; overrides serve tests and self-hosted gateways.
type ProviderConfig struct {
	ClientID         string `mapstructure:"client_id"`
	ClientSecret     string `mapstructure:"client_secret" secret:"true"`
	ClientSecretFile string `mapstructure:"client_secret_file"`
	AuthURL          string `mapstructure:"auth_url"`
	TokenURL         string `mapstructure:"token_url"`
	APIURL           string `mapstructure:"api_url"`
	Issuer           string `mapstructure:"issuer"`
	JWKSURL          string `mapstructure:"jwks_url"`
}

// AuthConfig is the social sign-in providers, by core's provider id.
type AuthConfig struct {
	Providers struct {
		Google   ProviderConfig `mapstructure:"google"`
		Facebook ProviderConfig `mapstructure:"facebook"`
		Twitter  ProviderConfig `mapstructure:"twitter"`
		GitHub   ProviderConfig `mapstructure:"github"`
	} `mapstructure:"providers"`
}

// providerKeys are the keys of each auth.providers.<id>.
var providerKeys = []string{"client_id", "client_secret", "client_secret_file", "auth_url", "token_url", "api_url", "issuer", "jwks_url"}

// integrationDefaults are the defaults of the stripe and auth keys, all
// empty: payments and social sign-in are off until configured.
func integrationDefaults() map[string]any {
	d := map[string]any{}
	for _, k := range []string{"secret_key", "secret_key_file", "webhook_secret", "webhook_secret_file", "publishable_key", "api_base", "prices.pro", "prices.business"} {
		d["stripe."+k] = ""
	}
	maps.Copy(d, metricsDefaults())
	maps.Copy(d, attachmentsDefaults())
	maps.Copy(d, tracingDefaults())
	for _, id := range core.SocialProviders {
		for _, k := range providerKeys {
			d["auth.providers."+id+"."+k] = ""
		}
	}
	return d
}

// providers lists the configuration of each provider by id, in
// core.SocialProviders order.
func (c *AuthConfig) providers() []struct {
	id  string
	cfg *ProviderConfig
} {
	p := &c.Providers
	return []struct {
		id  string
		cfg *ProviderConfig
	}{{core.ProviderGoogle, &p.Google}, {core.ProviderFacebook, &p.Facebook}, {core.ProviderTwitter, &p.Twitter}, {core.ProviderGitHub, &p.GitHub}}
}

// readIntegrationSecrets reads the *_file secrets of stripe and auth.
func (c *Config) readIntegrationSecrets() error {
	if err := readSecretFile(&c.Stripe.SecretKey, c.Stripe.SecretKeyFile, "stripe.secret_key_file"); err != nil {
		return err
	}
	if err := readSecretFile(&c.Stripe.WebhookSecret, c.Stripe.WebhookSecretFile, "stripe.webhook_secret_file"); err != nil {
		return err
	}
	if err := c.readMetricsSecrets(); err != nil {
		return err
	}
	if err := c.readAttachmentsSecrets(); err != nil {
		return err
	}
	for _, p := range c.Auth.providers() {
		if err := readSecretFile(&p.cfg.ClientSecret, p.cfg.ClientSecretFile, "auth.providers."+p.id+".client_secret_file"); err != nil {
			return err
		}
	}
	return nil
}

// readSecretFile sets *dst from file when file is given.
func readSecretFile(dst *string, file, key string) error {
	if file == "" {
		return nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("config: %s: %w", key, err)
	}
	*dst = strings.TrimSpace(string(b))
	return nil
}

// validateIntegrations checks the stripe and auth keys: each feature is
// off, or configured completely and plausibly.
func (c *Config) validateIntegrations(bad func(key, rule string, got any) error) error {
	s := &c.Stripe
	for _, p := range []struct{ key, val string }{{"stripe.prices.pro", s.Prices.Pro}, {"stripe.prices.business", s.Prices.Business}} {
		if p.val != "" && !strings.HasPrefix(p.val, "price_") {
			return bad(p.key, "must be a Stripe price id, price_...", p.val)
		}
	}
	if s.Prices.Pro != "" && s.Prices.Pro == s.Prices.Business {
		return bad("stripe.prices.business", "must differ from stripe.prices.pro", s.Prices.Business)
	}
	if s.APIBase != "" && !httpURL(s.APIBase) {
		return bad("stripe.api_base", "must be an absolute http(s) URL", s.APIBase)
	}
	if s.SecretKey == "" {
		if s.WebhookSecret != "" || s.PublishableKey != "" {
			return fmt.Errorf("config: stripe.webhook_secret and stripe.publishable_key need stripe.secret_key (payments are off without it)")
		}
	} else if err := c.validateStripe(bad); err != nil {
		return err
	}
	if err := c.validateMetrics(bad); err != nil {
		return err
	}
	if err := c.validateTracing(bad); err != nil {
		return err
	}
	for _, p := range c.Auth.providers() {
		key := "auth.providers." + p.id + "."
		if (p.cfg.ClientID == "") != (p.cfg.ClientSecret == "") {
			return fmt.Errorf("config: %sclient_id and %sclient_secret must be set together (%s sign-in is off without both)", key, key, core.ProviderName(p.id))
		}
		for _, e := range []struct{ name, val string }{
			{"auth_url", p.cfg.AuthURL}, {"token_url", p.cfg.TokenURL}, {"api_url", p.cfg.APIURL}, {"issuer", p.cfg.Issuer}, {"jwks_url", p.cfg.JWKSURL},
		} {
			if e.val != "" && !httpURL(e.val) {
				return bad(key+e.name, "must be an absolute http(s) URL", e.val)
			}
		}
	}
	return nil
}

// validateStripe checks a configured Stripe: its secrets' shapes, one mode
// for both keys, and something on sale.
func (c *Config) validateStripe(bad func(key, rule string, got any) error) error {
	s := &c.Stripe
	mode, ok := stripeKeyMode(s.SecretKey, "sk_", "rk_")
	if !ok {
		return fmt.Errorf("config: stripe.secret_key must be a secret or restricted key, sk_test_..., sk_live_..., rk_... and rk_... keys")
	}
	if !strings.HasPrefix(s.WebhookSecret, "whsec_") {
		return fmt.Errorf("config: stripe.webhook_secret must be the webhook endpoint's signing secret, whsec_... (needed with stripe.secret_key)")
	}
	if s.PublishableKey != "" {
		if pm, ok := stripeKeyMode(s.PublishableKey, "pk_"); !ok || pm != mode {
			return bad("stripe.publishable_key", "must be a publishable key, pk_"+mode+"_..., of the secret key's mode", s.PublishableKey)
		}
	}
	if s.Prices.Pro == "" && s.Prices.Business == "" {
		return fmt.Errorf("config: stripe.prices.pro or stripe.prices.business must be set with stripe.secret_key (else nothing is on sale)")
	}
	return nil
}

// stripeKeyMode returns test or live of a key with one of the prefixes.
func stripeKeyMode(key string, prefixes ...string) (string, bool) {
	for _, p := range prefixes {
		if rest, ok := strings.CutPrefix(key, p); ok {
			mode, _, ok := strings.Cut(rest, "_")
			return mode, ok && (mode == "test" || mode == "live")
		}
	}
	return "", false
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// oauthConfig is the oauth package's view of a provider's config.
func (p *ProviderConfig) oauthConfig() oauth.Config {
	return oauth.Config{
		ClientID: p.ClientID, ClientSecret: p.ClientSecret, AuthURL: p.AuthURL, TokenURL: p.TokenURL,
		APIURL: p.APIURL, Issuer: p.Issuer, JWKSURL: p.JWKSURL,
	}
}

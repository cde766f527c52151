// Package oauth is social sign-in with Google (OpenID Connect), Facebook, X
// and GitHub (OAuth 2.0, every one with PKCE) through golang.org/x/oauth2:
// the providers, and the flow that starts a sign-in in the browser and
// checks its callback. What a profile means for accounts is core's
// (core.SocialAuth).
package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/sendlater/sendlater/core"
	"golang.org/x/oauth2"
)

// Config is one provider's registration and, for tests and self-hosted
// gateways, its endpoints; empty endpoints are the provider's public ones.
type Config struct {
	ClientID     string
	ClientSecret string
	AuthURL      string
	TokenURL     string
	APIURL       string // profile API base (Facebook, X, GitHub)
	Issuer       string // ID token issuer (Google)
	JWKSURL      string // ID token keys (Google)
}

// defaults are the public endpoints and scopes of each provider.
var defaults = map[string]struct {
	cfg    Config
	scopes []string
}{
	core.ProviderGoogle: {Config{
		AuthURL: "https://accounts.google.com/o/oauth2/v2/auth", TokenURL: "https://oauth2.googleapis.com/token",
		Issuer: "https://accounts.google.com", JWKSURL: "https://www.googleapis.com/oauth2/v3/certs",
	}, []string{oidc.ScopeOpenID, "email", "profile"}},
	core.ProviderFacebook: {Config{
		AuthURL: "https://www.facebook.com/v23.0/dialog/oauth", TokenURL: "https://graph.facebook.com/v23.0/oauth/access_token",
		APIURL: "https://graph.facebook.com/v23.0",
	}, []string{"email", "public_profile"}},
	core.ProviderTwitter: {Config{
		AuthURL: "https://x.com/i/oauth2/authorize", TokenURL: "https://api.x.com/2/oauth2/token",
		APIURL: "https://api.x.com/2",
	}, []string{"users.read", "tweet.read"}},
	core.ProviderGitHub: {Config{
		AuthURL: "https://github.com/login/oauth/authorize", TokenURL: "https://github.com/login/oauth/access_token",
		APIURL: "https://api.github.com",
	}, []string{"read:user", "user:email"}},
}

// Provider is one configured social sign-in provider.
type Provider struct {
	ID       string
	oauth    *oauth2.Config
	cfg      Config
	client   *http.Client
	verifier *oidc.IDTokenVerifier // Google
}

// maxProfileBody bounds what is read from a profile endpoint.
const maxProfileBody = 1 << 20

// NewProvider configures provider id (core.ProviderGoogle ...) to come back
// to redirectURL. client makes the requests to the provider (nil: one with a
// 15 s timeout).
func NewProvider(id string, cfg Config, redirectURL string, client *http.Client) (*Provider, error) {
	d, ok := defaults[id]
	if !ok {
		return nil, fmt.Errorf("oauth: unknown provider %q", id)
	}
	if cfg.ClientID == "" || cfg.ClientSecret == "" {
		return nil, fmt.Errorf("oauth: %s needs a client id and a client secret", id)
	}
	for _, f := range []struct {
		v   *string
		def string
	}{
		{&cfg.AuthURL, d.cfg.AuthURL}, {&cfg.TokenURL, d.cfg.TokenURL}, {&cfg.APIURL, d.cfg.APIURL},
		{&cfg.Issuer, d.cfg.Issuer}, {&cfg.JWKSURL, d.cfg.JWKSURL},
	} {
		if *f.v == "" {
			*f.v = f.def
		}
	}
	if client == nil {
		client = &http.Client{Timeout: 15 * time.Second}
	}
	p := &Provider{
		ID:     id,
		cfg:    cfg,
		client: client,
		oauth: &oauth2.Config{
			ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, RedirectURL: redirectURL, Scopes: d.scopes,
			Endpoint: oauth2.Endpoint{AuthURL: cfg.AuthURL, TokenURL: cfg.TokenURL},
		},
	}
	if id == core.ProviderGoogle {
		keys := oidc.NewRemoteKeySet(oidc.ClientContext(context.Background(), client), cfg.JWKSURL)
		p.verifier = oidc.NewVerifier(cfg.Issuer, keys, &oidc.Config{ClientID: cfg.ClientID})
	}
	return p, nil
}

// Name is how the provider is called on screen.
func (p *Provider) Name() string { return core.ProviderName(p.ID) }

// authCodeURL is where the browser goes to sign in.
func (p *Provider) authCodeURL(state, nonce, verifier string) string {
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}
	if p.verifier != nil {
		opts = append(opts, oidc.Nonce(nonce))
	}
	return p.oauth.AuthCodeURL(state, opts...)
}

// exchange trades the code for a token and reads the profile; for Google the
// ID token's signature, issuer, audience, expiry and nonce are checked.
func (p *Provider) exchange(ctx context.Context, code, verifier, nonce string) (core.ProviderProfile, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, p.client)
	tok, err := p.oauth.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return core.ProviderProfile{}, fmt.Errorf("exchanging the code: %w", err)
	}
	prof := core.ProviderProfile{Provider: p.ID}
	switch p.ID {
	case core.ProviderGoogle:
		err = p.readIDToken(ctx, tok, nonce, &prof)
	case core.ProviderFacebook:
		err = p.readFacebook(ctx, tok, &prof)
	case core.ProviderTwitter:
		err = p.readX(ctx, tok, &prof)
	case core.ProviderGitHub:
		err = p.readGitHub(ctx, tok, &prof)
	}
	return prof, err
}

func (p *Provider) readIDToken(ctx context.Context, tok *oauth2.Token, nonce string, prof *core.ProviderProfile) error {
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return fmt.Errorf("no ID token in the token response")
	}
	idt, err := p.verifier.Verify(oidc.ClientContext(ctx, p.client), raw)
	if err != nil {
		return fmt.Errorf("verifying the ID token: %w", err)
	}
	if idt.Nonce != nonce {
		return errNonce
	}
	var c struct {
		Email         string `json:"email"`
		EmailVerified bool   `json:"email_verified"`
		Name          string `json:"name"`
		Picture       string `json:"picture"`
	}
	if err := idt.Claims(&c); err != nil {
		return err
	}
	prof.Subject, prof.Email, prof.EmailVerified, prof.Name, prof.Picture = idt.Subject, c.Email, c.EmailVerified, c.Name, c.Picture
	return nil
}

// readFacebook reads /me. Facebook does not say whether it verified the
// address, so it never links to an existing account by itself.
func (p *Provider) readFacebook(ctx context.Context, tok *oauth2.Token, prof *core.ProviderProfile) error {
	var me struct {
		ID, Name, Email string
		Picture         struct {
			Data struct{ URL string }
		}
	}
	if err := p.get(ctx, tok, "/me?fields=id,name,email,picture.type(large)", &me); err != nil {
		return err
	}
	prof.Subject, prof.Email, prof.Name, prof.Picture = me.ID, me.Email, me.Name, me.Picture.Data.URL
	return nil
}

// readX reads /users/me; X gives no email.
func (p *Provider) readX(ctx context.Context, tok *oauth2.Token, prof *core.ProviderProfile) error {
	var me struct {
		Data struct {
			ID              string `json:"id"`
			Name            string `json:"name"`
			Username        string `json:"username"`
			ProfileImageURL string `json:"profile_image_url"`
		} `json:"data"`
	}
	if err := p.get(ctx, tok, "/users/me?user.fields=profile_image_url", &me); err != nil {
		return err
	}
	prof.Subject, prof.Name, prof.Picture = me.Data.ID, me.Data.Name, me.Data.ProfileImageURL
	if prof.Name == "" {
		prof.Name = me.Data.Username
	}
	return nil
}

// readGitHub reads /user and /user/emails: the primary address when GitHub
// verified it, else the first verified one, else the primary, unverified.
func (p *Provider) readGitHub(ctx context.Context, tok *oauth2.Token, prof *core.ProviderProfile) error {
	var user struct {
		ID        int64  `json:"id"`
		Login     string `json:"login"`
		Name      string `json:"name"`
		AvatarURL string `json:"avatar_url"`
	}
	if err := p.get(ctx, tok, "/user", &user); err != nil {
		return err
	}
	var emails []struct {
		Email    string `json:"email"`
		Primary  bool   `json:"primary"`
		Verified bool   `json:"verified"`
	}
	if err := p.get(ctx, tok, "/user/emails", &emails); err != nil {
		return err
	}
	best := -1
	for i, e := range emails {
		if best < 0 || e.Verified && !emails[best].Verified || e.Verified == emails[best].Verified && e.Primary {
			best = i
		}
	}
	if best >= 0 {
		prof.Email, prof.EmailVerified = emails[best].Email, emails[best].Verified
	}
	if user.ID != 0 {
		prof.Subject = strconv.FormatInt(user.ID, 10)
	}
	prof.Name, prof.Picture = user.Name, user.AvatarURL
	if prof.Name == "" {
		prof.Name = user.Login
	}
	return nil
}

// get reads JSON from the provider's API with the access token.
func (p *Provider) get(ctx context.Context, tok *oauth2.Token, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.cfg.APIURL+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	tok.SetAuthHeader(req)
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProfileBody))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}

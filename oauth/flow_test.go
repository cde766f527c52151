package oauth_test

import (
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/oauth"
	"github.com/sendlater/sendlater/oauth/oauthtest"
)

// The flow's sign-ins run through the real server in web's tests; here is
// what the browser keeps besides a state: a held profile opens only for its
// provider, unchanged and fresh, under the flow's key.
func TestHeldProfile(t *testing.T) {
	peer := oauthtest.Start(t)
	clock := core.NewManualClock(time.Now())
	key := core.DeriveKey([]byte("k3y-0f-32-bytes-for-aes-256-gcm!"), core.PurposeOAuthState)
	f, err := oauth.NewFlow(key, clock, peer.Providers(t, "https://sendlater.test")...)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Providers(); len(got) != 4 || got[0] != core.ProviderGoogle || got[3] != core.ProviderGitHub {
		t.Fatalf("providers %v", got)
	}
	p := core.ProviderProfile{Provider: core.ProviderTwitter, Subject: "2001", Name: "Ada"}
	held, err := f.Hold(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := f.Held(core.ProviderTwitter, held); err != nil || got != p {
		t.Fatalf("Held = %+v, %v", got, err)
	}
	if _, err := f.Held(core.ProviderGitHub, held); core.ErrorCode(err) != core.EInvalidState {
		t.Fatalf("another provider's: %v", err)
	}
	other, _ := oauth.NewFlow(core.DeriveKey([]byte("another key of thirty-two bytes!"), core.PurposeOAuthState), clock)
	if _, err := other.Held(core.ProviderTwitter, held); core.ErrorCode(err) != core.EInvalidState {
		t.Fatalf("under another key: %v", err)
	}
	if _, _, err := other.Start(core.ProviderGoogle, core.SocialIntent{}); core.ErrorCode(err) != core.EProviderNotConfigured {
		t.Fatalf("a provider not configured: %v", err)
	}
	clock.Add(core.OAuthStateTTL)
	if _, err := f.Held(core.ProviderTwitter, held); core.ErrorCode(err) != core.EInvalidState {
		t.Fatalf("expired: %v", err)
	}
	if _, err := oauth.NewFlow([]byte("short"), clock); err == nil {
		t.Fatal("a short key was taken")
	}
}

package web_test

import (
	"net/http"
	"testing"

	"github.com/sendlater/sendlater/core"
)

// Until payments and social sign-in are configured, their endpoints answer
// clearly instead of with a 404.
func TestSwitchedOffFeaturesSaySo(t *testing.T) {
	a := mustIdentityAPI(t)
	who := a.author("ann@example.com")

	resp, env := a.call(nil, "GET", "/api/auth/providers", "", nil)
	if resp.StatusCode != 200 || string(env.Data) != "[]" {
		t.Fatalf("providers: %d %s", resp.StatusCode, env.Data)
	}
	resp, env = a.call(nil, "GET", "/api/auth/oauth/github/start", "", nil)
	if resp.StatusCode != http.StatusNotFound || env.Code != core.EProviderNotConfigured {
		t.Fatalf("oauth start: %d %+v", resp.StatusCode, env)
	}
	for _, path := range []string{"/api/stripe-create-checkout-session", "/api/stripe-create-billing-session"} {
		resp, env = a.call(nil, "POST", path, "", map[string]string{})
		if resp.StatusCode != http.StatusUnauthorized || env.Code != core.EInvalidToken {
			t.Errorf("%s without a token: %d %+v", path, resp.StatusCode, env)
		}
		resp, env = a.call(nil, "POST", path, who.token, map[string]string{})
		if resp.StatusCode != http.StatusNotImplemented || env.Code != core.EBillingNotConfigured || env.Message == "" {
			t.Errorf("%s: %d %+v", path, resp.StatusCode, env)
		}
	}
}

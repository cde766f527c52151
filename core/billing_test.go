package core_test

import (
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// A customer may hold several subscriptions (an old canceled one, a new one
// being paid): the plan follows the live one, whatever the order Stripe
// lists them in.
func TestCurrentSubscription(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	prices := core.PriceMap{"price_pro": core.PlanPro, "price_business": core.PlanBusiness}
	for _, tc := range []struct {
		name          string
		subs          []core.Subscription
		price, status string
		ok            bool
	}{
		{"none", nil, "", "", false},
		{"one", []core.Subscription{{Status: "active", PriceIDs: []string{"price_pro"}, Created: day(1)}}, "price_pro", "active", true},
		{"active beats a newer canceled", []core.Subscription{
			{Status: "active", PriceIDs: []string{"price_pro"}, Created: day(1)},
			{Status: "canceled", PriceIDs: []string{"price_business"}, Created: day(5)},
		}, "price_pro", "active", true},
		{"past_due beats canceled", []core.Subscription{
			{Status: "canceled", PriceIDs: []string{"price_pro"}, Created: day(9)},
			{Status: "past_due", PriceIDs: []string{"price_business"}, Created: day(2)},
		}, "price_business", "past_due", true},
		{"the newest of two live ones", []core.Subscription{
			{Status: "trialing", PriceIDs: []string{"price_business"}, Created: day(3)},
			{Status: "active", PriceIDs: []string{"price_pro"}, Created: day(2)},
		}, "price_business", "trialing", true},
		{"the newest of ended ones", []core.Subscription{
			{Status: "canceled", PriceIDs: []string{"price_pro"}, Created: day(1)},
			{Status: "incomplete_expired", PriceIDs: []string{"price_business"}, Created: day(4)},
		}, "price_business", "incomplete_expired", true},
		{"a known price among the items", []core.Subscription{
			{Status: "active", PriceIDs: []string{"price_addon", "price_pro"}, Created: day(1)},
		}, "price_pro", "active", true},
		{"an unknown price is kept", []core.Subscription{
			{Status: "active", PriceIDs: []string{"price_legacy"}, Created: day(1)},
		}, "price_legacy", "active", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			price, status, ok := core.CurrentSubscription(tc.subs, prices)
			if price != tc.price || status != tc.status || ok != tc.ok {
				t.Fatalf("CurrentSubscription = %q %q %v, want %q %q %v", price, status, ok, tc.price, tc.status, tc.ok)
			}
		})
	}
}

func TestSameOrigin(t *testing.T) {
	const base = "https://sendlater.example"
	for raw, want := range map[string]bool{
		"https://sendlater.example/dashboard?paid=true": true,
		"https://SendLater.example/pricing":             true,
		"https://sendlater.example":                     true,
		"http://sendlater.example/dashboard":            false,
		"https://sendlater.example:8443/":               false,
		"https://evil.example/":                         false,
		"https://sendlater.example.evil.example/":       false,
		"//sendlater.example/":                          false,
		"/dashboard":                                    false,
		"https://a@sendlater.example/":                  false,
		"javascript:alert(1)":                           false,
	} {
		if got := core.SameOrigin(base, raw); got != want {
			t.Errorf("SameOrigin(%q) = %v, want %v", raw, got, want)
		}
	}
}

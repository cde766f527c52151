package core_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
)

func TestPlans(t *testing.T) {
	var got []string
	for _, p := range core.Plans() {
		got = append(got, string(p.ID)+":"+p.Name+":"+p.Price)
	}
	if strings.Join(got, " ") != "starter:Free:0 pro:Pro:10 business:Business:-" {
		t.Fatal(got)
	}
}

// The Pro card says how many recipients a message may have (issue 28: it
// did not, and a buyer could not tell before paying).
func TestProPerksNameTheRecipientLimit(t *testing.T) {
	pro, _ := core.FindPlan(core.PlanPro)
	want := fmt.Sprintf("Up to %d recipients per message", core.MaxRecipients)
	if !slices.Contains(pro.Perks, want) || want != "Up to 10 recipients per message" {
		t.Fatalf("Pro perks %q lack %q", pro.Perks, want)
	}
}

// Sealing is a Pro and Business perk (issue 32): the Pro card names it, and
// Business's "All Pro perks" takes it along, as the plan check does.
func TestPricingCardsNameSealing(t *testing.T) {
	pro, _ := core.FindPlan(core.PlanPro)
	biz, _ := core.FindPlan(core.PlanBusiness)
	free, _ := core.FindPlan(core.PlanStarter)
	if !slices.Contains(pro.Perks, "Sealed messages only your recipients can open") || !slices.Contains(biz.Perks, "All Pro perks") ||
		slices.ContainsFunc(free.Perks, func(p string) bool { return strings.Contains(strings.ToLower(p), "seal") }) {
		t.Fatalf("perks: Free %q, Pro %q, Business %q", free.Perks, pro.Perks, biz.Perks)
	}
}

func TestMayAddMessage(t *testing.T) {
	tests := []struct {
		plan        core.PlanID
		active      bool
		hasMessages bool
		want        bool
	}{
		{core.PlanStarter, false, false, true},
		{core.PlanStarter, false, true, false},
		{core.PlanStarter, true, true, false},
		{core.PlanPro, true, true, true},
		{core.PlanPro, false, true, false},
		{core.PlanBusiness, true, true, true},
		{core.PlanBusiness, false, false, true},
	}
	for _, tt := range tests {
		if got := core.MayAddMessage(tt.plan, tt.active, tt.hasMessages); got != tt.want {
			t.Errorf("MayAddMessage(%s, %v, %v) = %v", tt.plan, tt.active, tt.hasMessages, got)
		}
	}
}

func TestSessionUserDerivesThePlan(t *testing.T) {
	prices := core.PriceMap{"price_pro": core.PlanPro}
	u := &core.User{ID: "u1", Email: "a@example.com", StripePriceID: "price_pro", StripeSubscriptionStatus: "trialing"}
	s := u.Session(prices, false)
	if s.PlanID != core.PlanPro || !s.PlanIsActive || s.Providers == nil {
		t.Fatalf("%+v", s)
	}
	u.StripeSubscriptionStatus = "past_due"
	if u.Session(prices, false).PlanIsActive {
		t.Fatal("past_due is not active")
	}
	u.StripePriceID = prices.PriceFor(core.PlanBusiness)
	if u.Session(prices, false).PlanID != core.PlanBusiness {
		t.Fatal("operator grants map to their plan")
	}
	u.StripePriceID = "price_unknown"
	if u.Session(prices, false).PlanID != core.PlanStarter {
		t.Fatal("unknown prices are starter")
	}
}

// The session user carries the plan rule of SPEC.md section 6, so that no
// client copies it.
func TestSessionUserCarriesTheMessageLimit(t *testing.T) {
	u := &core.User{ID: "u1", Email: "a@example.com"}
	for _, tt := range []struct {
		price, status string
		hasMessages   bool
		limit         int
		canAdd        bool
	}{
		{"", "", false, 1, true},
		{"", "", true, 1, false},
		{"plan:pro", "active", true, 0, true},
		{"plan:pro", "past_due", true, 1, false},
		{"plan:business", "trialing", true, 0, true},
	} {
		u.StripePriceID, u.StripeSubscriptionStatus = tt.price, tt.status
		s := u.Session(core.PriceMap{}, tt.hasMessages)
		if s.MessageLimit != tt.limit || s.CanAddMessage != tt.canAdd {
			t.Errorf("%s %s, has messages %v: limit %d, can add %v; want %d, %v",
				tt.price, tt.status, tt.hasMessages, s.MessageLimit, s.CanAddMessage, tt.limit, tt.canAdd)
		}
	}
}

func TestRandomString(t *testing.T) {
	seen := map[byte]bool{}
	for range 200 {
		for _, c := range []byte(core.RandomString(10)) {
			seen[c] = true
		}
	}
	if len(seen) < 55 {
		t.Fatalf("only %d distinct characters drawn", len(seen))
	}
}

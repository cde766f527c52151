package core

import (
	"fmt"
	"strings"
)

// PlanID names a plan.
type PlanID string

const (
	PlanStarter  PlanID = "starter"
	PlanPro      PlanID = "pro"
	PlanBusiness PlanID = "business"
)

// Plan is one of the fixed plans of the pricing screen.
type Plan struct {
	ID    PlanID
	Name  string
	Price string // EUR per month, "-" when there is no fixed price
	Perks []string
	// Purchasable: a card checkout sells it here (payments are configured
	// and so is its price); otherwise a paid plan is arranged through the
	// contact page.
	Purchasable bool
}

// The perks of SPEC.md section 9, as the pricing cards list them: each paid
// plan names the one below it instead of repeating its perks (Pro's
// "Unlimited messages" beside Free's "1 message" would read as a
// contradiction). Pro's recipients are MaxRecipients, said on the card so a
// buyer knows before paying (issue 28); sealing (requireSealing, issue 32)
// is Pro's, so Business names it by "All Pro perks".
var (
	freePerks     = []string{"1 message", "1 recipient", "Edit or postpone your message"}
	proPerks      = []string{"All Free perks", "Unlimited messages", fmt.Sprintf("Up to %d recipients per message", MaxRecipients), SealedPerk}
	businessPerks = []string{"All Pro perks", "Custom-made features", "Trigger an HTTP endpoint"}
)

// SealedPerk is the pricing cards' line of sealed messages (docs/sealed.md).
const SealedPerk = "Sealed messages only your recipients can open"

// Plans returns the plans in the order of the pricing screen, none of them
// purchasable: Payments.Plans says which checkout sells.
func Plans() []Plan {
	return []Plan{
		{ID: PlanStarter, Name: "Free", Price: "0", Perks: freePerks},
		{ID: PlanPro, Name: "Pro", Price: "10", Perks: proPerks},
		{ID: PlanBusiness, Name: "Business", Price: "-", Perks: businessPerks},
	}
}

// FindPlan returns the plan with the given id.
func FindPlan(id PlanID) (Plan, bool) {
	for _, p := range Plans() {
		if p.ID == id {
			return p, true
		}
	}
	return Plan{}, false
}

// ManualPricePrefix marks a price id granted by an operator without Stripe
// (`sendlater users set-plan`): "plan:pro" maps to the pro plan.
const ManualPricePrefix = "plan:"

// PriceMap maps Stripe price ids to plans (from config).
type PriceMap map[string]PlanID

// PlanFor returns the plan a user with the given stripePriceId is on: the
// configured price map, then operator grants, else starter.
func (pm PriceMap) PlanFor(priceID string) PlanID {
	if id, ok := pm[priceID]; ok {
		return id
	}
	if id, ok := strings.CutPrefix(priceID, ManualPricePrefix); ok {
		if _, known := FindPlan(PlanID(id)); known {
			return PlanID(id)
		}
	}
	return PlanStarter
}

// PriceFor returns the configured Stripe price id of a plan, or the operator
// grant id when none is configured.
func (pm PriceMap) PriceFor(plan PlanID) string {
	for price, id := range pm {
		if id == plan {
			return price
		}
	}
	return ManualPricePrefix + string(plan)
}

// PlanOf returns the plan u is on and whether it is active.
func (pm PriceMap) PlanOf(u *User) (plan PlanID, active bool) {
	return pm.PlanFor(u.StripePriceID), SubscriptionActive(u.StripeSubscriptionStatus)
}

// requireBusiness is the one check of what only an active Business plan
// includes: webhooks.
func (pm PriceMap) requireBusiness(u *User) error {
	if plan, active := pm.PlanOf(u); plan != PlanBusiness || !active {
		return Errorf(EFeatureNotIncluded, "Webhooks are part of the Business plan.")
	}
	return nil
}

// requireSealing is the one check of sealing a message (docs/sealed.md):
// a perk of an active Pro or Business plan. A message sealed before the plan
// lapsed stays sealed, deliverable and re-sealable.
func (pm PriceMap) requireSealing(u *User) error {
	if plan, active := pm.PlanOf(u); MessageLimit(plan, active) != 0 {
		return Errorf(EFeatureNotIncluded, "Sealed messages are part of the Pro and Business plans.")
	}
	return nil
}

// SubscriptionActive reports whether a Stripe subscription status counts as
// an active plan: "active" or "trialing".
func SubscriptionActive(status string) bool {
	return status == "active" || status == "trialing"
}

// MessageLimit is how many messages a user may keep (SPEC.md section 6): 1
// without an active Pro or Business plan, else 0, no limit.
func MessageLimit(plan PlanID, planActive bool) int {
	if planActive && (plan == PlanPro || plan == PlanBusiness) {
		return 0
	}
	return 1
}

// MayAddMessage is the rule of SPEC.md section 6: a user may add a message
// when they hold none yet, or when they are on an active pro or business plan.
func MayAddMessage(plan PlanID, planActive bool, hasMessages bool) bool {
	return !hasMessages || MessageLimit(plan, planActive) == 0
}

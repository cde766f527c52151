package core

import (
	"context"
	"sync"
)

// BillingChange is what a sync found for one user.
type BillingChange struct {
	UserID, Email             string
	CustomerID                string
	OldPriceID, OldStatus     string
	PriceID, Status           string
	OldPlan, Plan             PlanID
	OldPlanActive, PlanActive bool
}

// Changed reports whether the price or the status changed.
func (c BillingChange) Changed() bool {
	return c.OldPriceID != c.PriceID || c.OldStatus != c.Status
}

// sync re-reads the user's subscriptions and stores the current one. It runs
// one at a time per user, so a slower read can never overwrite a newer one.
// A customer without any subscription keeps what it has (an operator's
// grant, say).
func (s *BillingService) sync(ctx context.Context, u *User) (BillingChange, error) {
	unlock := s.locks.lock(u.ID)
	defer unlock()
	c := BillingChange{UserID: u.ID, Email: u.Email, CustomerID: u.StripeCustomerID}
	subs, err := s.Provider.Subscriptions(ctx, u.StripeCustomerID)
	if err != nil {
		return c, err
	}
	price, status, found := CurrentSubscription(subs, s.Prices)
	u, err = s.Users.UpdateUser(ctx, u.ID, func(u *User) error {
		c.OldPriceID, c.OldStatus = u.StripePriceID, u.StripeSubscriptionStatus
		if found && (u.StripePriceID != price || u.StripeSubscriptionStatus != status) {
			u.StripePriceID, u.StripeSubscriptionStatus = price, status
			u.UpdatedAt = s.Clock.Now()
		}
		return nil
	})
	if err != nil {
		return c, err
	}
	c.PriceID, c.Status = u.StripePriceID, u.StripeSubscriptionStatus
	c.OldPlan, c.OldPlanActive = s.Prices.PlanFor(c.OldPriceID), SubscriptionActive(c.OldStatus)
	c.Plan, c.PlanActive = s.Prices.PlanFor(c.PriceID), SubscriptionActive(c.Status)
	return c, nil
}

// Sync re-reads the subscriptions of one user (id or email) or, with "", of
// every user with a customer, and returns what it found for each. It stops
// at the first failure, returning what it did so far.
func (s *BillingService) Sync(ctx context.Context, idOrEmail string) ([]BillingChange, error) {
	users, err := s.customers(ctx, idOrEmail)
	if err != nil {
		return nil, err
	}
	var out []BillingChange
	for _, u := range users {
		c, err := s.sync(ctx, u)
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

// customers are the users Sync reads: the one named, who must have a
// customer, or every user with one.
func (s *BillingService) customers(ctx context.Context, idOrEmail string) ([]*User, error) {
	if idOrEmail != "" {
		u, err := (&AdminService{Users: s.Users}).FindUser(ctx, idOrEmail)
		if err != nil {
			return nil, err
		}
		if u.StripeCustomerID == "" {
			return nil, Errorf(EBillingNoCustomer, "%s has no Stripe customer: they never started a checkout.", u.Email)
		}
		return []*User{u}, nil
	}
	all, _, err := s.Users.ListUsers(ctx, UserFilter{})
	if err != nil {
		return nil, err
	}
	var users []*User
	for _, u := range all {
		if u.StripeCustomerID != "" {
			users = append(users, u)
		}
	}
	return users, nil
}

// keyedMutex is a mutex per key, held only while in use.
type keyedMutex struct {
	mu    sync.Mutex
	locks map[string]*keyedLock
}

type keyedLock struct {
	sync.Mutex
	users int
}

// lock locks key and returns its unlock.
func (k *keyedMutex) lock(key string) func() {
	k.mu.Lock()
	if k.locks == nil {
		k.locks = map[string]*keyedLock{}
	}
	l := k.locks[key]
	if l == nil {
		l = &keyedLock{}
		k.locks[key] = l
	}
	l.users++
	k.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		k.mu.Lock()
		if l.users--; l.users == 0 {
			delete(k.locks, key)
		}
		k.mu.Unlock()
	}
}

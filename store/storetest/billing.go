package storetest

import (
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// needsBilling skips a test for a backend without the billing store.
func needsBilling(fn func(t *testing.T, s Stores)) func(t *testing.T, s Stores) {
	return func(t *testing.T, s Stores) {
		if s.Billing == nil {
			t.Skip("the backend has no billing store")
		}
		fn(t, s)
	}
}

func setCustomer(tb testing.TB, s Stores, id, customer string) error {
	tb.Helper()
	_, err := s.Users.UpdateUser(ctx, id, func(u *core.User) error {
		u.StripeCustomerID = customer
		return nil
	})
	return err
}

func wantCustomer(tb testing.TB, s Stores, customer, wantUser string) {
	tb.Helper()
	u, err := s.Billing.FindUserByStripeCustomer(ctx, customer)
	if wantUser == "" {
		wantCode(tb, err, core.EUserNotFound)
		return
	}
	must(tb, err)
	if u.ID != wantUser || u.StripeCustomerID != customer {
		tb.Fatalf("FindUserByStripeCustomer(%q) = %s (customer %q), want %s", customer, u.ID, u.StripeCustomerID, wantUser)
	}
}

func testBillingCustomers(t *testing.T, s Stores) {
	ada := MustCreateUser(t, s, "ada@example.com")
	grace := MustCreateUser(t, s, "grace@example.com")
	wantCustomer(t, s, "", "")
	wantCustomer(t, s, "cus_ada", "")

	must(t, setCustomer(t, s, ada.ID, "cus_ada"))
	wantCustomer(t, s, "cus_ada", ada.ID)

	// A customer is one user's: another cannot take it, and nothing changes.
	wantCode(t, setCustomer(t, s, grace.ID, "cus_ada"), core.EConflict)
	g, err := s.Users.FindUserByID(ctx, grace.ID)
	must(t, err)
	if g.StripeCustomerID != "" {
		t.Fatalf("grace's customer = %q after a refused update", g.StripeCustomerID)
	}
	wantCustomer(t, s, "cus_ada", ada.ID)

	// A new customer moves the index entry.
	must(t, setCustomer(t, s, ada.ID, "cus_ada2"))
	wantCustomer(t, s, "cus_ada", "")
	wantCustomer(t, s, "cus_ada2", ada.ID)
	must(t, setCustomer(t, s, grace.ID, "cus_ada"))
	wantCustomer(t, s, "cus_ada", grace.ID)

	// A user created with a customer is indexed too.
	v := &core.User{ID: core.NewID(), Email: "v@example.com", StripeCustomerID: "cus_v"}
	must(t, s.Users.CreateUser(ctx, v))
	wantCustomer(t, s, "cus_v", v.ID)
	wantCode(t, s.Users.CreateUser(ctx, &core.User{ID: core.NewID(), Email: "w@example.com", StripeCustomerID: "cus_v"}), core.EConflict)
	if _, err := s.Users.FindUserByEmail(ctx, "w@example.com"); core.ErrorCode(err) != core.EUserNotFound {
		t.Fatalf("a user refused for its customer was stored: %v", err)
	}

	must(t, s.Users.DeleteUser(ctx, ada.ID))
	wantCustomer(t, s, "cus_ada2", "")
	must(t, setCustomer(t, s, grace.ID, "cus_ada2"))
	wantCustomer(t, s, "cus_ada2", grace.ID)
}

func testBillingEvents(t *testing.T, s Stores) {
	seen := func(id string) bool {
		t.Helper()
		ok, err := s.Billing.BillingEventSeen(ctx, id)
		must(t, err)
		return ok
	}
	if seen("evt_1") || seen("") {
		t.Fatal("an event was seen before any was recorded")
	}
	must(t, s.Billing.RecordBillingEvent(ctx, "evt_1", s.Clock.Now()))
	must(t, s.Billing.RecordBillingEvent(ctx, "evt_1", s.Clock.Now())) // twice is fine
	if !seen("evt_1") || seen("evt_2") {
		t.Fatal("evt_1 should be seen, evt_2 not")
	}
	wantCode(t, s.Billing.RecordBillingEvent(ctx, "", s.Clock.Now()), core.EInvalid)

	// Ids are kept for the retention, then forgotten when more are recorded.
	s.Clock.Add(core.BillingEventRetention - time.Hour)
	must(t, s.Billing.RecordBillingEvent(ctx, "evt_2", s.Clock.Now()))
	if !seen("evt_1") {
		t.Fatal("evt_1 forgotten before the retention ended")
	}
	s.Clock.Add(2 * time.Hour)
	must(t, s.Billing.RecordBillingEvent(ctx, "evt_3", s.Clock.Now()))
	if seen("evt_1") || !seen("evt_2") || !seen("evt_3") {
		t.Fatalf("after the retention of evt_1: evt_1 %v, evt_2 %v, evt_3 %v", seen("evt_1"), seen("evt_2"), seen("evt_3"))
	}
}

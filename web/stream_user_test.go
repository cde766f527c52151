package web_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// The stream carries the session user ("me", the data of GET /api/me)
// before the first list and again whenever it changes, so a plan that
// starts or lapses shows at once; a change that leaves it as it was sends
// the list alone.
func TestMessageStreamSendsTheSessionUserWhenItChanges(t *testing.T) {
	a := mustIdentityAPI(t)
	ann := a.author("ann@example.com")
	a.createMessage(ann, nil)

	s := openStream(t, a.srv.URL(), ann.token, false)
	if su := s.user(time.Second); su.PlanID != core.PlanStarter || su.PlanIsActive || su.CanAddMessage {
		t.Fatalf("first me: %+v", su)
	}
	s.list(time.Second)

	// A paid plan starts (as a payment webhook stores it): Add Message is
	// allowed now, and GET /api/me says the same.
	a.grantPlan(ann.uid, core.PlanPro)
	su := s.user(time.Second)
	if su.PlanID != core.PlanPro || !su.PlanIsActive || !su.CanAddMessage || su.MessageLimit != nil {
		t.Fatalf("me after the plan started: %+v", su)
	}
	s.list(time.Second)
	var me map[string]any
	a.ok(nil, http.StatusOK, "GET", "/api/me", ann.token, nil, &me)
	if me["planId"] != "pro" || me["canAddMessage"] != true {
		t.Fatalf("GET /api/me: %v", me)
	}

	// A message change that leaves the user as they were: the list alone.
	a.createMessage(ann, map[string]any{"title": "second"})
	s.list(time.Second)
	s.noUser()

	// The plan lapses: Add Message stops.
	if _, err := a.DB.UpdateUser(context.Background(), ann.uid, func(u *core.User) error {
		u.StripeSubscriptionStatus = "canceled"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if su := s.user(time.Second); su.PlanIsActive || su.CanAddMessage || su.StripeSubscriptionStatus != "canceled" {
		t.Fatalf("me after the plan lapsed: %+v", su)
	}
	if ms := s.list(time.Second); len(ms) != 2 {
		t.Fatalf("list after the plan lapsed: %+v", ms)
	}
}

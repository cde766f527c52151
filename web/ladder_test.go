package web_test

import (
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/web"
)

// PATCH /api/me sets the reminder ladder; the session user carries it; bad
// steps and a second address beyond the plan are refused, changing nothing.
func TestReminderLadderSetting(t *testing.T) {
	a := mustIdentityAPI(t)
	tok := a.signUp(nil, "ann@example.com")

	var me web.SessionUserJSON
	a.ok(nil, 200, "GET", "/api/me", tok.IDToken, nil, &me)
	if me.ReminderLadder == nil || len(me.ReminderLadder) != 0 || me.ReminderAddress != "" {
		t.Fatalf("a new user's ladder: %v %q", me.ReminderLadder, me.ReminderAddress)
	}
	a.ok(nil, 200, "PATCH", "/api/me", tok.IDToken, map[string]any{"reminderLadder": []string{"2h", "3d"}}, &me)
	if strings.Join(me.ReminderLadder, ",") != "3d,2h" {
		t.Fatalf("ladder %v", me.ReminderLadder)
	}
	_, env := a.fail(nil, 422, core.EValidation, "PATCH", "/api/me", tok.IDToken, map[string]any{"reminderLadder": []string{"1w"}})
	if env.Fields["reminderLadder"] != `Reminder steps must be among "3d", "1d" and "2h"` {
		t.Fatalf("fields %v", env.Fields)
	}
	_, env = a.fail(nil, 422, core.EValidation, "PATCH", "/api/me", tok.IDToken, map[string]any{"reminderAddress": "nope"})
	if env.Fields["reminderAddress"] != "Please enter a valid email address" {
		t.Fatalf("fields %v", env.Fields)
	}
	a.fail(nil, 403, core.EPlanLimit, "PATCH", "/api/me", tok.IDToken, map[string]any{"reminderAddress": "partner@example.com"})
	a.ok(nil, 200, "GET", "/api/me", tok.IDToken, nil, &me)
	if strings.Join(me.ReminderLadder, ",") != "3d,2h" || me.ReminderAddress != "" {
		t.Fatalf("after the refusals: %v %q", me.ReminderLadder, me.ReminderAddress)
	}
}

// The second reminder address's consent over HTTP: PATCH /api/me asks the
// address, whose email offers the one-click refusal; the session user says
// "unconfirmed" until the link is followed, "confirmed" after, "refused"
// once the address refused; POST /api/me/reminder-address/confirm sends the
// link again within the verification emails' limits (the account's sign-up
// email counts).
func TestReminderAddressConsent(t *testing.T) {
	a := mustIdentityAPI(t)
	tok := a.signUp(nil, "ann@example.com")
	a.grantPlan(tok.User.UID, core.PlanPro)

	var me web.SessionUserJSON
	a.ok(nil, 200, "GET", "/api/me", tok.IDToken, nil, &me)
	if me.ReminderAddressState != "" {
		t.Fatalf("state without an address: %q", me.ReminderAddressState)
	}
	a.ok(nil, 200, "PATCH", "/api/me", tok.IDToken, map[string]any{"reminderAddress": "partner@example.com"}, &me)
	if me.ReminderAddressState != core.ReminderAddressUnconfirmed {
		t.Fatalf("state after setting: %q", me.ReminderAddressState)
	}
	ask := a.email("partner@example.com")
	unsubscribe := strings.Trim(ask.Header.Get("List-Unsubscribe"), "<>")
	if !strings.Contains(unsubscribe, "/unsubscribe/") || ask.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
		t.Fatalf("the request has no one-click refusal: %v", ask.Header)
	}
	a.ok(nil, 200, "POST", "/api/me/reminder-address/confirm", tok.IDToken, nil, nil)
	code := a.followLink(a.email("partner@example.com"), core.ModeConfirmReminderAddress)
	a.fail(nil, 429, core.ETooManyRequests, "POST", "/api/me/reminder-address/confirm", tok.IDToken, nil)
	a.noMoreEmail()

	var info struct{ Mode, Email string }
	a.ok(nil, 200, "POST", "/api/auth/action/apply", "", map[string]string{"oobCode": code}, &info)
	if info.Mode != core.ModeConfirmReminderAddress || info.Email != "partner@example.com" {
		t.Fatalf("applied: %+v", info)
	}
	a.ok(nil, 200, "GET", "/api/me", tok.IDToken, nil, &me)
	if me.ReminderAddressState != core.ReminderAddressConfirmed {
		t.Fatalf("state after the link: %q", me.ReminderAddressState)
	}
	a.ok(nil, 200, "POST", "/api/me/reminder-address/confirm", tok.IDToken, nil, nil) // confirmed: nothing sent
	a.noMoreEmail()

	token := unsubscribe[strings.LastIndex(unsubscribe, "/")+1:]
	if _, err := a.Refuse.Refuse(a.Ctx, token); err != nil {
		t.Fatal(err)
	}
	a.ok(nil, 200, "GET", "/api/me", tok.IDToken, nil, &me)
	if me.ReminderAddressState != core.ReminderAddressRefused {
		t.Fatalf("state after the refusal: %q", me.ReminderAddressState)
	}
	a.fail(nil, 400, core.EInvalid, "POST", "/api/me/reminder-address/confirm", tok.IDToken, nil)
}

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

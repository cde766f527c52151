package main_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// users show shows a user's hold; users lift-hold ends it now, through the
// running server's admin socket.
func TestUsersShowAndLiftHold(t *testing.T) {
	dir := t.TempDir()
	db := openStore(t, dir, filepath.Join(dir, "data", "sendlater.db"))
	u, _ := seedInto(t, db)
	until := time.Now().Add(30 * 24 * time.Hour).UTC().Truncate(time.Second)
	if _, err := core.SetHold(context.Background(), db, db, time.Now(), u.ID, until, ""); err != nil {
		t.Fatal(err)
	}
	db.Close()
	startServer(t, dir)

	r := mustRun(t, dir, "users", "show", "ada@example.com")
	if !strings.Contains(r.stdout, "on hold until "+until.Format("2006-01-02 15:04 UTC")) {
		t.Fatalf("users show of a held user:\n%s", r.stdout)
	}
	r = mustRun(t, dir, "users", "lift-hold", "ada@example.com")
	if !strings.Contains(r.stdout, "Hold") || !strings.Contains(r.stdout, "(the last ended ") || strings.Contains(r.stdout, "on hold until") {
		t.Fatalf("users lift-hold:\n%s", r.stdout)
	}
	r = mustRun(t, dir, "users", "show", "ada@example.com")
	if strings.Contains(r.stdout, "on hold until") {
		t.Fatalf("still held after lift-hold:\n%s", r.stdout)
	}
	if r = mustRun(t, dir, "audit", "list"); !regexp.MustCompile(`(?i)users\.lift-hold +ada@example\.com`).MatchString(r.stdout) {
		t.Fatalf("the audit log lacks the lift-hold:\n%s", r.stdout)
	}
	r = run(t, dir, nil, "users", "lift-hold", "nobody@example.com")
	if r.code == 0 || !strings.Contains(r.stderr, "could not be found") {
		t.Fatalf("lift-hold of an unknown user: %+v", r)
	}
}

// users show shows the reminder ladder and the second reminder address,
// and says when the plan does not let the address be used (through the
// store: no server runs).
func TestUsersShowReminderSettings(t *testing.T) {
	dir := t.TempDir()
	u, _ := seed(t, dir)
	show := func(change func(x *core.User)) string {
		t.Helper()
		if change != nil {
			db := openStore(t, dir, filepath.Join(dir, "data", "sendlater.db"))
			_, err := db.UpdateUser(context.Background(), u.ID, func(x *core.User) error { change(x); return nil })
			db.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
		return mustRun(t, dir, "users", "show", "ada@example.com").stdout
	}
	if out := show(nil); !strings.Contains(out, "- (the 10-day reminder only)") {
		t.Fatalf("users show without a ladder:\n%s", out)
	}
	ladder, err := core.ParseLadder([]string{"3d", "2h"})
	if err != nil {
		t.Fatal(err)
	}
	out := show(func(x *core.User) { x.ReminderLadder, x.ReminderAddress = ladder, "second@example.com" })
	for _, want := range []string{"3d, 2h (after the 10-day reminder)", "second@example.com (not used: the plan does not include it)"} {
		if !strings.Contains(out, want) {
			t.Fatalf("users show lacks %q:\n%s", want, out)
		}
	}
	out = show(func(x *core.User) { x.StripePriceID, x.StripeSubscriptionStatus = "plan:pro", "active" })
	if !strings.Contains(out, "second@example.com (not used: waiting for it to confirm)") {
		t.Fatalf("users show of a Pro user's unconfirmed reminder address:\n%s", out)
	}
	out = show(func(x *core.User) { x.ReminderAddressConfirmedAt = time.Now() })
	if !strings.Contains(out, "second@example.com") || strings.Contains(out, "not used") {
		t.Fatalf("users show of a Pro user's reminder address:\n%s", out)
	}
}

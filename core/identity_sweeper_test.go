package core_test

import (
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

func TestSweeperDeletesWhatExpired(t *testing.T) {
	e := testenv.New(t, testenv.Config{})
	db, ctx, clock, now := e.DB, e.Ctx, e.Clock, e.Clock.Now()
	u := &core.User{ID: core.NewID(), Email: "ann@example.com", CreatedAt: now}
	if err := db.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	for _, expires := range []time.Time{now.Add(time.Hour), now.Add(48 * time.Hour)} {
		if err := db.CreateSession(ctx, &core.Session{UserID: u.ID, RefreshHash: core.HashSecret(core.NewSecret()), ExpiresAt: expires}); err != nil {
			t.Fatal(err)
		}
		if err := db.CreateActionCode(ctx, &core.ActionCode{Hash: core.HashSecret(core.NewSecret()), Mode: core.ModeVerifyEmail, UserID: u.ID, ExpiresAt: expires}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Limits.Record(ctx, core.LimitSignInClient, "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	sw := &core.Sweeper{Sessions: db, ActionCodes: db, Limits: e.Limits, Clock: clock}
	if n, err := sw.Sweep(ctx); err != nil || n != (core.Swept{}) {
		t.Fatalf("nothing expired yet: %+v %v", n, err)
	}
	clock.Add(2 * time.Hour)
	if n, err := sw.Sweep(ctx); err != nil || n != (core.Swept{Sessions: 1, ActionCodes: 1, LimitEvents: 1}) {
		t.Fatalf("one of each expired: %+v %v", n, err)
	}
}

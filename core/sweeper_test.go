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
	sw := &core.Sweeper{Sessions: db, ActionCodes: db, Clock: clock}
	if s, c, err := sw.Sweep(ctx); err != nil || s != 0 || c != 0 {
		t.Fatalf("nothing expired yet: %d %d %v", s, c, err)
	}
	clock.Add(2 * time.Hour)
	if s, c, err := sw.Sweep(ctx); err != nil || s != 1 || c != 1 {
		t.Fatalf("one of each expired: %d %d %v", s, c, err)
	}
}

package core_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/bolt"
)

func TestSweeperDeletesWhatExpired(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "s.db"), bolt.Options{Key: []byte("k3y-0f-32-bytes-for-aes-256-gcm!"), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := core.NewManualClock(now)
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

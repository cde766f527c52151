package storetest

import (
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

func testActionCodes(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	now := s.Clock.Now()
	c := &core.ActionCode{
		Hash: core.HashSecret(core.NewSecret()), Mode: core.ModeRecoverEmail, UserID: u.ID,
		Email: "new@example.com", OldEmail: u.Email, CreatedAt: now, ExpiresAt: now.Add(time.Hour),
	}
	must(t, s.ActionCodes.CreateActionCode(ctx, c))
	got, err := s.ActionCodes.FindActionCode(ctx, c.Hash)
	must(t, err)
	if got.Mode != c.Mode || got.UserID != u.ID || got.Email != c.Email || got.OldEmail != c.OldEmail ||
		!got.ExpiresAt.Equal(c.ExpiresAt) || !got.UsedAt.IsZero() {
		t.Fatalf("FindActionCode = %+v, want %+v", got, c)
	}
	_, err = s.ActionCodes.FindActionCode(ctx, "nope")
	wantCode(t, err, core.EInvalidActionCode)
	_, err = s.ActionCodes.UseActionCode(ctx, "nope", now)
	wantCode(t, err, core.EInvalidActionCode)

	at := now.Add(time.Minute)
	used, err := s.ActionCodes.UseActionCode(ctx, c.Hash, at)
	must(t, err)
	if !used.UsedAt.Equal(at) || used.Email != c.Email {
		t.Fatalf("UseActionCode = %+v", used)
	}
	_, err = s.ActionCodes.UseActionCode(ctx, c.Hash, at.Add(time.Second))
	wantCode(t, err, core.EInvalidActionCode)
	got, err = s.ActionCodes.FindActionCode(ctx, c.Hash)
	must(t, err)
	if !got.UsedAt.Equal(at) {
		t.Fatalf("UsedAt = %v, want %v", got.UsedAt, at)
	}
}

func testActionCodeExpiry(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	now := s.Clock.Now()
	code := func(ttl time.Duration) *core.ActionCode {
		c := &core.ActionCode{
			Hash: core.HashSecret(core.NewSecret()), Mode: core.ModeResetPassword, UserID: u.ID,
			Email: u.Email, CreatedAt: now, ExpiresAt: now.Add(ttl),
		}
		must(t, s.ActionCodes.CreateActionCode(ctx, c))
		return c
	}
	short, long := code(time.Hour), code(3*time.Hour)
	_, err := s.ActionCodes.UseActionCode(ctx, short.Hash, short.ExpiresAt)
	wantCode(t, err, core.EExpiredActionCode)
	got, err := s.ActionCodes.FindActionCode(ctx, short.Hash)
	must(t, err)
	if !got.UsedAt.IsZero() {
		t.Fatal("an expired code was marked used")
	}

	n, err := s.ActionCodes.DeleteExpiredActionCodes(ctx, now.Add(2*time.Hour))
	must(t, err)
	if n != 1 {
		t.Fatalf("DeleteExpiredActionCodes = %d, want 1", n)
	}
	_, err = s.ActionCodes.FindActionCode(ctx, short.Hash)
	wantCode(t, err, core.EInvalidActionCode)
	if _, err := s.ActionCodes.UseActionCode(ctx, long.Hash, now.Add(2*time.Hour)); err != nil {
		t.Fatalf("the unexpired code: %v", err)
	}
	n, err = s.ActionCodes.DeleteExpiredActionCodes(ctx, now.Add(2*time.Hour))
	must(t, err)
	if n != 0 {
		t.Fatalf("second DeleteExpiredActionCodes = %d, want 0", n)
	}
}

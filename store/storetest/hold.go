package storetest

import (
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// testUserHold: the author's hold (core/message_hold.go) is kept with the user,
// read back by id and by email, and cleared.
func testUserHold(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	if !u.HoldSince.IsZero() || !u.HoldUntil.IsZero() {
		t.Fatalf("a new user is held: %+v", u)
	}
	since := s.Clock.Now()
	until := since.Add(30*24*time.Hour + 1234)
	_, err := s.Users.UpdateUser(ctx, u.ID, func(u *core.User) error {
		u.HoldSince, u.HoldUntil = since, until
		return nil
	})
	must(t, err)
	for _, find := range []func() (*core.User, error){
		func() (*core.User, error) { return s.Users.FindUserByID(ctx, u.ID) },
		func() (*core.User, error) { return s.Users.FindUserByEmail(ctx, "ada@example.com") },
	} {
		got, err := find()
		must(t, err)
		if !got.HoldSince.Equal(since) || !got.HoldUntil.Equal(until) || !got.HeldAt(since) || got.HeldAt(until) {
			t.Fatalf("held user read back: since %v until %v, want %v %v", got.HoldSince, got.HoldUntil, since, until)
		}
	}
	_, err = s.Users.UpdateUser(ctx, u.ID, func(u *core.User) error {
		u.HoldSince, u.HoldUntil = time.Time{}, time.Time{}
		return nil
	})
	must(t, err)
	got, err := s.Users.FindUserByID(ctx, u.ID)
	must(t, err)
	if !got.HoldSince.IsZero() || !got.HoldUntil.IsZero() {
		t.Fatalf("cleared hold read back: %v %v", got.HoldSince, got.HoldUntil)
	}
}

// testUserReminderLadder: the reminder ladder and the second reminder
// address (core/delivery_ladder.go), with when it was asked to confirm and when it
// confirmed (core/delivery_reminder_address.go), are kept with the user, read back
// by id and by email, and cleared.
func testUserReminderLadder(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	if u.ReminderLadder != 0 || u.ReminderAddress != "" {
		t.Fatalf("a new user has a ladder: %+v", u)
	}
	asked := time.Date(2026, 3, 1, 9, 0, 0, 123, time.UTC)
	confirmed := asked.Add(time.Hour)
	_, err := s.Users.UpdateUser(ctx, u.ID, func(u *core.User) error {
		u.ReminderLadder, u.ReminderAddress = core.Ladder3d|core.Ladder2h, "partner@sms.example.com"
		u.ReminderAddressAskedAt, u.ReminderAddressConfirmedAt = asked, confirmed
		return nil
	})
	must(t, err)
	for _, find := range []func() (*core.User, error){
		func() (*core.User, error) { return s.Users.FindUserByID(ctx, u.ID) },
		func() (*core.User, error) { return s.Users.FindUserByEmail(ctx, "ada@example.com") },
	} {
		got, err := find()
		must(t, err)
		if got.ReminderLadder != core.Ladder3d|core.Ladder2h || got.ReminderAddress != "partner@sms.example.com" {
			t.Fatalf("ladder read back: %v %q", got.ReminderLadder.Names(), got.ReminderAddress)
		}
		if !got.ReminderAddressAskedAt.Equal(asked) || !got.ReminderAddressConfirmedAt.Equal(confirmed) {
			t.Fatalf("consent read back: asked %v, confirmed %v", got.ReminderAddressAskedAt, got.ReminderAddressConfirmedAt)
		}
	}
	_, err = s.Users.UpdateUser(ctx, u.ID, func(u *core.User) error {
		u.ReminderLadder, u.ReminderAddress = 0, ""
		u.ReminderAddressAskedAt, u.ReminderAddressConfirmedAt = time.Time{}, time.Time{}
		return nil
	})
	must(t, err)
	got, err := s.Users.FindUserByID(ctx, u.ID)
	must(t, err)
	if got.ReminderLadder != 0 || got.ReminderAddress != "" || !got.ReminderAddressAskedAt.IsZero() || !got.ReminderAddressConfirmedAt.IsZero() {
		t.Fatalf("cleared ladder read back: %v %q", got.ReminderLadder.Names(), got.ReminderAddress)
	}
}

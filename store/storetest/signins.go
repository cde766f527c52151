package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// Where you are signed in: the sessions of a user with their network, and
// the book of the devices a user signed in from.

func testListUserSessions(t *testing.T, s Stores) {
	a := MustCreateUser(t, s, "ada@example.com")
	b := MustCreateUser(t, s, "bea@example.com")
	if xs, err := s.Sessions.ListUserSessions(ctx, a.ID); err != nil || len(xs) != 0 {
		t.Fatalf("ListUserSessions of none = %v, %v", xs, err)
	}
	x1 := MustCreateSession(t, s, a.ID)
	x2 := &core.Session{UserID: a.ID, RefreshHash: core.HashSecret(core.NewSecret()), CreatedAt: s.Clock.Now(),
		LastUsedAt: s.Clock.Now(), ExpiresAt: s.Clock.Now().Add(time.Hour), UserAgent: "other", Network: "2001:db8:1::/48"}
	must(t, s.Sessions.CreateSession(ctx, x2))
	MustCreateSession(t, s, b.ID)

	xs, err := s.Sessions.ListUserSessions(ctx, a.ID)
	must(t, err)
	ids := []string{}
	for _, x := range xs {
		if x.UserID != a.ID {
			t.Fatalf("ListUserSessions(a) holds %+v", x)
		}
		ids = append(ids, x.ID)
	}
	slices.Sort(ids)
	want := []string{x1.ID, x2.ID}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Fatalf("ListUserSessions(a) = %v, want %v", ids, want)
	}
	got, err := s.Sessions.FindSessionByID(ctx, x2.ID)
	must(t, err)
	if got.Network != "2001:db8:1::/48" || got.UserAgent != "other" {
		t.Fatalf("the network did not round-trip: %+v", got)
	}
	later := s.Clock.Now().Add(7 * time.Minute)
	_, err = s.Sessions.UpdateSession(ctx, x2.ID, func(x *core.Session) error { x.LastUsedAt = later; return nil })
	must(t, err)
	got, err = s.Sessions.FindSessionByID(ctx, x2.ID)
	must(t, err)
	if !got.LastUsedAt.Equal(later) || got.Network != "2001:db8:1::/48" {
		t.Fatalf("after an update %+v", got)
	}
	must(t, s.Sessions.DeleteSession(ctx, x1.ID))
	if xs, err := s.Sessions.ListUserSessions(ctx, a.ID); err != nil || len(xs) != 1 || xs[0].ID != x2.ID {
		t.Fatalf("after a delete %v, %v", xs, err)
	}
}

func testDeviceBooks(t *testing.T, s Stores) {
	if s.Devices == nil {
		t.Skip("no device books")
	}
	a := MustCreateUser(t, s, "ada@example.com")
	b, err := s.Devices.FindDeviceBook(ctx, a.ID)
	must(t, err)
	if b.UserID != a.ID || b.AlertsOff || len(b.Devices) != 0 {
		t.Fatalf("a new user's book %+v", b)
	}
	now := s.Clock.Now()
	b, err = s.Devices.UpdateDeviceBook(ctx, a.ID, func(b *core.DeviceBook) error {
		b.Devices = append(b.Devices, core.KnownDevice{Key: "k1", FirstSeen: now, LastSeen: now.Add(time.Minute)})
		return nil
	})
	must(t, err)
	if len(b.Devices) != 1 {
		t.Fatalf("UpdateDeviceBook = %+v", b)
	}
	_, err = s.Devices.UpdateDeviceBook(ctx, a.ID, func(b *core.DeviceBook) error {
		b.AlertsOff = true
		b.Devices = nil
		return errAbort
	})
	if !errors.Is(err, errAbort) {
		t.Fatalf("UpdateDeviceBook error = %v, want the callback's", err)
	}
	_, err = s.Devices.UpdateDeviceBook(ctx, a.ID, func(b *core.DeviceBook) error { b.AlertsOff = true; return nil })
	must(t, err)
	b, err = s.Devices.FindDeviceBook(ctx, a.ID)
	must(t, err)
	if !b.AlertsOff || len(b.Devices) != 1 || b.Devices[0].Key != "k1" || !b.Devices[0].FirstSeen.Equal(now) ||
		!b.Devices[0].LastSeen.Equal(now.Add(time.Minute)) {
		t.Fatalf("the book did not round-trip: %+v", b)
	}
	_, err = s.Devices.UpdateDeviceBook(ctx, "ghost", func(*core.DeviceBook) error { return nil })
	wantCode(t, err, core.EUserNotFound)

	// Deleted with its user: a new account with the same id starts empty.
	must(t, s.Users.DeleteUser(ctx, a.ID))
	b, err = s.Devices.FindDeviceBook(ctx, a.ID)
	must(t, err)
	if b.AlertsOff || len(b.Devices) != 0 {
		t.Fatalf("the book outlived its user: %+v", b)
	}
}

package storetest

import (
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// newDeviceCode is a pending device code made now, expiring in ten minutes.
func newDeviceCode(s Stores, name string) *core.DeviceCode {
	now := s.Clock.Now()
	return &core.DeviceCode{
		DeviceHash: core.HashSecret(core.NewSecret()), UserCodeHash: core.HashSecret(core.NewSecret()),
		ClientName: name, UserAgent: "sendlater/1.0 (linux)", Network: "203.0.113.0/24",
		CreatedAt: now, ExpiresAt: now.Add(core.DeviceCodeTTL), Interval: core.DevicePollInterval,
		Status: core.DeviceCodePending,
	}
}

func testDeviceCodes(t *testing.T, s Stores) {
	if s.DeviceCodes == nil {
		t.Skip("no device codes")
	}
	a := MustCreateUser(t, s, "ada@example.com")
	c := newDeviceCode(s, "sendlater on tower")
	must(t, s.DeviceCodes.CreateDeviceCode(ctx, c))
	if c.ID == "" {
		t.Fatal("CreateDeviceCode gave no id")
	}

	// Either hash once; a known status.
	dup := newDeviceCode(s, "copy")
	dup.DeviceHash = c.DeviceHash
	wantCode(t, s.DeviceCodes.CreateDeviceCode(ctx, dup), core.EConflict)
	dup = newDeviceCode(s, "copy")
	dup.UserCodeHash = c.UserCodeHash
	wantCode(t, s.DeviceCodes.CreateDeviceCode(ctx, dup), core.EConflict)
	bad := newDeviceCode(s, "bad")
	bad.Status = "maybe"
	wantCode(t, s.DeviceCodes.CreateDeviceCode(ctx, bad), core.EInvalid)

	for name, find := range map[string]func() (*core.DeviceCode, error){
		"by device": func() (*core.DeviceCode, error) { return s.DeviceCodes.FindDeviceCodeByDevice(ctx, c.DeviceHash) },
		"by user":   func() (*core.DeviceCode, error) { return s.DeviceCodes.FindDeviceCodeByUser(ctx, c.UserCodeHash) },
	} {
		got, err := find()
		must(t, err)
		if got.ID != c.ID || got.ClientName != c.ClientName || got.UserAgent != c.UserAgent || got.Network != c.Network ||
			!got.CreatedAt.Equal(c.CreatedAt) || !got.ExpiresAt.Equal(c.ExpiresAt) || got.Interval != c.Interval ||
			got.Status != core.DeviceCodePending || got.UserID != "" || got.SessionID != "" || !got.LastPolledAt.IsZero() ||
			!got.DecidedAt.IsZero() {
			t.Fatalf("find %s = %+v, want %+v", name, got, c)
		}
	}
	_, err := s.DeviceCodes.FindDeviceCodeByDevice(ctx, "nope")
	wantCode(t, err, core.EExpiredToken)
	_, err = s.DeviceCodes.FindDeviceCodeByUser(ctx, "")
	wantCode(t, err, core.EExpiredToken)

	// An update in one transaction; a failing fn changes nothing; the
	// hashes stay.
	now := s.Clock.Now()
	_, err = s.DeviceCodes.UpdateDeviceCode(ctx, c.ID, func(x *core.DeviceCode) error {
		x.Status = core.DeviceCodeApproved
		return core.Errorf(core.EConflict, "no")
	})
	wantCode(t, err, core.EConflict)
	got, err := s.DeviceCodes.UpdateDeviceCode(ctx, c.ID, func(x *core.DeviceCode) error {
		x.Status, x.UserID, x.SessionID, x.DecidedAt = core.DeviceCodeApproved, a.ID, "sess-1", now
		x.LastPolledAt, x.Interval = now, 10*time.Second
		x.DeviceHash = "changed"
		return nil
	})
	must(t, err)
	if got.DeviceHash != c.DeviceHash {
		t.Fatalf("the update changed the hash: %+v", got)
	}
	got, err = s.DeviceCodes.FindDeviceCodeByDevice(ctx, c.DeviceHash)
	must(t, err)
	if got.Status != core.DeviceCodeApproved || got.UserID != a.ID || got.SessionID != "sess-1" ||
		!got.DecidedAt.Equal(now) || !got.LastPolledAt.Equal(now) || got.Interval != 10*time.Second {
		t.Fatalf("after the update: %+v", got)
	}
	_, err = s.DeviceCodes.UpdateDeviceCode(ctx, "ghost", func(*core.DeviceCode) error { return nil })
	wantCode(t, err, core.EExpiredToken)

	// Deleted once; then unknown by either code.
	must(t, s.DeviceCodes.DeleteDeviceCode(ctx, c.ID))
	wantCode(t, s.DeviceCodes.DeleteDeviceCode(ctx, c.ID), core.EExpiredToken)
	_, err = s.DeviceCodes.FindDeviceCodeByUser(ctx, c.UserCodeHash)
	wantCode(t, err, core.EExpiredToken)
	// Its codes are free again.
	again := newDeviceCode(s, "again")
	again.DeviceHash, again.UserCodeHash = c.DeviceHash, c.UserCodeHash
	must(t, s.DeviceCodes.CreateDeviceCode(ctx, again))
}

func testDeviceCodeExpiry(t *testing.T, s Stores) {
	if s.DeviceCodes == nil {
		t.Skip("no device codes")
	}
	old := newDeviceCode(s, "old")
	must(t, s.DeviceCodes.CreateDeviceCode(ctx, old))
	s.Clock.Add(5 * time.Minute)
	young := newDeviceCode(s, "young")
	must(t, s.DeviceCodes.CreateDeviceCode(ctx, young))

	n, err := s.DeviceCodes.DeleteExpiredDeviceCodes(ctx, old.ExpiresAt)
	must(t, err)
	if n != 0 {
		t.Fatalf("deleted %d at the expiry itself, want 0", n)
	}
	n, err = s.DeviceCodes.DeleteExpiredDeviceCodes(ctx, old.ExpiresAt.Add(time.Second))
	must(t, err)
	if n != 1 {
		t.Fatalf("deleted %d, want 1", n)
	}
	_, err = s.DeviceCodes.FindDeviceCodeByDevice(ctx, old.DeviceHash)
	wantCode(t, err, core.EExpiredToken)
	_, err = s.DeviceCodes.FindDeviceCodeByUser(ctx, young.UserCodeHash)
	must(t, err)
}

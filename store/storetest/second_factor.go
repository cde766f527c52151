package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// testUserSecondFactor: the authenticator app's secret, when it was turned
// on, the last step used and the recovery code hashes are kept, read back
// by id and by email, and cleared.
func testUserSecondFactor(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	got, err := s.Users.FindUserByID(ctx, u.ID)
	must(t, err)
	if got.HasSecondFactor() || got.TOTPSecret != "" || got.TOTPLastStep != 0 || got.RecoveryCodes != nil {
		t.Fatalf("a new user has a second factor: %+v", got)
	}
	on := s.Clock.Now().Add(time.Minute)
	hashes := []string{"h1", "h2", "h3"}
	_, err = s.Users.UpdateUser(ctx, u.ID, func(u *core.User) error {
		u.TOTPSecret, u.TOTPEnabledAt, u.TOTPLastStep, u.RecoveryCodes = "JBSWY3DPEHPK3PXP", on, 59_000_000, hashes
		return nil
	})
	must(t, err)
	for _, read := range []func() (*core.User, error){
		func() (*core.User, error) { return s.Users.FindUserByID(ctx, u.ID) },
		func() (*core.User, error) { return s.Users.FindUserByEmail(ctx, "ADA@example.com") },
	} {
		got, err := read()
		must(t, err)
		if got.TOTPSecret != "JBSWY3DPEHPK3PXP" || !got.TOTPEnabledAt.Equal(on) || got.TOTPLastStep != 59_000_000 ||
			!slices.Equal(got.RecoveryCodes, hashes) || !got.HasSecondFactor() {
			t.Fatalf("second factor read back as %q %v %d %v", got.TOTPSecret, got.TOTPEnabledAt, got.TOTPLastStep, got.RecoveryCodes)
		}
	}
	// A recovery code used: one hash fewer.
	_, err = s.Users.UpdateUser(ctx, u.ID, func(u *core.User) error {
		u.RecoveryCodes = slices.Delete(u.RecoveryCodes, 1, 2)
		return nil
	})
	must(t, err)
	got, err = s.Users.FindUserByID(ctx, u.ID)
	must(t, err)
	if !slices.Equal(got.RecoveryCodes, []string{"h1", "h3"}) {
		t.Fatalf("recovery codes after one used: %v", got.RecoveryCodes)
	}
	_, err = s.Users.UpdateUser(ctx, u.ID, func(u *core.User) error {
		u.TOTPSecret, u.TOTPEnabledAt, u.TOTPLastStep, u.RecoveryCodes = "", time.Time{}, 0, nil
		return nil
	})
	must(t, err)
	got, err = s.Users.FindUserByID(ctx, u.ID)
	must(t, err)
	if got.HasSecondFactor() || got.TOTPSecret != "" || got.TOTPLastStep != 0 || got.RecoveryCodes != nil {
		t.Fatalf("a cleared second factor read back: %+v", got)
	}
}

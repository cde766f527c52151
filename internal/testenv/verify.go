package testenv

import (
	"testing"

	"github.com/sendlater/sendlater/core"
)

// MustVerify marks the address of the user uid verified, as following the
// link of the verification email would.
func (e *Env) MustVerify(tb testing.TB, uid string) {
	tb.Helper()
	if _, err := e.Store.UpdateUser(e.Ctx, uid, func(u *core.User) error {
		u.EmailVerified = true
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
}

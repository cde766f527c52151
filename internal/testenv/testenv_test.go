package testenv_test

import (
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// The services work over either backend: a user stored is found by the
// services wired over it.
func TestBackends(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		u := e.MustUser(t, "ada@example.com", "Europe/Paris", core.PlanPro)
		got, err := e.Store.FindUserByEmail(e.Ctx, "ada@example.com")
		if err != nil || got.ID != u.ID {
			t.Fatalf("FindUserByEmail = %+v, %v; want %s", got, err, u.ID)
		}
		if (e.DB != nil) != (t.Name() == "TestBackends/bolt") {
			t.Errorf("DB = %v on %s", e.DB, t.Name())
		}
	})
}

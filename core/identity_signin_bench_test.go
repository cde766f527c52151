package core_test

import (
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// BenchmarkSignInParts is where a password sign-in's time goes, side by
// side in one run, on both backends (issue 35): "hash" is argon2id alone at
// the project's parameters (VerifyPassword); "signin" is core's whole SignIn
// (validation, the account's lookup, the failure limits, the hash, the
// session's write and its tokens) for an account hashed at those
// parameters; "rest" is the same SignIn for an account whose hash costs
// next to nothing: everything but the hash.
func BenchmarkSignInParts(b *testing.B) {
	for _, backend := range []string{testenv.Bolt, testenv.Postgres} {
		b.Run(backend, func(b *testing.B) {
			e := testenv.New(b, testenv.Config{Backend: backend})
			const pw = "correct horse battery staple"
			slow, fast := e.MustUser(b, "slow@example.com", "UTC", core.PlanStarter), e.MustUser(b, "fast@example.com", "UTC", core.PlanStarter)
			phc := core.HashPassword(pw, core.DefaultPasswordParams)
			for _, u := range []struct {
				id, hash string
			}{{slow.ID, phc}, {fast.ID, core.HashPassword(pw, core.PasswordParams{Memory: 8, Time: 1, Threads: 1})}} {
				if _, err := e.Store.UpdateUser(e.Ctx, u.id, func(x *core.User) error {
					x.PasswordHash, x.EmailVerified = u.hash, true
					return nil
				}); err != nil {
					b.Fatal(err)
				}
			}
			client := core.Client{Address: "192.0.2.1", UserAgent: "Mozilla/5.0 (bench)"}
			b.Run("hash", func(b *testing.B) {
				for b.Loop() {
					if !core.VerifyPassword(pw, phc) {
						b.Fatal("the hash does not verify")
					}
				}
			})
			for _, c := range []struct{ name, email string }{{"signin", slow.Email}, {"rest", fast.Email}} {
				b.Run(c.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if _, err := e.Auth.SignIn(e.Ctx, c.email, pw, client); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

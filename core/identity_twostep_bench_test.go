package core_test

import (
	"testing"

	"github.com/pquerna/otp/totp"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// The cost of the second factor beside a sign-in's (docs/benchmarks.md,
// issue 30): a password sign-in, and the same with its code step, on bbolt
// with the fake clock moved one TOTP step per sign-in (a step is used once).
//
//	go test ./core -run '^$' -bench SignInSecondFactor -benchtime 40x -count 3

func BenchmarkSignInSecondFactor(b *testing.B) {
	for _, withCode := range []bool{false, true} {
		name := "password"
		if withCode {
			name = "password+totp"
		}
		b.Run(name, func(b *testing.B) {
			e := &authEnv{testenv.New(b, testenv.Config{})}
			tok, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: goodPassword}, browser)
			if err != nil {
				b.Fatal(err)
			}
			secret := ""
			if withCode {
				ctx := e.Acting(e.MustAuthenticate(b, tok.IDToken))
				en, err := e.Auth.BeginTOTP(ctx)
				if err != nil {
					b.Fatal(err)
				}
				code, _ := totp.GenerateCode(en.Secret, e.Clock.Now())
				if _, err := e.Auth.ConfirmTOTP(ctx, code); err != nil {
					b.Fatal(err)
				}
				secret = en.Secret
			}
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				e.Clock.Add(core.TOTPPeriod)
				b.StartTimer()
				t, err := e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, browser)
				if err != nil {
					b.Fatal(err)
				}
				if withCode {
					code, _ := totp.GenerateCode(secret, e.Clock.Now())
					if t, err = e.Auth.CompleteSecondFactor(e.Ctx, t.SecondFactor.Token, code, browser); err != nil {
						b.Fatal(err)
					}
				}
				if t.IDToken == "" {
					b.Fatal("no session")
				}
			}
		})
	}
}

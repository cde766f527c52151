package core_test

import (
	"fmt"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// An owner behind the NAT of a guesser shares the guesser's address: after
// the guesser's wrong passwords on the account, the right password needs a
// proof of work, which the owner's browser solves, instead of a wait of 15
// minutes (on main: auth/too-many-requests). The client-wide limit on any
// account stays a wait, proof or not.
func TestSignInBehindAGuessersNATNeedsAProofNotAWait(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, te *testenv.Env) {
		e := &authEnv{te}
		e.MustSignUp(t, "ann@example.com", goodPassword)
		nat := core.Client{Address: "203.0.113.9"}
		with := func(p core.Proof) core.Client { c := nat; c.Proof = p; return c }
		proof := func() core.Proof {
			ch, err := e.Auth.SignInChallenge(e.Ctx, "ann@example.com")
			if err != nil {
				t.Fatal(err)
			}
			return solve(ch)
		}
		for range core.LimitSignInAccountClient.Max {
			_, err := e.Auth.SignIn(e.Ctx, "ann@example.com", "wrong password", nat)
			wantCode(t, err, core.EWrongCredentials)
		}
		_, err := e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, nat)
		wantCode(t, err, core.EProofRequired)
		// A guess with a proof is still a guess.
		_, err = e.Auth.SignIn(e.Ctx, "ann@example.com", "wrong password", with(proof()))
		wantCode(t, err, core.EWrongCredentials)
		if _, err := e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, with(proof())); err != nil {
			t.Fatalf("the right password with a proof: %v", err)
		}
		// Signing in cleared the address's count on the account.
		if _, err := e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, nat); err != nil {
			t.Fatalf("the next sign-in: %v", err)
		}

		// 50 failures of the address on any accounts: then it waits.
		for i := core.LimitSignInAccountClient.Max + 1; i < core.LimitSignInClient.Max; i++ {
			_, err := e.Auth.SignIn(e.Ctx, fmt.Sprintf("guess%d@example.com", i), "wrong password", nat)
			wantCode(t, err, core.EWrongCredentials)
		}
		_, err = e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, with(proof()))
		if ra := wantCode(t, err, core.ETooManyRequests).RetryAfter; ra <= 0 || ra > core.LimitSignInClient.Window {
			t.Fatalf("Retry-After %v", ra)
		}
	})
}

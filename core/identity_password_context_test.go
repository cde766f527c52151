package core_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
)

// A password made of the service's name, the address, its local part or
// the account's name, with only digits and symbols around it, is refused
// at sign-up and at a change, naming the field (OWASP ASVS 5.0 6.2.11); one
// that only contains such a word among others is not.
func TestPasswordsOfContextWordsAreRefused(t *testing.T) {
	e := MustAuthEnv(t)
	for _, p := range []string{"Sendlater2026!", "  sendlater  12", "annabel@example.com", "Annabel1234", "2024Annabel Lee!"} {
		_, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "annabel@example.com", Password: p, Name: "Annabel Lee"}, browser)
		var ce *core.Error
		if !errors.As(err, &ce) || ce.Code != core.EWeakPassword || ce.Fields["password"] == "" {
			t.Fatalf("sign-up with %q: %v", p, err)
		}
	}
	if _, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "annabel@example.com", Password: "annabel keeps her letters", Name: "Annabel Lee"}, browser); err != nil {
		t.Fatalf("a password that only contains a word: %v", err)
	}
	tok, err := e.Auth.SignIn(e.Ctx, "annabel@example.com", "annabel keeps her letters", browser)
	if err != nil {
		t.Fatal(err)
	}
	id := e.MustAuthenticate(t, tok.IDToken)
	err = e.Auth.ChangePassword(e.Acting(id), "ANNABEL!!2025")
	if core.ErrorCode(err) != core.EWeakPassword {
		t.Fatalf("change to the address's name: %v", err)
	}
}

// A password is checked exactly as typed: no trimming, no case folding, no
// truncation within the 128 characters (OWASP ASVS 5.0 6.2.8).
func TestPasswordIsCheckedExactlyAsTyped(t *testing.T) {
	e := MustAuthEnv(t)
	typed := "  Plum Kettle Orbit " + strings.Repeat("é", 100) + "  "
	if _, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: typed}, browser); err != nil {
		t.Fatal(err)
	}
	for _, other := range []string{strings.TrimSpace(typed), strings.ToLower(typed), typed[:len(typed)-1]} {
		if _, err := e.Auth.SignIn(e.Ctx, "ann@example.com", other, browser); core.ErrorCode(err) != core.EWrongCredentials {
			t.Fatalf("sign-in with %q: %v", other, err)
		}
	}
	if _, err := e.Auth.SignIn(e.Ctx, "ann@example.com", typed, browser); err != nil {
		t.Fatalf("sign-in as typed: %v", err)
	}
}

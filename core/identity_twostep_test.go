package core_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/sendlater/sendlater/core"
)

// twoFactor is an account with the authenticator app on.
type twoFactor struct {
	uid, email, secret string
	codes              []string
}

// mustEnrol signs email up and turns its authenticator app on, as the
// settings page does, computing the codes as the app would.
func (e *authEnv) mustEnrol(t *testing.T, email string) twoFactor {
	t.Helper()
	tok := e.MustSignUp(t, email, goodPassword)
	ctx := e.Acting(e.MustAuthenticate(t, tok.IDToken))
	en, err := e.Auth.BeginTOTP(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(en.URI, "otpauth://totp/") || !strings.Contains(en.URI, "secret="+en.Secret) {
		t.Fatalf("enrolment %+v", en)
	}
	// A wrong code turns nothing on.
	if _, err := e.Auth.ConfirmTOTP(ctx, "000000x"); core.ErrorCode(err) != core.EValidation {
		t.Fatalf("confirm with a malformed code: %v", err)
	}
	rc, err := e.Auth.ConfirmTOTP(ctx, e.code(t, en.Secret, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(rc.Codes) != core.RecoveryCodeCount {
		t.Fatalf("%d recovery codes", len(rc.Codes))
	}
	// 24 base32 characters: 120 bits, over the 112 that lets a fast hash
	// keep them (OWASP ASVS 5.0 6.5.2).
	for _, c := range rc.Codes {
		if !recoveryCodeShape.MatchString(c) {
			t.Fatalf("recovery code %q is not six groups of four base32 characters", c)
		}
	}
	if p := e.nextEmail(t, email); !strings.Contains(p.Subject, "now asks for a code") {
		t.Fatalf("enrolment email %q", p.Subject)
	}
	return twoFactor{uid: tok.User.ID, email: email, secret: en.Secret, codes: rc.Codes}
}

var recoveryCodeShape = regexp.MustCompile(`^[a-z2-7]{4}(-[a-z2-7]{4}){5}$`)

// code is the app's code d steps from now.
func (e *authEnv) code(t *testing.T, secret string, d int) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, e.Clock.Now().Add(time.Duration(d)*core.TOTPPeriod))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// challenge signs in with the password and wants a challenge, no session.
func (e *authEnv) challenge(t *testing.T, email string) string {
	t.Helper()
	tok, err := e.Auth.SignIn(e.Ctx, email, goodPassword, browser)
	if err != nil {
		t.Fatal(err)
	}
	wantChallenge(t, tok)
	return tok.SecondFactor.Token
}

func wantChallenge(t *testing.T, tok *core.Tokens) {
	t.Helper()
	if tok.SecondFactor == nil || tok.SecondFactor.Token == "" || tok.IDToken != "" || tok.RefreshToken != "" || tok.User != nil {
		t.Fatalf("a sign-in with a second factor gave %+v", tok)
	}
}

func TestTOTPWindowAndReplay(t *testing.T) {
	e := MustAuthEnv(t)
	a := e.mustEnrol(t, "ann@example.com")
	e.Clock.Add(10 * core.TOTPPeriod)

	// Two steps ago is outside the window.
	_, err := e.Auth.CompleteSecondFactor(e.Ctx, e.challenge(t, a.email), e.code(t, a.secret, -2), browser)
	wantCode(t, err, core.EWrongCredentials)
	// The step before is in it (a clock 30 seconds late).
	prev := e.code(t, a.secret, -1)
	tok, err := e.Auth.CompleteSecondFactor(e.Ctx, e.challenge(t, a.email), prev, browser)
	if err != nil {
		t.Fatalf("the previous step's code: %v", err)
	}
	if tok.IDToken == "" || tok.RefreshToken == "" || tok.User.ID != a.uid {
		t.Fatalf("no session after the code: %+v", tok)
	}
	e.MustAuthenticate(t, tok.IDToken)
	// The same code again, within its window: refused.
	_, err = e.Auth.CompleteSecondFactor(e.Ctx, e.challenge(t, a.email), prev, browser)
	wantCode(t, err, core.EWrongCredentials)
	// The next step's code (a clock 30 seconds early) works; after it, the
	// current step's code, older than one used, does not.
	if _, err := e.Auth.CompleteSecondFactor(e.Ctx, e.challenge(t, a.email), e.code(t, a.secret, 1), browser); err != nil {
		t.Fatalf("the next step's code: %v", err)
	}
	_, err = e.Auth.CompleteSecondFactor(e.Ctx, e.challenge(t, a.email), e.code(t, a.secret, 0), browser)
	wantCode(t, err, core.EWrongCredentials)
	// Later steps work again.
	e.Clock.Add(3 * core.TOTPPeriod)
	if _, err := e.Auth.CompleteSecondFactor(e.Ctx, e.challenge(t, a.email), e.code(t, a.secret, 0), browser); err != nil {
		t.Fatalf("a later code: %v", err)
	}
}

func TestSecondFactorChallengeIsShortLivedAndSingleUse(t *testing.T) {
	e := MustAuthEnv(t)
	a := e.mustEnrol(t, "ann@example.com")
	e.Clock.Add(2 * core.TOTPPeriod)

	// Used once.
	ch := e.challenge(t, a.email)
	if _, err := e.Auth.CompleteSecondFactor(e.Ctx, ch, e.code(t, a.secret, 0), browser); err != nil {
		t.Fatal(err)
	}
	e.Clock.Add(2 * core.TOTPPeriod)
	_, err := e.Auth.CompleteSecondFactor(e.Ctx, ch, e.code(t, a.secret, 0), browser)
	wantCode(t, err, core.EInvalidToken)

	// Expires.
	ch = e.challenge(t, a.email)
	e.Clock.Add(core.SecondFactorTTL)
	_, err = e.Auth.CompleteSecondFactor(e.Ctx, ch, e.code(t, a.secret, 0), browser)
	wantCode(t, err, core.EInvalidToken)

	// Takes SecondFactorAttempts wrong codes, then even the right one is
	// refused: the guesser must sign in with the password again.
	e.Clock.Add(core.LimitSignInAccount.Window)
	ch = e.challenge(t, a.email)
	for range core.SecondFactorAttempts {
		_, err = e.Auth.CompleteSecondFactor(e.Ctx, ch, "000000", browser)
		wantCode(t, err, core.EWrongCredentials)
	}
	_, err = e.Auth.CompleteSecondFactor(e.Ctx, ch, e.code(t, a.secret, 0), browser)
	wantCode(t, err, core.EInvalidToken)

	// Not an email action: the action endpoints do not know it.
	e.Clock.Add(core.LimitSignInAccount.Window)
	ch = e.challenge(t, a.email)
	_, err = e.Auth.CheckActionCode(e.Ctx, ch)
	wantCode(t, err, core.EInvalidActionCode)
	_, err = e.Auth.ApplyActionCode(e.Ctx, ch)
	wantCode(t, err, core.EInvalidActionCode)
	err = e.Auth.ConfirmPasswordReset(e.Ctx, ch, "another long passphrase")
	wantCode(t, err, core.EInvalidActionCode)
	// An empty or unknown token.
	_, err = e.Auth.CompleteSecondFactor(e.Ctx, "", "123456", browser)
	wantFields(t, err, map[string]string{"token": "Please sign in first"})
	_, err = e.Auth.CompleteSecondFactor(e.Ctx, "nope", "123456", browser)
	wantCode(t, err, core.EInvalidToken)
}

func TestRecoveryCodesAreSingleUse(t *testing.T) {
	e := MustAuthEnv(t)
	a := e.mustEnrol(t, "ann@example.com")
	// Typed in upper case, with spaces instead of dashes.
	typed := strings.ToUpper(strings.ReplaceAll(a.codes[3], "-", " "))
	tok, err := e.Auth.CompleteSecondFactor(e.Ctx, e.challenge(t, a.email), typed, browser)
	if err != nil {
		t.Fatalf("a recovery code: %v", err)
	}
	if !tok.UsedRecoveryCode || tok.RecoveryCodesLeft != 9 || tok.IDToken == "" || tok.Session.RecoveryCodes != 9 {
		t.Fatalf("after a recovery code: %+v", tok)
	}
	p := e.nextEmail(t, a.email)
	if !strings.Contains(p.Subject, "recovery code was used") || !strings.Contains(p.Text, "9 recovery codes remain") {
		t.Fatalf("recovery email %q: %s", p.Subject, p.Text)
	}
	_, err = e.Auth.CompleteSecondFactor(e.Ctx, e.challenge(t, a.email), a.codes[3], browser)
	wantCode(t, err, core.EWrongCredentials)

	// Regenerating (recent login) voids the old ones.
	ctx := e.Acting(e.MustAuthenticate(t, tok.IDToken))
	rc, err := e.Auth.RegenerateRecoveryCodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Auth.CompleteSecondFactor(e.Ctx, e.challenge(t, a.email), a.codes[0], browser)
	wantCode(t, err, core.EWrongCredentials)
	if _, err := e.Auth.CompleteSecondFactor(e.Ctx, e.challenge(t, a.email), rc.Codes[0], browser); err != nil {
		t.Fatalf("a new recovery code: %v", err)
	}
	// Not after the recent login window.
	e.Clock.Add(core.RecentLoginWindow + time.Second)
	_, err = e.Auth.RegenerateRecoveryCodes(ctx)
	wantCode(t, err, core.ERequiresRecentLogin)
	err = e.Auth.DisableTOTP(ctx)
	wantCode(t, err, core.ERequiresRecentLogin)
}

// Wrong codes follow the sign-in rule: a proof of work once the account
// is under attack, never a lock on the owner.
func TestWrongCodesNeedAProofNeverLockTheOwner(t *testing.T) {
	e := MustAuthEnv(t)
	a := e.mustEnrol(t, "ann@example.com")
	e.Clock.Add(2 * core.TOTPPeriod)
	for i := range core.LimitSignInAccount.Max {
		c := core.Client{Address: "198.51.100." + string(rune('a'+i))}
		tok, err := e.Auth.SignIn(e.Ctx, a.email, goodPassword, c)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Auth.CompleteSecondFactor(e.Ctx, tok.SecondFactor.Token, "000000", c)
		wantCode(t, err, core.EWrongCredentials)
	}
	// The account is under attack: the password step and the code step
	// each need a proof, which the owner's browser solves.
	_, err := e.Auth.SignIn(e.Ctx, a.email, goodPassword, browser)
	wantCode(t, err, core.EProofRequired)
	withProof := func() core.Client {
		pc, err := e.Auth.SignInChallenge(e.Ctx, a.email)
		if err != nil {
			t.Fatal(err)
		}
		c := browser
		c.Proof = solve(pc)
		return c
	}
	tok, err := e.Auth.SignIn(e.Ctx, a.email, goodPassword, withProof())
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Auth.CompleteSecondFactor(e.Ctx, tok.SecondFactor.Token, e.code(t, a.secret, 0), browser)
	wantCode(t, err, core.EProofRequired)
	if _, err := e.Auth.CompleteSecondFactor(e.Ctx, tok.SecondFactor.Token, e.code(t, a.secret, 0), withProof()); err != nil {
		t.Fatalf("the owner with a proof: %v", err)
	}
}

// The gate cannot be skipped: every path that starts a session asks for the
// second factor, and nothing else turns it off but the owner or the
// operator's audited reset.
func TestSecondFactorGateEveryPath(t *testing.T) {
	e := MustAuthEnv(t)
	a := e.mustEnrol(t, "ann@example.com")
	e.MustVerify(t, a.uid)
	e.Clock.Add(2 * core.TOTPPeriod)

	t.Run("password", func(t *testing.T) { e.challenge(t, a.email) })
	t.Run("social", func(t *testing.T) {
		p := core.ProviderProfile{Provider: core.ProviderGoogle, Subject: "g-1", Email: a.email, EmailVerified: true}
		tok, err := e.Social.SignIn(e.Ctx, p, browser)
		if err != nil {
			t.Fatal(err)
		}
		wantChallenge(t, tok)
		// Again, now that the provider is linked.
		tok, err = e.Social.SignIn(e.Ctx, p, browser)
		if err != nil {
			t.Fatal(err)
		}
		wantChallenge(t, tok)
	})
	t.Run("reset", func(t *testing.T) {
		if err := e.Auth.RequestPasswordReset(e.Ctx, a.email, browser); err != nil {
			t.Fatal(err)
		}
		code := actionCode(t, e.nextEmail(t, a.email), core.ModeResetPassword)
		if err := e.Auth.ConfirmPasswordReset(e.Ctx, code, "another long passphrase"); err != nil {
			t.Fatal(err)
		}
		tok, err := e.Auth.SignIn(e.Ctx, a.email, "another long passphrase", browser)
		if err != nil {
			t.Fatal(err)
		}
		wantChallenge(t, tok)
	})
	t.Run("operator", func(t *testing.T) {
		ctx := e.Acting(&core.Identity{UserID: a.uid, Operator: "root"})
		_, err := e.Auth.BeginTOTP(ctx)
		wantCode(t, err, core.EOperatorNotAllowed)
		wantCode(t, e.Auth.DisableTOTP(ctx), core.EOperatorNotAllowed)
		_, err = e.Auth.RegenerateRecoveryCodes(ctx)
		wantCode(t, err, core.EOperatorNotAllowed)
	})
	t.Run("access token", func(t *testing.T) {
		// A token never is a recent login: it cannot turn the factor off.
		ctx := e.Acting(&core.Identity{UserID: a.uid, TokenID: "t1", Scopes: []string{core.ScopeAccount}})
		wantCode(t, e.Auth.DisableTOTP(ctx), core.ERequiresRecentLogin)
	})
	u, err := e.Store.FindUserByID(e.Ctx, a.uid)
	if err != nil || !u.HasSecondFactor() {
		t.Fatalf("the second factor went: %+v %v", u, err)
	}
}

// A claimed account comes without its maker's second factor: a stranger's
// app cannot lock the address's owner out.
func TestClaimRemovesTheMakersSecondFactor(t *testing.T) {
	e := MustAuthEnv(t)
	a := e.mustEnrol(t, "ann@example.com") // never verified
	tok, err := e.Social.SignIn(e.Ctx, core.ProviderProfile{Provider: core.ProviderGoogle, Subject: "g-1", Email: a.email, EmailVerified: true}, browser)
	if err != nil {
		t.Fatal(err)
	}
	if tok.SecondFactor != nil || tok.IDToken == "" || tok.User.ID != a.uid || tok.User.HasSecondFactor() {
		t.Fatalf("claim: %+v", tok)
	}
}

func TestDisableTOTP(t *testing.T) {
	e := MustAuthEnv(t)
	a := e.mustEnrol(t, "ann@example.com")
	tok, err := e.Auth.CompleteSecondFactor(e.Ctx, e.challenge(t, a.email), a.codes[0], browser)
	if err != nil {
		t.Fatal(err)
	}
	e.nextEmail(t, a.email) // the recovery code's notice
	ctx := e.Acting(e.MustAuthenticate(t, tok.IDToken))
	if err := e.Auth.DisableTOTP(ctx); err != nil {
		t.Fatal(err)
	}
	if p := e.nextEmail(t, a.email); !strings.Contains(p.Subject, "no longer asks") {
		t.Fatalf("disable email %q", p.Subject)
	}
	tok, err = e.Auth.SignIn(e.Ctx, a.email, goodPassword, browser)
	if err != nil || tok.IDToken == "" || tok.SecondFactor != nil {
		t.Fatalf("sign-in after disabling: %+v %v", tok, err)
	}
}

// The operator's reset (users reset-2fa) removes the app and the codes,
// emails the owner and is audited; the password alone signs in after it.
func TestOperatorResetsTheSecondFactor(t *testing.T) {
	e := MustAuthEnv(t)
	a := e.mustEnrol(t, "ann@example.com")
	op := core.WithOperator(e.Ctx, "alice (uid 1000)")
	u, err := e.Admin.ResetSecondFactor(op, "ANN@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if u.HasSecondFactor() || u.TOTPSecret != "" || u.RecoveryCodes != nil {
		t.Fatalf("after the reset: %+v", u)
	}
	if p := e.nextEmail(t, a.email); !strings.Contains(p.Subject, "second factor") || !strings.Contains(p.Text, "operator") {
		t.Fatalf("reset email %q: %s", p.Subject, p.Text)
	}
	tok, err := e.Auth.SignIn(e.Ctx, a.email, goodPassword, browser)
	if err != nil || tok.IDToken == "" {
		t.Fatalf("sign-in after the reset: %+v %v", tok, err)
	}
	log, err := e.Admin.ListAudit(e.Ctx, e.Clock.Now().AddDate(0, 0, -1), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 || log[0].Action != "users.reset-2fa" || log[0].Actor != "alice (uid 1000)" || log[0].Target != a.email ||
		!strings.Contains(log[0].Detail, "10 recovery codes") {
		t.Fatalf("audit log: %+v", log)
	}
}

package core_test

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

// These tests run the identity service over a real bbolt store, the real
// email templates and SMTP transport, and a test SMTP server; they read the
// emails back and follow their links.

const baseURL = testenv.DefaultBaseURL

// authEnv is the identity service over the test environment.
type authEnv struct{ *testenv.Env }

func MustAuthEnv(tb testing.TB) *authEnv {
	tb.Helper()
	return &authEnv{testenv.New(tb, testenv.Config{})}
}

var browser = core.Client{Address: "192.0.2.1", UserAgent: "test browser"}

// MustSignUp creates an account with a password and returns its tokens,
// taking the verification email.
func (e *authEnv) MustSignUp(tb testing.TB, email, password string) *core.Tokens {
	tb.Helper()
	tok, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: email, Password: password, Name: "Ann"}, browser)
	if err != nil {
		tb.Fatalf("sign up %s: %v", email, err)
	}
	e.nextEmail(tb, email)
	return tok
}

func (e *authEnv) MustAuthenticate(tb testing.TB, bearer string) *core.Identity {
	tb.Helper()
	id, err := e.Auth.Authenticate(e.Ctx, bearer)
	if err != nil {
		tb.Fatalf("authenticate: %v", err)
	}
	return id
}

// nextEmail returns the next email received, which must go to to and have
// both a text and an HTML part.
func (e *authEnv) nextEmail(tb testing.TB, to string) *smtptest.Parsed {
	tb.Helper()
	p, _ := e.Next(tb, to)
	if p.Text == "" || p.HTML == "" {
		tb.Fatalf("email %q lacks a text or an HTML part", p.Subject)
	}
	return p
}

// actionCode returns the oobCode of the email's action link of mode, which
// must be in both parts.
func actionCode(tb testing.TB, p *smtptest.Parsed, mode string) string {
	tb.Helper()
	link := p.Link(baseURL + "/firebase-action?")
	if link == "" {
		tb.Fatalf("email %q has no action link: %v", p.Subject, p.Links())
	}
	if !strings.Contains(p.Text, link) {
		tb.Fatalf("the text part lacks the link %s", link)
	}
	u, err := url.Parse(link)
	if err != nil {
		tb.Fatal(err)
	}
	if got := u.Query().Get("mode"); got != mode {
		tb.Fatalf("link mode %q, want %q (%s)", got, mode, link)
	}
	code := u.Query().Get("oobCode")
	if len(code) < 22 { // 128 bits in base64
		tb.Fatalf("oobCode %q is too short", code)
	}
	return code
}

func wantCode(tb testing.TB, err error, code string) *core.Error {
	tb.Helper()
	if got := core.ErrorCode(err); got != code {
		tb.Fatalf("error %v, want code %q", err, code)
	}
	e, _ := core.AsError(err)
	return e
}

func wantFields(tb testing.TB, err error, fields map[string]string) {
	tb.Helper()
	e := wantCode(tb, err, core.EValidation)
	if len(e.Fields) != len(fields) {
		tb.Fatalf("fields %v, want %v", e.Fields, fields)
	}
	for k, v := range fields {
		if e.Fields[k] != v {
			tb.Fatalf("fields %v, want %v", e.Fields, fields)
		}
	}
}

const goodPassword = "a long and unusual passphrase"

func TestSignUpValidation(t *testing.T) {
	e := MustAuthEnv(t)
	tests := []struct {
		name string
		in   core.SignUpInput
		want map[string]string
	}{
		{"empty", core.SignUpInput{}, map[string]string{"email": "Please enter your email", "password": "Please enter a password"}},
		{"blank email", core.SignUpInput{Email: "  ", Password: goodPassword}, map[string]string{"email": "Please enter your email"}},
		{"bad email", core.SignUpInput{Email: "ann@", Password: goodPassword}, map[string]string{"email": "Please enter a valid email address"}},
		{"named email", core.SignUpInput{Email: "Ann <ann@example.com>", Password: goodPassword}, map[string]string{"email": "Please enter a valid email address"}},
		{"no password", core.SignUpInput{Email: "ann@example.com"}, map[string]string{"password": "Please enter a password"}},
		{"two-line name", core.SignUpInput{Email: "ann@example.com", Password: goodPassword, Name: "a\nb"}, map[string]string{"name": "The name must be on one line"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.Auth.SignUp(e.Ctx, tt.in, browser)
			wantFields(t, err, tt.want)
		})
	}
	for _, pw := range []string{"short", "password1", strings.Repeat("p", 129)} {
		_, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: pw}, browser)
		if wantCode(t, err, core.EWeakPassword).Fields["password"] == "" {
			t.Errorf("weak password %q: no message in the password field", pw)
		}
	}
	e.NoMoreEmail(t)
}

func TestSignUpCreatesAccountAndVerifiesEmail(t *testing.T) {
	e := MustAuthEnv(t)
	tok, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{
		Email: " Ann@Example.com ", Password: goodPassword, Name: " Ann ", Timezone: "Europe/Berlin",
	}, browser)
	if err != nil {
		t.Fatal(err)
	}
	u := tok.User
	if u.Email != "Ann@Example.com" || u.Name != "Ann" || u.Timezone != "Europe/Berlin" ||
		!slices.Equal(u.Providers, []string{core.ProviderPassword}) || u.EmailVerified {
		t.Fatalf("user %+v", u)
	}
	if !strings.HasPrefix(u.PasswordHash, "$argon2id$") {
		t.Fatalf("password stored as %q", u.PasswordHash)
	}
	if tok.IDToken == "" || tok.RefreshToken == "" || !tok.ExpiresAt.Equal(e.Clock.Now().Add(time.Hour)) {
		t.Fatalf("tokens %+v", tok)
	}
	id := e.MustAuthenticate(t, tok.IDToken)
	if id.UserID != u.ID || id.SessionID == "" || e.Auth.RequireRecentLogin(e.Acting(id)) != nil {
		t.Fatalf("identity %+v", id)
	}

	mail := e.nextEmail(t, "Ann@Example.com")
	code := actionCode(t, mail, core.ModeVerifyEmail)
	info, err := e.Auth.CheckActionCode(e.Ctx, code)
	if err != nil || *info != (core.ActionInfo{Mode: core.ModeVerifyEmail, Email: "Ann@Example.com"}) {
		t.Fatalf("check: %+v, %v", info, err)
	}
	if _, err := e.Auth.ApplyActionCode(e.Ctx, code); err != nil {
		t.Fatal(err)
	}
	if u, _ := e.Auth.User(e.Acting(id)); !u.EmailVerified {
		t.Fatal("the email is not verified after the link")
	}
	_, err = e.Auth.ApplyActionCode(e.Ctx, code)
	wantCode(t, err, core.EInvalidActionCode)
	_, err = e.Auth.CheckActionCode(e.Ctx, code)
	wantCode(t, err, core.EInvalidActionCode)

	// The same address in another case is in use.
	_, err = e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.COM", Password: goodPassword}, browser)
	if wantCode(t, err, core.EEmailInUse).Fields["email"] == "" {
		t.Fatal("email in use: no message in the email field")
	}
	e.NoMoreEmail(t)
}

func TestSignUpIgnoresUnknownTimezone(t *testing.T) {
	e := MustAuthEnv(t)
	for _, tz := range []string{"Mars/Olympus", "Local", "../../etc/passwd"} {
		tok, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "tz" + core.RandomString(5) + "@example.com", Password: goodPassword, Timezone: tz}, browser)
		if err != nil {
			t.Fatal(err)
		}
		if tok.User.Timezone != "" {
			t.Errorf("time zone %q stored as %q", tz, tok.User.Timezone)
		}
	}
}

func TestSignInOneAnswerForUnknownEmailAndWrongPassword(t *testing.T) {
	e := MustAuthEnv(t)
	e.MustSignUp(t, "ann@example.com", goodPassword)

	_, err := e.Auth.SignIn(e.Ctx, "", "", browser)
	wantFields(t, err, map[string]string{"email": "Please enter your email", "password": "Please enter a password"})

	_, errWrong := e.Auth.SignIn(e.Ctx, "ann@example.com", "not the password", browser)
	_, errUnknown := e.Auth.SignIn(e.Ctx, "nobody@example.com", goodPassword, browser)
	w, u := wantCode(t, errWrong, core.EWrongCredentials), wantCode(t, errUnknown, core.EWrongCredentials)
	if w.Message != u.Message {
		t.Fatalf("messages differ: %q and %q", w.Message, u.Message)
	}

	tok, err := e.Auth.SignIn(e.Ctx, "ANN@example.com", goodPassword, browser)
	if err != nil {
		t.Fatal(err)
	}
	if id := e.MustAuthenticate(t, tok.IDToken); id.UserID != tok.User.ID {
		t.Fatalf("identity %+v", id)
	}
}

// TestSignInSameTiming checks that an unknown email costs the same argon2id
// work as a wrong password, with the real parameters.
func TestSignInSameTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("hashes with the real parameters")
	}
	e := MustAuthEnv(t)
	e.Auth.PasswordParams = core.DefaultPasswordParams
	e.MustSignUp(t, "ann@example.com", goodPassword)
	// Interleaved, and the fastest of each: the least disturbed by whatever
	// else the machine runs, so the comparison is of the work done.
	time1 := func(email string) time.Duration {
		start := time.Now()
		_, err := e.Auth.SignIn(e.Ctx, email, "wrong password!", core.Client{})
		wantCode(t, err, core.EWrongCredentials)
		return time.Since(start)
	}
	wrong, unknown := time.Hour, time.Hour
	for range 9 {
		wrong = min(wrong, time1("ann@example.com"))
		unknown = min(unknown, time1("nobody@example.com"))
	}
	if ratio := float64(unknown) / float64(wrong); ratio < 0.5 || ratio > 2 {
		t.Fatalf("unknown email %v, wrong password %v: the timing tells them apart", unknown, wrong)
	}
}

func TestSignInRateLimitPerAccount(t *testing.T) {
	e := MustAuthEnv(t)
	e.MustSignUp(t, "ann@example.com", goodPassword)
	for i := range core.MaxAccountFailures {
		// Each from its own address: the account limit alone applies.
		c := core.Client{Address: "198.51.100." + string(rune('a'+i))}
		_, err := e.Auth.SignIn(e.Ctx, "ann@example.com", "wrong password", c)
		wantCode(t, err, core.EWrongCredentials)
		e.Clock.Add(time.Minute)
	}
	// Blocked even with the right password, until the first failure is 15
	// minutes old.
	_, err := e.Auth.SignIn(e.Ctx, "Ann@Example.com", goodPassword, browser)
	if ra := wantCode(t, err, core.ETooManyRequests).RetryAfter; ra != 5*time.Minute {
		t.Fatalf("Retry-After %v, want 5m", ra)
	}
	// A success clears the account's failures; re-auth failures count too.
	tok := signInAt(t, e, 5*time.Minute)
	id := e.MustAuthenticate(t, tok.IDToken)
	for range core.MaxAccountFailures {
		_, err = e.Auth.Reauth(e.Acting(id), "wrong", core.Client{})
		wantCode(t, err, core.EWrongCredentials)
	}
	_, err = e.Auth.Reauth(e.Acting(id), goodPassword, core.Client{})
	wantCode(t, err, core.ETooManyRequests)
	_, err = e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, browser)
	wantCode(t, err, core.ETooManyRequests)

	// An unknown address is limited the same way, so the limit tells nothing.
	for range core.MaxAccountFailures {
		_, err := e.Auth.SignIn(e.Ctx, "nobody@example.com", "wrong password", core.Client{})
		wantCode(t, err, core.EWrongCredentials)
	}
	_, err = e.Auth.SignIn(e.Ctx, "nobody@example.com", "wrong password", core.Client{})
	wantCode(t, err, core.ETooManyRequests)
}

// signInAt moves the clock by d and signs ann in.
func signInAt(t *testing.T, e *authEnv, d time.Duration) *core.Tokens {
	t.Helper()
	e.Clock.Add(d)
	tok, err := e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, browser)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestSignInRateLimitPerAddress(t *testing.T) {
	e := MustAuthEnv(t)
	e.MustSignUp(t, "ann@example.com", goodPassword)
	attacker := core.Client{Address: "203.0.113.9"}
	for i := range core.MaxAddressFailures {
		_, err := e.Auth.SignIn(e.Ctx, "user"+core.RandomString(6)+"@example.com", "guess"+string(rune('a'+i%26)), attacker)
		wantCode(t, err, core.EWrongCredentials)
	}
	_, err := e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, attacker)
	if ra := wantCode(t, err, core.ETooManyRequests).RetryAfter; ra <= 0 || ra > core.FailureWindow {
		t.Fatalf("Retry-After %v", ra)
	}
	if _, err := e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, core.Client{Address: "192.0.2.77"}); err != nil {
		t.Fatalf("another address is blocked too: %v", err)
	}
	e.Clock.Add(core.FailureWindow)
	if _, err := e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, attacker); err != nil {
		t.Fatalf("still blocked after the window: %v", err)
	}
}

func TestIDTokenExpiresAndSignOutRevokes(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	e.Clock.Add(59 * time.Minute)
	id := e.MustAuthenticate(t, tok.IDToken)
	e.Clock.Add(time.Minute)
	_, err := e.Auth.Authenticate(e.Ctx, tok.IDToken)
	wantCode(t, err, core.EInvalidToken)

	fresh, err := e.Auth.Refresh(e.Ctx, tok.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Auth.SignOut(e.Acting(id)); err != nil {
		t.Fatal(err)
	}
	_, err = e.Auth.Authenticate(e.Ctx, fresh.IDToken)
	wantCode(t, err, core.EInvalidToken)
	_, err = e.Auth.Refresh(e.Ctx, fresh.RefreshToken)
	wantCode(t, err, core.EInvalidToken)
	for _, bad := range []string{"", "garbage", fresh.IDToken + "x", core.AccessTokenPrefix + "unknown"} {
		_, err = e.Auth.Authenticate(e.Ctx, bad)
		wantCode(t, err, core.EInvalidToken)
	}
}

func TestRefreshRotatesAndReuseRevokesTheSession(t *testing.T) {
	e := MustAuthEnv(t)
	first := e.MustSignUp(t, "ann@example.com", goodPassword)
	other := signInAt(t, e, 0) // another browser

	second, err := e.Auth.Refresh(e.Ctx, first.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if second.RefreshToken == first.RefreshToken || second.User.Email != "ann@example.com" {
		t.Fatalf("refresh %+v", second)
	}
	third, err := e.Auth.Refresh(e.Ctx, second.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	// The first token again: a copy exists, so the whole session ends.
	_, err = e.Auth.Refresh(e.Ctx, first.RefreshToken)
	wantCode(t, err, core.EInvalidToken)
	_, err = e.Auth.Refresh(e.Ctx, third.RefreshToken)
	wantCode(t, err, core.EInvalidToken)
	_, err = e.Auth.Authenticate(e.Ctx, third.IDToken)
	wantCode(t, err, core.EInvalidToken)
	// Other sessions go on.
	e.MustAuthenticate(t, other.IDToken)
	_, err = e.Auth.Refresh(e.Ctx, "")
	wantCode(t, err, core.EInvalidToken)
}

func TestSessionEndsWhenIdle(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	e.Clock.Add(core.SessionIdleTTL - time.Minute)
	tok, err := e.Auth.Refresh(e.Ctx, tok.RefreshToken) // use renews the session
	if err != nil {
		t.Fatal(err)
	}
	e.Clock.Add(core.SessionIdleTTL - time.Minute)
	if _, err := e.Auth.Refresh(e.Ctx, tok.RefreshToken); err != nil {
		t.Fatal(err)
	}
	e.Clock.Add(core.SessionIdleTTL)
	_, err = e.Auth.Refresh(e.Ctx, tok.RefreshToken)
	wantCode(t, err, core.EInvalidToken)
}

func TestReauthMakesALoginRecent(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	e.Clock.Add(core.RecentLoginWindow + time.Second)
	id := e.MustAuthenticate(t, tok.IDToken)
	wantCode(t, e.Auth.RequireRecentLogin(e.Acting(id)), core.ERequiresRecentLogin)

	_, err := e.Auth.Reauth(e.Acting(id), "", browser)
	wantFields(t, err, map[string]string{"password": "Please enter your password"})
	_, err = e.Auth.Reauth(e.Acting(id), "wrong password", browser)
	wantCode(t, err, core.EWrongCredentials)
	re, err := e.Auth.Reauth(e.Acting(id), goodPassword, browser)
	if err != nil {
		t.Fatal(err)
	}
	if re.RefreshToken != "" {
		t.Fatal("re-auth replaced the refresh token")
	}
	// Both the new token and the old one now act for a recent login: the
	// session holds the time.
	for _, bearer := range []string{re.IDToken, tok.IDToken} {
		if err := e.Auth.RequireRecentLogin(e.Acting(e.MustAuthenticate(t, bearer))); err != nil {
			t.Fatal(err)
		}
	}
}

func TestChangePassword(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	other := signInAt(t, e, 0)
	id := e.MustAuthenticate(t, tok.IDToken)
	_, pat, err := e.Auth.CreateAccessToken(e.Acting(id), "laptop")
	if err != nil {
		t.Fatal(err)
	}

	wantFields(t, e.Auth.ChangePassword(e.Acting(id), ""), map[string]string{"password": "Please enter a password"})
	wantCode(t, e.Auth.ChangePassword(e.Acting(id), "password"), core.EWeakPassword)
	e.Clock.Add(core.RecentLoginWindow + time.Second)
	wantCode(t, e.Auth.ChangePassword(e.Acting(id), "another fine passphrase"), core.ERequiresRecentLogin)
	if _, err := e.Auth.Reauth(e.Acting(id), goodPassword, browser); err != nil {
		t.Fatal(err)
	}
	id = e.MustAuthenticate(t, tok.IDToken)
	if err := e.Auth.ChangePassword(e.Acting(id), "another fine passphrase"); err != nil {
		t.Fatal(err)
	}
	e.MustAuthenticate(t, tok.IDToken) // this session goes on
	_, err = e.Auth.Authenticate(e.Ctx, other.IDToken)
	wantCode(t, err, core.EInvalidToken)
	_, err = e.Auth.Refresh(e.Ctx, other.RefreshToken)
	wantCode(t, err, core.EInvalidToken)
	_, err = e.Auth.Authenticate(e.Ctx, pat)
	wantCode(t, err, core.EInvalidToken)
	_, err = e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, browser)
	wantCode(t, err, core.EWrongCredentials)
	if _, err := e.Auth.SignIn(e.Ctx, "ann@example.com", "another fine passphrase", browser); err != nil {
		t.Fatal(err)
	}
	e.NoMoreEmail(t)
}

func TestPasswordReset(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)

	wantFields(t, e.Auth.RequestPasswordReset(e.Ctx, "", browser), map[string]string{"email": "Please enter your email"})
	if err := e.Auth.RequestPasswordReset(e.Ctx, "nobody@example.com", browser); err != nil {
		t.Fatalf("unknown email: %v", err)
	}
	e.NoMoreEmail(t)
	if err := e.Auth.RequestPasswordReset(e.Ctx, "ANN@example.com", browser); err != nil {
		t.Fatal(err)
	}
	code := actionCode(t, e.nextEmail(t, "ann@example.com"), core.ModeResetPassword)

	info, err := e.Auth.CheckActionCode(e.Ctx, code)
	if err != nil || *info != (core.ActionInfo{Mode: core.ModeResetPassword, Email: "ann@example.com"}) {
		t.Fatalf("check: %+v %v", info, err)
	}
	// A reset code is not applied by the action page.
	_, err = e.Auth.ApplyActionCode(e.Ctx, code)
	wantCode(t, err, core.EInvalidActionCode)
	// A weak password leaves the code usable.
	wantCode(t, e.Auth.ConfirmPasswordReset(e.Ctx, code, "qwerty123"), core.EWeakPassword)
	if err := e.Auth.ConfirmPasswordReset(e.Ctx, code, "a brand new passphrase"); err != nil {
		t.Fatal(err)
	}
	_, err = e.Auth.Authenticate(e.Ctx, tok.IDToken)
	wantCode(t, err, core.EInvalidToken)
	wantCode(t, e.Auth.ConfirmPasswordReset(e.Ctx, code, "yet another passphrase"), core.EInvalidActionCode)
	if _, err := e.Auth.SignIn(e.Ctx, "ann@example.com", "a brand new passphrase", browser); err != nil {
		t.Fatal(err)
	}
	wantCode(t, e.Auth.ConfirmPasswordReset(e.Ctx, "made-up-code", "yet another passphrase"), core.EInvalidActionCode)

	// A link is valid for one hour.
	if err := e.Auth.RequestPasswordReset(e.Ctx, "ann@example.com", browser); err != nil {
		t.Fatal(err)
	}
	code = actionCode(t, e.nextEmail(t, "ann@example.com"), core.ModeResetPassword)
	e.Clock.Add(core.ResetCodeTTL)
	_, err = e.Auth.CheckActionCode(e.Ctx, code)
	wantCode(t, err, core.EExpiredActionCode)
	wantCode(t, e.Auth.ConfirmPasswordReset(e.Ctx, code, "yet another passphrase"), core.EExpiredActionCode)
}

func TestPasswordResetEmailsAreLimited(t *testing.T) {
	e := MustAuthEnv(t)
	e.MustSignUp(t, "ann@example.com", goodPassword)
	for range 7 {
		if err := e.Auth.RequestPasswordReset(e.Ctx, "ann@example.com", core.Client{}); err != nil {
			t.Fatal(err)
		}
	}
	if msgs, _ := e.SMTP.WaitFor(e.Seen()+5, 5*time.Second); len(msgs)-e.Seen() != 5 {
		t.Fatalf("%d reset emails sent, want 5", len(msgs)-e.Seen())
	}
}

func TestEmailChangeAndRecovery(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	e.MustSignUp(t, "taken@example.com", goodPassword)
	id := e.MustAuthenticate(t, tok.IDToken)

	email := func(s string) core.ProfileUpdate { return core.ProfileUpdate{Email: &s} }
	_, err := e.Auth.UpdateProfile(e.Acting(id), email(""))
	wantFields(t, err, map[string]string{"email": "Please enter your email"})
	_, err = e.Auth.UpdateProfile(e.Acting(id), email("taken@example.com"))
	wantCode(t, err, core.EEmailInUse)
	e.Clock.Add(core.RecentLoginWindow + time.Second)
	_, err = e.Auth.UpdateProfile(e.Acting(id), email("new@example.com"))
	wantCode(t, err, core.ERequiresRecentLogin)
	// Other fields need no recent login, nor does the unchanged email.
	name := "Ann B."
	u, err := e.Auth.UpdateProfile(e.Acting(id), core.ProfileUpdate{Name: &name, Email: &u0(e, t, id).Email})
	if err != nil || u.Name != "Ann B." {
		t.Fatalf("%+v %v", u, err)
	}
	e.NoMoreEmail(t)

	if _, err := e.Auth.Reauth(e.Acting(id), goodPassword, browser); err != nil {
		t.Fatal(err)
	}
	id = e.MustAuthenticate(t, tok.IDToken)
	u, err = e.Auth.UpdateProfile(e.Acting(id), email("new@example.com"))
	if err != nil || u.Email != "new@example.com" || u.EmailVerified {
		t.Fatalf("%+v %v", u, err)
	}
	verify := actionCode(t, e.nextEmail(t, "new@example.com"), core.ModeVerifyEmail)
	notice := e.nextEmail(t, "ann@example.com")
	if !strings.Contains(notice.Text, "new@example.com") {
		t.Fatalf("the notice does not name the new address:\n%s", notice.Text)
	}
	recover := actionCode(t, notice, core.ModeRecoverEmail)
	if _, err := e.Auth.SignIn(e.Ctx, "new@example.com", goodPassword, browser); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Auth.ApplyActionCode(e.Ctx, verify); err != nil {
		t.Fatal(err)
	}

	info, err := e.Auth.CheckActionCode(e.Ctx, recover)
	if err != nil || *info != (core.ActionInfo{Mode: core.ModeRecoverEmail, Email: "ann@example.com"}) {
		t.Fatalf("check: %+v %v", info, err)
	}
	info, err = e.Auth.ApplyActionCode(e.Ctx, recover)
	if err != nil || info.Email != "ann@example.com" {
		t.Fatalf("apply: %+v %v", info, err)
	}
	if u := u0(e, t, &core.Identity{UserID: id.UserID}); u.Email != "ann@example.com" || !u.EmailVerified {
		t.Fatalf("after recovery: %+v", u)
	}
	_, err = e.Auth.Authenticate(e.Ctx, tok.IDToken)
	wantCode(t, err, core.EInvalidToken)
	reset := actionCode(t, e.nextEmail(t, "ann@example.com"), core.ModeResetPassword)
	if err := e.Auth.ConfirmPasswordReset(e.Ctx, reset, "my own passphrase again"); err != nil {
		t.Fatal(err)
	}
	_, err = e.Auth.ApplyActionCode(e.Ctx, recover)
	wantCode(t, err, core.EInvalidActionCode)
	e.NoMoreEmail(t)
}

func TestVerifyLinkOfAnAbandonedAddressIsInvalid(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	id := e.MustAuthenticate(t, tok.IDToken)
	for _, addr := range []string{"one@example.com", "two@example.com"} {
		if _, err := e.Auth.UpdateProfile(e.Acting(id), core.ProfileUpdate{Email: &addr}); err != nil {
			t.Fatal(err)
		}
	}
	first := actionCode(t, e.nextEmail(t, "one@example.com"), core.ModeVerifyEmail)
	e.Clock.Add(core.EmailCodeTTL - time.Second)
	_, err := e.Auth.ApplyActionCode(e.Ctx, first)
	wantCode(t, err, core.EInvalidActionCode)
}

func TestEmailCodesExpireAfterThreeDays(t *testing.T) {
	e := MustAuthEnv(t)
	_, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: goodPassword}, browser)
	if err != nil {
		t.Fatal(err)
	}
	code := actionCode(t, e.nextEmail(t, "ann@example.com"), core.ModeVerifyEmail)
	e.Clock.Add(core.EmailCodeTTL)
	_, err = e.Auth.ApplyActionCode(e.Ctx, code)
	wantCode(t, err, core.EExpiredActionCode)
}

func u0(e *authEnv, t *testing.T, id *core.Identity) *core.User {
	t.Helper()
	u, err := e.Auth.User(e.Acting(id))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestProfileValidation(t *testing.T) {
	e := MustAuthEnv(t)
	id := e.MustAuthenticate(t, e.MustSignUp(t, "ann@example.com", goodPassword).IDToken)
	s := func(v string) *string { return &v }
	tests := []struct {
		up   core.ProfileUpdate
		want map[string]string
	}{
		{core.ProfileUpdate{Name: s(" ")}, map[string]string{"name": "Please enter your name"}},
		{core.ProfileUpdate{Email: s("no")}, map[string]string{"email": "Please enter a valid email address"}},
		{core.ProfileUpdate{Picture: s("javascript:alert(1)")}, map[string]string{"picture": "The picture must be an http or https URL"}},
		{core.ProfileUpdate{Timezone: s("Nowhere/Town")}, map[string]string{"timezone": "Please choose a valid time zone"}},
	}
	for _, tt := range tests {
		_, err := e.Auth.UpdateProfile(e.Acting(id), tt.up)
		wantFields(t, err, tt.want)
	}
	u, err := e.Auth.UpdateProfile(e.Acting(id), core.ProfileUpdate{
		Picture: s("https://example.com/me.png"), Timezone: s("America/New_York"),
	})
	if err != nil || u.Picture != "https://example.com/me.png" || u.Timezone != "America/New_York" || u.Name != "Ann" {
		t.Fatalf("%+v %v", u, err)
	}
	if u, _ = e.Auth.UpdateProfile(e.Acting(id), core.ProfileUpdate{Picture: s("")}); u.Picture != "" {
		t.Fatal("the picture was not removed")
	}
}

func TestAccessTokens(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	id := e.MustAuthenticate(t, tok.IDToken)
	bob := e.MustAuthenticate(t, e.MustSignUp(t, "bob@example.com", goodPassword).IDToken)

	_, _, err := e.Auth.CreateAccessToken(e.Acting(id), " ")
	wantFields(t, err, map[string]string{"name": "Please enter a name for the token"})
	at, secret, err := e.Auth.CreateAccessToken(e.Acting(id), "laptop")
	if err != nil {
		t.Fatal(err)
	}
	stored, err := e.DB.FindAccessTokenByHash(e.Ctx, core.HashSecret(secret))
	if !strings.HasPrefix(secret, core.AccessTokenPrefix) || err != nil || stored.ID != at.ID {
		t.Fatalf("token %+v secret %q: stored under its hash %+v %v", at, secret, stored, err)
	}
	patID := e.MustAuthenticate(t, secret)
	if patID.UserID != id.UserID || patID.TokenID != at.ID || patID.SessionID != "" {
		t.Fatalf("identity %+v", patID)
	}
	// A token is never a recent login, so it cannot make another token, nor
	// change the password or delete the account.
	wantCode(t, e.Auth.RequireRecentLogin(e.Acting(patID)), core.ERequiresRecentLogin)
	_, _, err = e.Auth.CreateAccessToken(e.Acting(patID), "more")
	wantCode(t, err, core.ERequiresRecentLogin)
	wantCode(t, e.Auth.DeleteAccount(e.Acting(patID)), core.ERequiresRecentLogin)
	_, err = e.Auth.Reauth(e.Acting(patID), goodPassword, browser)
	wantCode(t, err, core.ERequiresRecentLogin)

	e.Clock.Add(10 * time.Minute)
	e.MustAuthenticate(t, secret)
	ts, err := e.Auth.ListAccessTokens(e.Acting(id))
	if err != nil || len(ts) != 1 || ts[0].ID != at.ID || ts[0].Name != "laptop" ||
		!ts[0].CreatedAt.Equal(at.CreatedAt) || !ts[0].LastUsedAt.Equal(e.Clock.Now()) {
		t.Fatalf("list: %+v %v", ts, err)
	}
	wantCode(t, e.Auth.RevokeAccessToken(e.Acting(bob), at.ID), core.ETokenNotFound)
	if err := e.Auth.RevokeAccessToken(e.Acting(id), at.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.Auth.Authenticate(e.Ctx, secret)
	wantCode(t, err, core.EInvalidToken)
	wantCode(t, e.Auth.RevokeAccessToken(e.Acting(id), at.ID), core.ETokenNotFound)

	// Signing out with a token revokes it.
	_, secret, err = e.Auth.CreateAccessToken(e.Acting(e.MustAuthenticate(t, signInAt(t, e, 0).IDToken)), "script")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Auth.SignOut(e.Acting(e.MustAuthenticate(t, secret))); err != nil {
		t.Fatal(err)
	}
	_, err = e.Auth.Authenticate(e.Ctx, secret)
	wantCode(t, err, core.EInvalidToken)
}

func TestDeleteAccountAndExport(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	id := e.MustAuthenticate(t, tok.IDToken)
	m, err := e.Messages.Create(e.Acting(id), core.MessageInput{
		Title: "For later", Name: "Bob", Recipient: "bob@example.com", Body: "a secret letter",
	})
	if err != nil {
		t.Fatal(err)
	}
	at, pat, err := e.Auth.CreateAccessToken(e.Acting(id), "laptop")
	if err != nil {
		t.Fatal(err)
	}

	x, err := e.Auth.Export(e.Acting(id))
	if err != nil {
		t.Fatal(err)
	}
	if x.User.Email != "ann@example.com" || !x.HasPassword || len(x.Messages) != 1 ||
		x.Messages[0].Body != "a secret letter" || x.Messages[0].Recipient != "bob@example.com" ||
		len(x.AccessTokens) != 1 || x.AccessTokens[0].ID != at.ID {
		t.Fatalf("export %+v", x)
	}
	raw, _ := json.Marshal(x)
	for _, secret := range []string{"argon2id", core.HashSecret(pat), m.PostponeCode} {
		if strings.Contains(string(raw), secret) {
			t.Fatalf("the export holds the secret %q", secret)
		}
	}

	e.Clock.Add(core.RecentLoginWindow + time.Second)
	id = e.MustAuthenticate(t, tok.IDToken)
	wantCode(t, e.Auth.DeleteAccount(e.Acting(id)), core.ERequiresRecentLogin)
	if _, err := e.Auth.Reauth(e.Acting(id), goodPassword, browser); err != nil {
		t.Fatal(err)
	}
	if err := e.Auth.DeleteAccount(e.Acting(e.MustAuthenticate(t, tok.IDToken))); err != nil {
		t.Fatal(err)
	}
	_, err = e.Auth.Authenticate(e.Ctx, tok.IDToken)
	wantCode(t, err, core.EInvalidToken)
	_, err = e.DB.FindMessageByID(e.Ctx, m.ID)
	wantCode(t, err, core.EMessageNotFound)
	_, err = e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, browser)
	wantCode(t, err, core.EWrongCredentials)
	// The address is free again.
	e.MustSignUp(t, "ann@example.com", goodPassword)
}

func TestConcurrentRefreshWithOneTokenEndsTheSession(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := e.Auth.Refresh(e.Ctx, tok.RefreshToken)
			errs <- err
		}()
	}
	first, second := <-errs, <-errs
	if first != nil && second != nil {
		t.Fatalf("both refreshes failed: %v, %v", first, second)
	}
	if first == nil && second == nil {
		t.Fatal("one refresh token was exchanged twice")
	}
	_, err := e.Auth.Authenticate(e.Ctx, tok.IDToken)
	wantCode(t, err, core.EInvalidToken)
}

package core_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// stranger is what a pre-hijacker holds of an account made with the
// victim's address: a password, a session (ID and refresh token), a
// personal access token, a message, a pending email code and their own
// provider's link.
type stranger struct {
	uid, idToken, refresh, pat string
}

// preHijack signs up victim@example.com with a password as a stranger who
// never verifies it, and gives the account everything a stranger could:
// a message, an access token, their own GitHub link and a second reminder
// address. The verification email is left unread.
func preHijack(t *testing.T, e *authEnv) stranger {
	t.Helper()
	tok, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "victim@example.com", Password: goodPassword, Name: "Mallory"}, browser)
	if err != nil {
		t.Fatal(err)
	}
	e.nextEmail(t, "victim@example.com") // the victim ignores it
	id := e.MustAuthenticate(t, tok.IDToken)
	ctx := e.Acting(id)
	if _, err := e.Messages.Create(ctx, core.MessageInput{Title: "t", Name: "Bob", Recipient: "bob@example.com", Body: "lies"}); err != nil {
		t.Fatal(err)
	}
	_, pat, err := e.Auth.CreateAccessToken(ctx, "mallory's script", core.AllScopes)
	if err != nil {
		t.Fatal(err)
	}
	mallory := core.ProviderProfile{Provider: core.ProviderGitHub, Subject: "666", Email: "mallory@example.com", EmailVerified: true}
	if _, err := e.Social.Link(ctx, mallory); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Store.UpdateUser(e.Ctx, tok.User.ID, func(u *core.User) error {
		u.ReminderAddress = "mallory@example.com"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return stranger{uid: tok.User.ID, idToken: tok.IDToken, refresh: tok.RefreshToken, pat: pat}
}

// locked checks that nothing the stranger held gets in any more.
func (s stranger) locked(t *testing.T, e *authEnv) {
	t.Helper()
	if _, err := e.Auth.SignIn(e.Ctx, "victim@example.com", goodPassword, browser); err == nil {
		t.Error("the stranger's password still signs in")
	}
	if _, err := e.Auth.Refresh(e.Ctx, s.refresh); err == nil {
		t.Error("the stranger's refresh token still works")
	}
	if _, err := e.Auth.Authenticate(e.Ctx, s.idToken); err == nil {
		t.Error("the stranger's ID token still works")
	}
	if _, err := e.Auth.Authenticate(e.Ctx, s.pat); err == nil {
		t.Error("the stranger's access token still works")
	}
	mallory := core.ProviderProfile{Provider: core.ProviderGitHub, Subject: "666", Email: "mallory@example.com", EmailVerified: true}
	if tok, err := e.Social.SignIn(e.Ctx, mallory, browser); err == nil && tok.User.ID == s.uid {
		t.Error("the stranger's own GitHub still signs in to the account")
	}
	// The stranger's message stays, paused: never sent unless the owner
	// resumes it, and nothing lost when the maker was the owner.
	ms, _, err := e.Store.ListMessages(e.Ctx, core.MessageFilter{Owner: s.uid})
	if err != nil || len(ms) != 1 || ms[0].IsActive || ms[0].DisplayStatus() != core.StatusPaused {
		t.Fatalf("the stranger's messages: %+v, %v", ms, err)
	}
	events, err := e.Store.ListMessageEvents(e.Ctx, ms[0].ID)
	if err != nil || len(events) == 0 || events[len(events)-1].Kind != core.EventPaused || events[len(events)-1].Actor != core.ActorClaim {
		t.Errorf("the paused message's timeline: %+v, %v", events, err)
	}
}

// The attack of issue 26: a stranger signs up with the victim's address
// and never verifies it; the victim signs in with Google, which vouches for
// the address. The account becomes the victim's alone: nothing the stranger
// held works any more, the stranger's message is paused, and the address
// is told.
func TestProviderClaimsAnUnverifiedAccount(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, env *testenv.Env) {
		e := &authEnv{env}
		s := preHijack(t, e)
		victim := core.ProviderProfile{Provider: core.ProviderGoogle, Subject: "g-1", Email: "Victim@Example.com",
			EmailVerified: true, Name: "Victoria"}
		tok, err := e.Social.SignIn(e.Ctx, victim, browser)
		if err != nil {
			t.Fatal(err)
		}
		u := tok.User
		if u.ID != s.uid || !u.EmailVerified || u.PasswordHash != "" || u.Name != "Victoria" ||
			!slices.Equal(u.Providers, []string{core.ProviderGoogle}) || u.ReminderAddress != "" {
			t.Fatalf("claimed user %+v", u)
		}
		if id := e.MustAuthenticate(t, tok.IDToken); id.UserID != s.uid {
			t.Fatalf("the victim's identity %+v", id)
		}
		links, err := e.Social.LinkedAccounts(e.As(s.uid))
		if err != nil || len(links) != 1 || links[0].Provider != core.ProviderGoogle {
			t.Fatalf("links %+v, %v", links, err)
		}
		mail := e.nextEmail(t, "victim@example.com")
		for _, want := range []string{"signed in to Sendlater with Google", "Someone had started an account with this address",
			"every sign-in to it were removed", "The message written in it is paused", "resume it in your dashboard", "If that was you, there is nothing to do"} {
			if !strings.Contains(mail.Text, want) {
				t.Errorf("the email lacks %q:\n%s", want, mail.Text)
			}
		}
		s.locked(t, e)
		// The victim goes on signing in with Google, to the same account.
		if tok, err := e.Social.SignIn(e.Ctx, victim, browser); err != nil || tok.User.ID != s.uid {
			t.Fatalf("signing in again: %v", err)
		}
		e.NoMoreEmail(t)
	})
}

// An account whose address was verified links the provider and keeps
// everything: its password, sessions, tokens and messages.
func TestProviderLinksAVerifiedAccount(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, env *testenv.Env) {
		e := &authEnv{env}
		tok, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: goodPassword, Name: "Ann"}, browser)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Auth.ApplyActionCode(e.Ctx, actionCode(t, e.nextEmail(t, "ann@example.com"), core.ModeVerifyEmail)); err != nil {
			t.Fatal(err)
		}
		ctx := e.Acting(e.MustAuthenticate(t, tok.IDToken))
		if _, err := e.Messages.Create(ctx, core.MessageInput{Title: "t", Name: "Bob", Recipient: "bob@example.com", Body: "b"}); err != nil {
			t.Fatal(err)
		}
		_, pat, err := e.Auth.CreateAccessToken(ctx, "script", core.AllScopes)
		if err != nil {
			t.Fatal(err)
		}
		g, err := e.Social.SignIn(e.Ctx, core.ProviderProfile{Provider: core.ProviderGoogle, Subject: "g-1", Email: "ann@example.com", EmailVerified: true}, browser)
		if err != nil {
			t.Fatal(err)
		}
		if g.User.ID != tok.User.ID || g.User.Name != "Ann" || !slices.Equal(g.User.Providers, []string{core.ProviderPassword, core.ProviderGoogle}) {
			t.Fatalf("linked user %+v", g.User)
		}
		if _, err := e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, browser); err != nil {
			t.Errorf("the password: %v", err)
		}
		if _, err := e.Auth.Refresh(e.Ctx, tok.RefreshToken); err != nil {
			t.Errorf("the first session: %v", err)
		}
		if _, err := e.Auth.Authenticate(e.Ctx, pat); err != nil {
			t.Errorf("the access token: %v", err)
		}
		if n, err := e.Store.CountMessages(e.Ctx, tok.User.ID); err != nil || n != 1 {
			t.Errorf("messages: %d, %v", n, err)
		}
		e.NoMoreEmail(t)
	})
}

// A stranger who moved their verified account to the victim's address
// keeps the link that restores their old one (recoverEmail): a claim
// makes it, and every other code of the account, unusable, or the stranger
// would take the account back with whatever the victim then wrote.
func TestClaimVoidsTheStrangersEmailCodes(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, env *testenv.Env) {
		e := &authEnv{env}
		tok, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "mallory@example.com", Password: goodPassword}, browser)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Auth.ApplyActionCode(e.Ctx, actionCode(t, e.nextEmail(t, "mallory@example.com"), core.ModeVerifyEmail)); err != nil {
			t.Fatal(err)
		}
		id := e.MustAuthenticate(t, tok.IDToken)
		victim := "victim@example.com"
		if _, err := e.Auth.UpdateProfile(e.Acting(id), core.ProfileUpdate{Email: &victim}); err != nil {
			t.Fatal(err)
		}
		both := e.NextEach(t, victim, "mallory@example.com")
		recoverCode := actionCode(t, both[1], core.ModeRecoverEmail)
		if _, err := e.Social.SignIn(e.Ctx, core.ProviderProfile{Provider: core.ProviderGoogle, Subject: "g-1", Email: victim, EmailVerified: true}, browser); err != nil {
			t.Fatal(err)
		}
		e.nextEmail(t, victim)
		for _, code := range []string{recoverCode, actionCode(t, both[0], core.ModeVerifyEmail)} {
			if _, err := e.Auth.ApplyActionCode(e.Ctx, code); core.ErrorCode(err) != core.EInvalidActionCode {
				t.Errorf("a code of the stranger's: %v", err)
			}
		}
		if u, err := e.Store.FindUserByID(e.Ctx, tok.User.ID); err != nil || u.Email != victim || !u.EmailVerified {
			t.Fatalf("after the stranger's codes: %+v, %v", u, err)
		}
	})
}

// The owner who takes a pre-hijacked account back with a password reset
// gets it as clean as through a provider: the stranger's own GitHub link,
// access token and message go with the old password.
func TestPasswordResetClaimsAnUnverifiedAccount(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, env *testenv.Env) {
		e := &authEnv{env}
		s := preHijack(t, e)
		if err := e.Auth.RequestPasswordReset(e.Ctx, "victim@example.com", browser); err != nil {
			t.Fatal(err)
		}
		code := actionCode(t, e.nextEmail(t, "victim@example.com"), core.ModeResetPassword)
		if err := e.Auth.ConfirmPasswordReset(e.Ctx, code, "the victim's own passphrase"); err != nil {
			t.Fatal(err)
		}
		mail := e.nextEmail(t, "victim@example.com")
		for _, want := range []string{"You just chose a new password", "Someone had started an account with this address",
			"its old password and every sign-in to it were removed", "The message written in it is paused", "resume it in your dashboard"} {
			if !strings.Contains(mail.Text, want) {
				t.Errorf("the email lacks %q:\n%s", want, mail.Text)
			}
		}
		s.locked(t, e)
		tok, err := e.Auth.SignIn(e.Ctx, "victim@example.com", "the victim's own passphrase", browser)
		if err != nil {
			t.Fatal(err)
		}
		if u := tok.User; u.ID != s.uid || !u.EmailVerified || u.Name != "" || u.ReminderAddress != "" ||
			!slices.Equal(u.Providers, []string{core.ProviderPassword}) {
			t.Fatalf("claimed user %+v", u)
		}
		e.NoMoreEmail(t)
	})
}

// An account an operator made without a password, which no one could sign
// in to yet, is not claimed when its user chooses a password with the
// operator's link: it keeps the name the operator gave, and no notice goes.
func TestOperatorsLinkIsNoClaim(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, env *testenv.Env) {
		e := &authEnv{env}
		made, err := e.Admin.CreateUser(core.WithOperator(e.Ctx, "root"), core.NewUser{Email: "ann@example.com", Name: "Ann"})
		if err != nil {
			t.Fatal(err)
		}
		code := strings.TrimPrefix(made.Link[strings.Index(made.Link, "oobCode="):], "oobCode=")
		if err := e.Auth.ConfirmPasswordReset(e.Ctx, code, goodPassword); err != nil {
			t.Fatal(err)
		}
		tok, err := e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, browser)
		if err != nil || tok.User.Name != "Ann" || !tok.User.EmailVerified {
			t.Fatalf("%+v, %v", tok, err)
		}
		e.NoMoreEmail(t)
	})
}

// The verification link confirms the account as it was made, so its email
// says what asked for it and when, and that whoever did not ignores it.
func TestVerificationEmailSaysWhoAndWhen(t *testing.T) {
	e := MustAuthEnv(t)
	if _, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: goodPassword}, browser); err != nil {
		t.Fatal(err)
	}
	mail := e.nextEmail(t, "ann@example.com")
	for _, want := range []string{"On Sunday, 1 March 2026 at 12:00 UTC, an account was started with this address and a password.",
		"confirms the account as it was made", "If this was not you, ignore this email"} {
		if !strings.Contains(mail.Text, want) || !strings.Contains(mail.HTML, want) {
			t.Errorf("the verification email lacks %q:\n%s", want, mail.Text)
		}
	}
}

// An address no one proved is not given back: changing the address of an
// account whose address was never verified sends the old one no link that
// restores it (it would verify it and hand it the account as its maker
// left it).
func TestNoRecoverLinkForAnUnverifiedAddress(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, env *testenv.Env) {
		e := &authEnv{env}
		tok := e.MustSignUp(t, "victim@example.com", goodPassword)
		other := "mallory@example.com"
		if _, err := e.Auth.UpdateProfile(e.Acting(e.MustAuthenticate(t, tok.IDToken)), core.ProfileUpdate{Email: &other}); err != nil {
			t.Fatal(err)
		}
		actionCode(t, e.nextEmail(t, other), core.ModeVerifyEmail)
		e.NoMoreEmail(t)
	})
}

// mustVerifiedSignUp signs up email with a password and follows the
// verification link.
func (e *authEnv) mustVerifiedSignUp(tb testing.TB, email string) *core.Tokens {
	tb.Helper()
	tok, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: email, Password: goodPassword, Name: "Ann"}, browser)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := e.Auth.ApplyActionCode(e.Ctx, actionCode(tb, e.nextEmail(tb, email), core.ModeVerifyEmail)); err != nil {
		tb.Fatal(err)
	}
	return tok
}

// Linking a provider from settings proves the address for the person who
// holds the account's session: the account is confirmed as made, its
// password and sessions kept. A disabled account is not claimed.
func TestLinkFromSettingsConfirmsAnUnverifiedAccount(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, env *testenv.Env) {
		e := &authEnv{env}
		tok := e.MustSignUp(t, "ann@example.com", goodPassword)
		ctx := e.Acting(e.MustAuthenticate(t, tok.IDToken))
		u, err := e.Social.Link(ctx, core.ProviderProfile{Provider: core.ProviderGoogle, Subject: "g-1", Email: "ann@example.com", EmailVerified: true})
		if err != nil || !u.EmailVerified || u.PasswordHash == "" {
			t.Fatalf("%+v, %v", u, err)
		}
		if _, err := e.Auth.Refresh(e.Ctx, tok.RefreshToken); err != nil {
			t.Fatalf("the session after linking: %v", err)
		}

		bob := e.MustSignUp(t, "bob@example.com", goodPassword)
		if _, err := e.Admin.SetUserDisabled(core.WithOperator(e.Ctx, "root"), bob.User.ID, true); err != nil {
			t.Fatal(err)
		}
		_, err = e.Social.SignIn(e.Ctx, core.ProviderProfile{Provider: core.ProviderGoogle, Subject: "g-2", Email: "bob@example.com", EmailVerified: true}, browser)
		wantCode(t, err, core.EUserDisabled)
		if u, err := e.Store.FindUserByID(e.Ctx, bob.User.ID); err != nil || u.PasswordHash == "" || u.EmailVerified {
			t.Fatalf("the disabled account: %+v, %v", u, err)
		}
		e.NoMoreEmail(t)
	})
}

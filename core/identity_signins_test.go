package core_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

const (
	firefoxLinux  = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	chromeWindows = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	safariIPhone  = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
	edgeMac       = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0"
)

var (
	laptop = core.Client{Address: "192.0.2.77", UserAgent: firefoxLinux}
	phone  = core.Client{Address: "2001:db8:1:2::5", UserAgent: safariIPhone}
	office = core.Client{Address: "198.51.100.9", UserAgent: chromeWindows}
)

func TestParseDevice(t *testing.T) {
	for ua, want := range map[string]string{
		firefoxLinux:  "Firefox on Linux",
		chromeWindows: "Chrome on Windows",
		safariIPhone:  "Safari on iOS",
		edgeMac:       "Edge on macOS",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36": "Chrome on Android",
		"curl/8.5.0":   "curl",
		"test browser": "Unknown device",
		"":             "Unknown device",
	} {
		if got := core.ParseDevice(ua).String(); got != want {
			t.Errorf("ParseDevice(%q) = %q, want %q", ua, got, want)
		}
	}
}

func TestSignInNetworkHidesTheAddress(t *testing.T) {
	for addr, want := range map[string]string{
		"192.0.2.77":            "192.0.2.0/24",
		"::ffff:192.0.2.77":     "192.0.2.0/24",
		"2001:db8:1:2::5":       "2001:db8:1::/48",
		"fe80::1%eth0":          "fe80::/48",
		"192.0.2.77:4431":       "192.0.2.0/24",
		"":                      "",
		"not an address":        "",
		"2001:db8:ffff:1:2:3:4": "",
	} {
		if got := core.SignInNetwork(addr); got != want {
			t.Errorf("SignInNetwork(%q) = %q, want %q", addr, got, want)
		}
	}
}

// signInFrom signs ann in from c and returns who the new session is.
func signInFrom(t *testing.T, e *authEnv, c core.Client) (*core.Tokens, *core.Identity) {
	t.Helper()
	tok, err := e.Auth.SignIn(e.Ctx, "ann@example.com", goodPassword, c)
	if err != nil {
		t.Fatal(err)
	}
	return tok, e.MustAuthenticate(t, tok.IDToken)
}

func TestListSessionsShowsDeviceNetworkAndCurrent(t *testing.T) {
	e := MustAuthEnv(t)
	e.MustSignUp(t, "ann@example.com", goodPassword)
	e.Clock.Add(time.Minute)
	_, lap := signInFrom(t, e, laptop)
	e.Clock.Add(time.Minute)
	_, ph := signInFrom(t, e, phone)

	ss, err := e.Auth.ListSessions(e.Acting(ph))
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 3 {
		t.Fatalf("%d sessions, want 3: %+v", len(ss), ss)
	}
	got := ss[0]
	if got.ID != ph.SessionID || !got.Current || got.Device.String() != "Safari on iOS" || got.Network != "2001:db8:1::/48" {
		t.Fatalf("newest session %+v", got)
	}
	if ss[1].Current || ss[1].ID != lap.SessionID || ss[1].Device.String() != "Firefox on Linux" || ss[1].Network != "192.0.2.0/24" {
		t.Fatalf("second session %+v", ss[1])
	}
	for _, s := range ss {
		if strings.Contains(s.Network, "192.0.2.77") || strings.Contains(s.Network, "::5") {
			t.Fatalf("the list shows an address: %+v", s)
		}
	}
	// Another user sees only theirs.
	bob := e.MustSignUp(t, "bob@example.com", goodPassword)
	bid := e.MustAuthenticate(t, bob.IDToken)
	if ss, _ := e.Auth.ListSessions(e.Acting(bid)); len(ss) != 1 || ss[0].ID != bid.SessionID {
		t.Fatalf("bob's sessions %+v", ss)
	}
}

func TestSessionLastSeenIsWrittenAtMostEveryInterval(t *testing.T) {
	e := MustAuthEnv(t)
	tok := e.MustSignUp(t, "ann@example.com", goodPassword)
	id := e.MustAuthenticate(t, tok.IDToken)
	start := e.Clock.Now()
	lastSeen := func() time.Time {
		t.Helper()
		ss, err := e.Auth.ListSessions(e.Acting(id))
		if err != nil || len(ss) != 1 {
			t.Fatalf("sessions %+v, %v", ss, err)
		}
		return ss[0].LastSeenAt
	}
	e.Clock.Add(core.SessionSeenInterval - time.Second)
	e.MustAuthenticate(t, tok.IDToken)
	if got := lastSeen(); !got.Equal(start) {
		t.Fatalf("last seen %v within the interval, want %v", got, start)
	}
	e.Clock.Add(time.Second)
	now := e.Clock.Now()
	e.MustAuthenticate(t, tok.IDToken)
	if got := lastSeen(); !got.Equal(now) {
		t.Fatalf("last seen %v after the interval, want %v", got, now)
	}
	e.Clock.Add(time.Minute)
	e.MustAuthenticate(t, tok.IDToken)
	if got := lastSeen(); !got.Equal(now) {
		t.Fatalf("last seen %v a minute later, want %v", got, now)
	}
}

func TestRevokeSessionEndsItAtOnce(t *testing.T) {
	e := MustAuthEnv(t)
	e.MustSignUp(t, "ann@example.com", goodPassword)
	thief, _ := signInFrom(t, e, office)
	_, mine := signInFrom(t, e, laptop)
	thiefID := e.MustAuthenticate(t, thief.IDToken)

	// A session that is not a recent login cannot end another: a stolen
	// one cannot end its owner's.
	e.Clock.Add(core.RecentLoginWindow + time.Minute)
	wantCode(t, e.Auth.RevokeSession(e.Acting(thiefID), mine.SessionID), core.ERequiresRecentLogin)
	mine = e.MustAuthenticate(t, mustRefreshID(t, e, mine))
	if err := e.Auth.RevokeSession(e.Acting(mine), thiefID.SessionID); err != nil {
		t.Fatal(err)
	}
	_, err := e.Auth.Authenticate(e.Ctx, thief.IDToken)
	wantCode(t, err, core.EInvalidToken)
	_, err = e.Auth.Refresh(e.Ctx, thief.RefreshToken)
	wantCode(t, err, core.EInvalidToken)
	// Gone, unknown and another user's: the same not-found.
	wantCode(t, e.Auth.RevokeSession(e.Acting(mine), thiefID.SessionID), core.ENotFound)
	wantCode(t, e.Auth.RevokeSession(e.Acting(mine), "nope"), core.ENotFound)
	bob := e.MustAuthenticate(t, e.MustSignUp(t, "bob@example.com", goodPassword).IDToken)
	wantCode(t, e.Auth.RevokeSession(e.Acting(mine), bob.SessionID), core.ENotFound)
	e.MustAuthenticate(t, e.mustIDToken(t, bob))
	// An operator acting for ann may not.
	wantCode(t, e.Auth.RevokeSession(core.ActAs(core.WithOperator(e.Ctx, "root"), mine.UserID), mine.SessionID), core.EOperatorNotAllowed)
	// Its own session needs no recent login: that is signing out.
	e.Clock.Add(core.RecentLoginWindow + time.Minute)
	if err := e.Auth.RevokeSession(e.Acting(mine), mine.SessionID); err != nil {
		t.Fatal(err)
	}
	wantCode(t, e.Auth.VerifyIdentity(e.Acting(mine)), core.EInvalidToken)
}

// mustRefreshID is a new ID token of the session id, after a re-auth.
func mustRefreshID(t *testing.T, e *authEnv, id *core.Identity) string {
	t.Helper()
	tok, err := e.Auth.Reauth(e.Acting(id), goodPassword, laptop)
	if err != nil {
		t.Fatal(err)
	}
	return tok.IDToken
}

// mustIDToken is a fresh ID token of the session id, to show it holds.
func (e *authEnv) mustIDToken(t *testing.T, id *core.Identity) string {
	t.Helper()
	tok, err := e.Auth.Reauth(e.Acting(id), goodPassword, browser)
	if err != nil {
		t.Fatal(err)
	}
	return tok.IDToken
}

func TestRevokeOtherSessions(t *testing.T) {
	e := MustAuthEnv(t)
	first := e.MustSignUp(t, "ann@example.com", goodPassword)
	other, _ := signInFrom(t, e, office)
	_, mine := signInFrom(t, e, laptop)
	bob := e.MustSignUp(t, "bob@example.com", goodPassword)

	n, err := e.Auth.RevokeOtherSessions(e.Acting(mine))
	if err != nil || n != 2 {
		t.Fatalf("revoked %d, %v; want 2", n, err)
	}
	for _, tok := range []*core.Tokens{first, other} {
		_, err := e.Auth.Refresh(e.Ctx, tok.RefreshToken)
		wantCode(t, err, core.EInvalidToken)
	}
	e.MustAuthenticate(t, bob.IDToken)
	ss, err := e.Auth.ListSessions(e.Acting(mine))
	if err != nil || len(ss) != 1 || !ss[0].Current {
		t.Fatalf("left %+v, %v", ss, err)
	}
	e.Clock.Add(core.RecentLoginWindow + time.Second)
	_, err = e.Auth.RevokeOtherSessions(e.Acting(mine))
	wantCode(t, err, core.ERequiresRecentLogin)
}

// verifiedAnn is ann's account, verified, signed up from laptop.
func verifiedAnn(t *testing.T, e *authEnv) *core.Identity {
	t.Helper()
	tok, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: goodPassword, Name: "Ann"}, laptop)
	if err != nil {
		t.Fatal(err)
	}
	e.nextEmail(t, "ann@example.com") // the verification
	id := e.MustAuthenticate(t, tok.IDToken)
	e.MustVerify(t, id.UserID)
	return id
}

func TestSignInFromNewDeviceEmailsTheOwner(t *testing.T) {
	e := MustAuthEnv(t)
	verifiedAnn(t, e)
	// The device and network it signed up from are known.
	signInFrom(t, e, laptop)
	// The same browser from another address in the /24 too.
	signInFrom(t, e, core.Client{Address: "192.0.2.200", UserAgent: strings.Replace(firefoxLinux, "133.0", "134.0", -1)})
	e.NoMoreEmail(t)

	e.Clock.Add(time.Hour)
	signInFrom(t, e, office)
	p := e.nextEmail(t, "ann@example.com")
	for _, part := range []string{p.Text, p.HTML} {
		for _, want := range []string{"Chrome on Windows", "198.51.100.0/24", "/settings/security", "/auth/forgotpass"} {
			if !strings.Contains(part, want) {
				t.Fatalf("the email lacks %q:\n%s", want, part)
			}
		}
		if strings.Contains(part, "198.51.100.9") {
			t.Fatalf("the email shows the address:\n%s", part)
		}
	}
	if !strings.Contains(p.Subject, "new sign-in") {
		t.Fatalf("subject %q", p.Subject)
	}
	// Known now.
	signInFrom(t, e, office)
	e.NoMoreEmail(t)
}

func TestNewDeviceEmailCanBeSwitchedOff(t *testing.T) {
	e := MustAuthEnv(t)
	ann := verifiedAnn(t, e)
	on, err := e.Auth.SignInAlerts(e.Acting(ann))
	if err != nil || !on {
		t.Fatalf("alerts %v, %v; want on by default", on, err)
	}
	// Off needs a recent login; on does not.
	e.Clock.Add(core.RecentLoginWindow + time.Minute)
	_, err = e.Auth.SetSignInAlerts(e.Acting(ann), false)
	wantCode(t, err, core.ERequiresRecentLogin)
	_, fresh := signInFrom(t, e, laptop)
	if on, err := e.Auth.SetSignInAlerts(e.Acting(fresh), false); err != nil || on {
		t.Fatalf("alerts %v, %v; want off", on, err)
	}
	signInFrom(t, e, office)
	e.NoMoreEmail(t)
	if on, err := e.Auth.SetSignInAlerts(e.Acting(ann), true); err != nil || !on {
		t.Fatalf("alerts %v, %v; want on", on, err)
	}
	signInFrom(t, e, phone)
	e.nextEmail(t, "ann@example.com")
	_, err = e.Auth.SetSignInAlerts(core.ActAs(core.WithOperator(e.Ctx, "root"), ann.UserID), false)
	wantCode(t, err, core.EOperatorNotAllowed)
}

func TestNewDeviceEmailSpareTheUnverifiedAndKeepsTheLimits(t *testing.T) {
	e := MustAuthEnv(t)
	// An address never verified gets none: its owner may not have made
	// the account.
	if _, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: goodPassword, Name: "Ann"}, laptop); err != nil {
		t.Fatal(err)
	}
	e.nextEmail(t, "ann@example.com")
	signInFrom(t, e, office)
	e.NoMoreEmail(t)

	// Verified, the emails have limits of their own: 3 an hour.
	_, ann := signInFrom(t, e, laptop)
	e.MustVerify(t, ann.UserID)
	var last *core.Identity
	for i := range core.LimitNewDeviceEmailsHour.Max + 2 {
		_, last = signInFrom(t, e, core.Client{Address: fmt.Sprintf("198.18.%d.1", i), UserAgent: edgeMac})
	}
	for range core.LimitNewDeviceEmailsHour.Max {
		e.nextEmail(t, "ann@example.com")
	}
	e.NoMoreEmail(t)

	// They never spend the verification emails' budget: the owner can
	// still change the address this hour: the new one is asked, the old
	// one told.
	addr := "ann.new@example.com"
	if _, err := e.Auth.UpdateProfile(e.Acting(last), core.ProfileUpdate{Email: &addr}); err != nil {
		t.Fatal(err)
	}
	e.NextEach(t, addr, "ann@example.com")
	e.NoMoreEmail(t)
}

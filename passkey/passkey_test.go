package passkey_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/passkey"
	"github.com/sendlater/sendlater/passkey/passkeytest"
)

var key = []byte(strings.Repeat("k", 32))

func mustRP(t *testing.T, base string, clock core.Clock) *passkey.RelyingParty {
	t.Helper()
	rp, problem, err := passkey.New(base, "Sendlater", key, clock)
	if err != nil || problem != "" {
		t.Fatalf("New(%s) = %v, %q", base, err, problem)
	}
	return rp
}

func wantInvalid(t *testing.T, err error) {
	t.Helper()
	var ce *passkey.CeremonyError
	if core.ErrorCode(err) != core.EInvalid || !errors.As(err, &ce) {
		t.Fatalf("error %v, want a ceremony's %s", err, core.EInvalid)
	}
}

func TestRegisterAndSignInWithAPasskey(t *testing.T) {
	clock := core.NewManualClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	rp := mustRP(t, "https://sendlater.example", clock)
	ann := &core.User{ID: "ann0000000000000000001", Email: "ann@example.com", Name: "Ann"}
	dev := passkeytest.New(t, "sendlater.example", "https://sendlater.example")

	options, st, err := rp.BeginRegistration(ann, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(options), `"residentKey":"required"`) || !strings.Contains(string(options), `"id":"sendlater.example"`) {
		t.Fatalf("registration options %s", options)
	}
	p, err := rp.FinishRegistration(ann, nil, st, dev.Create(options), " MacBook ")
	if err != nil {
		t.Fatal(err)
	}
	if p.UserID != ann.ID || p.Name != "MacBook" || string(p.CredentialID) != string(dev.CredID) || len(p.PublicKey) == 0 ||
		!p.BackupEligible || !p.BackupState || !p.CreatedAt.Equal(clock.Now()) {
		t.Fatalf("passkey %+v", p)
	}
	// The state is the registration's, ann's, and lasts StateTTL.
	_, err = rp.FinishRegistration(&core.User{ID: "bob"}, nil, st, dev.Create(options), "x")
	wantInvalid(t, err)

	find := func(id string) (*core.User, []*core.Passkey, error) {
		if id != ann.ID {
			return nil, nil, core.Errorf(core.EUserNotFound, "no")
		}
		return ann, []*core.Passkey{p}, nil
	}
	clock.Add(time.Hour)
	options, st, err = rp.BeginLogin(true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(options), `"mediation":"conditional"`) {
		t.Fatalf("login options %s", options)
	}
	u, used, err := rp.FinishLogin(st, dev.Get(options), find)
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != ann.ID || used.SignCount != 1 || !used.LastUsedAt.Equal(clock.Now()) {
		t.Fatalf("signed in %+v with %+v", u, used)
	}

	// A registration's state does not sign in; an expired or altered state fails.
	_, _, err = rp.FinishLogin(st[:len(st)-2]+"AA", dev.Get(options), find)
	wantInvalid(t, err)
	clock.Add(passkey.StateTTL)
	_, _, err = rp.FinishLogin(st, dev.Get(options), find)
	wantInvalid(t, err)

	// Another key with the same credential id: refused.
	options, st, _ = rp.BeginLogin(false)
	thief := passkeytest.New(t, "sendlater.example", "https://sendlater.example")
	thief.CredID, thief.User = dev.CredID, dev.User
	_, _, err = rp.FinishLogin(st, thief.Get(options), find)
	wantInvalid(t, err)

	// A counter that went back: a cloned authenticator.
	p = used
	options, st, _ = rp.BeginLogin(false)
	dev.Counter = 0
	_, _, err = rp.FinishLogin(st, dev.Get(options), find)
	wantInvalid(t, err)
}

func TestAnotherSiteCannotUseThePasskey(t *testing.T) {
	rp := mustRP(t, "https://sendlater.example", nil)
	ann := &core.User{ID: "ann0000000000000000001", Email: "ann@example.com"}
	for _, dev := range []*passkeytest.Authenticator{
		passkeytest.New(t, "sendlater.example", "https://evil.example"),     // a phishing page's origin
		passkeytest.New(t, "evil.example", "https://sendlater.example"),     // another RP ID
		passkeytest.New(t, "sendlater.example", "http://sendlater.example"), // not the https origin
	} {
		options, st, err := rp.BeginRegistration(ann, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = rp.FinishRegistration(ann, nil, st, dev.Create(options), "x")
		wantInvalid(t, err)
	}
}

func TestRelyingPartyFromBaseURL(t *testing.T) {
	for _, c := range []struct{ base, id, origin, problem string }{
		{"https://sendlater.example", "sendlater.example", "https://sendlater.example", ""},
		{"https://Sendlater.Example:8443/", "sendlater.example", "https://sendlater.example:8443", ""},
		{"http://localhost:8080", "localhost", "http://localhost:8080", ""},
		{"http://sendlater.example", "sendlater.example", "http://sendlater.example", "browsers offer passkeys only on https://"},
		{"https://192.0.2.1", "192.0.2.1", "https://192.0.2.1", "must be a domain name"},
	} {
		id, origin, problem, err := passkey.FromBaseURL(c.base)
		if err != nil || id != c.id || origin != c.origin || (c.problem == "") != (problem == "") || !strings.Contains(problem, c.problem) {
			t.Errorf("FromBaseURL(%s) = %q, %q, %q, %v", c.base, id, origin, problem, err)
		}
		if problem != "" && strings.Contains(problem, "\n") {
			t.Errorf("the start-up line has a line break: %q", problem)
		}
	}
	if _, _, _, err := passkey.FromBaseURL("ftp://x"); err == nil {
		t.Error("FromBaseURL(ftp://x) passed")
	}
}

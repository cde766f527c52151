package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// held is what a user holds that a claim removes, for the claim's test.
type held struct {
	user    *core.User
	session *core.Session
	token   *core.AccessToken
	message *core.Message
	code    string // an unused action code's hash
}

func mustHold(t *testing.T, s Stores, email, subject string) held {
	t.Helper()
	u := MustCreateUser(t, s, email)
	l := newLink(s, core.ProviderGitHub, subject)
	l.UserID = u.ID
	_, err := s.Links.LinkProvider(ctx, l, func(*core.User, []*core.ProviderLink) error { return nil })
	must(t, err)
	code := core.HashSecret(core.NewSecret())
	must(t, s.ActionCodes.CreateActionCode(ctx, &core.ActionCode{Hash: code, Mode: core.ModeRecoverEmail, UserID: u.ID,
		Email: email, OldEmail: "old@example.com", CreatedAt: s.Clock.Now(), ExpiresAt: s.Clock.Now().Add(time.Hour)}))
	return held{u, MustCreateSession(t, s, u.ID), MustCreateAccessToken(t, s, u.ID, "t"), MustCreateMessage(t, s, u.ID, core.Interval1M), code}
}

// intact fails unless everything h holds is still there.
func (h held) intact(t *testing.T, s Stores, subject string) {
	t.Helper()
	u, err := s.Users.FindUserByID(ctx, h.user.ID)
	must(t, err)
	if u.PasswordHash != h.user.PasswordHash || u.Name != h.user.Name {
		t.Fatalf("user %s changed: %+v", h.user.Email, u)
	}
	_, err = s.Sessions.FindSessionByID(ctx, h.session.ID)
	must(t, err)
	_, err = s.Tokens.FindAccessTokenByHash(ctx, h.token.Hash)
	must(t, err)
	_, err = s.Messages.FindMessageByID(ctx, h.message.ID)
	must(t, err)
	c, err := s.ActionCodes.FindActionCode(ctx, h.code)
	must(t, err)
	if !c.UsedAt.IsZero() {
		t.Fatalf("the code of %s was used", h.user.Email)
	}
	wantLinks(t, s, h.user.ID, "github:"+subject)
}

// ClaimAccount changes the user and removes what they hold in one
// transaction, and nothing of anyone else's; an error changes nothing.
func testLinksClaimAccount(t *testing.T, s Stores) {
	ada, grace := mustHold(t, s, "ada@example.com", "gh-ada"), mustHold(t, s, "grace@example.com", "gh-grace")
	s.Clock.Add(time.Minute)
	now := s.Clock.Now()

	// An aborting fn, and a link taken by another user, change nothing.
	claim := func(userID string, l *core.ProviderLink, fn func(*core.User, []*core.ProviderLink) error) (*core.User, core.Claimed, error) {
		return s.Links.ClaimAccount(ctx, userID, l, now, fn)
	}
	_, _, err := claim(ada.user.ID, nil, func(*core.User, []*core.ProviderLink) error { return errAbort })
	if !errors.Is(err, errAbort) {
		t.Fatalf("ClaimAccount with an aborting fn: %v", err)
	}
	taken := newLink(s, core.ProviderGitHub, "gh-grace")
	_, _, err = claim(ada.user.ID, taken, func(u *core.User, _ []*core.ProviderLink) error { u.Name = "x"; return nil })
	wantCode(t, err, core.ECredentialInUse)
	ada.intact(t, s, "gh-ada")
	_, _, err = claim("nobody", nil, func(*core.User, []*core.ProviderLink) error { return nil })
	wantCode(t, err, core.EUserNotFound)

	// The maker's passkey and device book, where the store keeps them.
	wantPasskeys := 0
	if s.Passkeys != nil {
		must(t, s.Passkeys.CreatePasskey(ctx, &core.Passkey{UserID: ada.user.ID, Name: "Stranger's", CredentialID: []byte("cred-ada"),
			PublicKey: []byte("key"), CreatedAt: now}))
		wantPasskeys = 1
	}
	if s.Devices != nil {
		_, err := s.Devices.UpdateDeviceBook(ctx, ada.user.ID, func(b *core.DeviceBook) error { b.AlertsOff = true; return nil })
		must(t, err)
	}

	var seen []*core.ProviderLink
	l := newLink(s, core.ProviderGoogle, "g-ada")
	u, c, err := claim(ada.user.ID, l, func(u *core.User, links []*core.ProviderLink) error {
		seen = links
		u.PasswordHash, u.Providers, u.EmailVerified = "", []string{core.ProviderGoogle}, true
		return nil
	})
	must(t, err)
	if len(seen) != 1 || seen[0].Subject != "gh-ada" {
		t.Fatalf("fn saw the links %v", seen)
	}
	want := core.Claimed{Sessions: 1, AccessTokens: 1, Links: 1, Codes: 1, Passkeys: wantPasskeys}
	if c != want {
		t.Fatalf("claimed %+v, want %+v", c, want)
	}
	if u.PasswordHash != "" || !u.EmailVerified || !slices.Equal(u.Providers, []string{core.ProviderGoogle}) || l.UserID != ada.user.ID {
		t.Fatalf("claimed user %+v, link %+v", u, l)
	}
	stored, err := s.Users.FindUserByID(ctx, ada.user.ID)
	must(t, err)
	if stored.PasswordHash != "" || !stored.EmailVerified {
		t.Fatalf("stored user %+v", stored)
	}
	_, err = s.Sessions.FindSessionByID(ctx, ada.session.ID)
	wantCode(t, err, core.ENotFound)
	_, err = s.Tokens.FindAccessTokenByHash(ctx, ada.token.Hash)
	wantCode(t, err, core.ETokenNotFound)
	// The messages are core's to pause after the claim: the store keeps them.
	_, err = s.Messages.FindMessageByID(ctx, ada.message.ID)
	must(t, err)
	code, err := s.ActionCodes.FindActionCode(ctx, ada.code)
	must(t, err)
	if !code.UsedAt.Equal(now) {
		t.Fatalf("ada's code used at %v, want %v", code.UsedAt, now)
	}
	_, err = s.Links.FindProviderLink(ctx, core.ProviderGitHub, "gh-ada")
	wantCode(t, err, core.ENotFound)
	wantLinks(t, s, ada.user.ID, "google:g-ada")
	if s.Passkeys != nil {
		ps, err := s.Passkeys.ListUserPasskeys(ctx, ada.user.ID)
		must(t, err)
		if len(ps) != 0 {
			t.Fatalf("the maker's passkeys outlived the claim: %+v", ps)
		}
		_, err = s.Passkeys.FindPasskeyByCredential(ctx, []byte("cred-ada"))
		wantCode(t, err, core.ENotFound)
	}
	if s.Devices != nil {
		b, err := s.Devices.FindDeviceBook(ctx, ada.user.ID)
		if err == nil && b.AlertsOff {
			t.Fatalf("the maker's device book outlived the claim: %+v", b)
		}
	}
	grace.intact(t, s, "gh-grace")
}

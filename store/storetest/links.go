package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// needsLinks skips a test for a backend without the provider link store.
func needsLinks(fn func(t *testing.T, s Stores)) func(t *testing.T, s Stores) {
	return func(t *testing.T, s Stores) {
		if s.Links == nil {
			t.Skip("the backend has no provider link store")
		}
		fn(t, s)
	}
}

func newLink(s Stores, provider, subject string) *core.ProviderLink {
	return &core.ProviderLink{Provider: provider, Subject: subject, Email: subject + "@example.com", CreatedAt: s.Clock.Now()}
}

// wantLinks fails unless the user's links are the provider accounts
// provider:subject, in order.
func wantLinks(tb testing.TB, s Stores, userID string, want ...string) {
	tb.Helper()
	links, err := s.Links.ListProviderLinks(ctx, userID)
	must(tb, err)
	var got []string
	for _, l := range links {
		if l.UserID != userID {
			tb.Fatalf("link %s:%s of user %s listed for %s", l.Provider, l.Subject, l.UserID, userID)
		}
		got = append(got, l.Provider+":"+l.Subject)
	}
	if !slices.Equal(got, want) {
		tb.Fatalf("links of %s = %v, want %v", userID, got, want)
	}
}

func testLinksCreateUser(t *testing.T, s Stores) {
	u := &core.User{ID: core.NewID(), Email: "ada@example.com", Providers: []string{core.ProviderGoogle}, CreatedAt: s.Clock.Now()}
	l := newLink(s, core.ProviderGoogle, "g-ada")
	l.PendingCodeHash = "hash"
	must(t, s.Links.CreateUserWithLink(ctx, u, l))
	got, err := s.Links.FindProviderLink(ctx, core.ProviderGoogle, "g-ada")
	must(t, err)
	if got.UserID != u.ID || got.Email != "g-ada@example.com" || got.PendingCodeHash != "hash" || !got.CreatedAt.Equal(s.Clock.Now()) {
		t.Fatalf("FindProviderLink = %+v", got)
	}
	wantLinks(t, s, u.ID, "google:g-ada")
	_, err = s.Links.FindProviderLink(ctx, core.ProviderGitHub, "g-ada")
	wantCode(t, err, core.ENotFound)

	// The same provider account for another new user: nothing is created.
	v := &core.User{ID: core.NewID(), Email: "grace@example.com"}
	wantCode(t, s.Links.CreateUserWithLink(ctx, v, newLink(s, core.ProviderGoogle, "g-ada")), core.ECredentialInUse)
	_, err = s.Users.FindUserByEmail(ctx, "grace@example.com")
	wantCode(t, err, core.EUserNotFound)
	// An email in use: no link is stored.
	w := &core.User{ID: core.NewID(), Email: "ADA@example.com"}
	wantCode(t, s.Links.CreateUserWithLink(ctx, w, newLink(s, core.ProviderGitHub, "gh-w")), core.EEmailInUse)
	_, err = s.Links.FindProviderLink(ctx, core.ProviderGitHub, "gh-w")
	wantCode(t, err, core.ENotFound)
}

func testLinksLinkAndUnlink(t *testing.T, s Stores) {
	ada := MustCreateUser(t, s, "ada@example.com")
	grace := MustCreateUser(t, s, "grace@example.com")
	addProvider := func(provider string) func(u *core.User, links []*core.ProviderLink) error {
		return func(u *core.User, links []*core.ProviderLink) error {
			u.Providers = append(u.Providers, provider)
			return nil
		}
	}

	s.Clock.Add(time.Minute)
	l := newLink(s, core.ProviderGitHub, "gh-ada")
	l.UserID = ada.ID
	var seen int
	u, err := s.Links.LinkProvider(ctx, l, func(u *core.User, links []*core.ProviderLink) error {
		seen = len(links)
		return addProvider(core.ProviderGitHub)(u, links)
	})
	must(t, err)
	if seen != 0 || !slices.Equal(u.Providers, []string{core.ProviderPassword, core.ProviderGitHub}) {
		t.Fatalf("after LinkProvider: fn saw %d links, providers %v", seen, u.Providers)
	}
	s.Clock.Add(time.Minute)
	l = newLink(s, core.ProviderFacebook, "fb-ada")
	l.UserID = ada.ID
	_, err = s.Links.LinkProvider(ctx, l, func(u *core.User, links []*core.ProviderLink) error {
		seen = len(links)
		return addProvider(core.ProviderFacebook)(u, links)
	})
	must(t, err)
	if seen != 1 {
		t.Fatalf("the second link's fn saw %d links, want 1", seen)
	}
	wantLinks(t, s, ada.ID, "github:gh-ada", "facebook:fb-ada")

	// Refusals change nothing: a second GitHub account for ada, ada's GitHub
	// account for grace, and fn's own error.
	wantUnchanged := func(what string) {
		t.Helper()
		u, err := s.Users.FindUserByID(ctx, grace.ID)
		must(t, err)
		if !slices.Equal(u.Providers, []string{core.ProviderPassword}) {
			t.Fatalf("%s: grace's providers = %v", what, u.Providers)
		}
		wantLinks(t, s, grace.ID)
		wantLinks(t, s, ada.ID, "github:gh-ada", "facebook:fb-ada")
	}
	second := newLink(s, core.ProviderGitHub, "gh-ada-2")
	second.UserID = ada.ID
	_, err = s.Links.LinkProvider(ctx, second, addProvider(core.ProviderGitHub))
	wantCode(t, err, core.EConflict)
	taken := newLink(s, core.ProviderGitHub, "gh-ada")
	taken.UserID = grace.ID
	_, err = s.Links.LinkProvider(ctx, taken, addProvider(core.ProviderGitHub))
	wantCode(t, err, core.ECredentialInUse)
	wantUnchanged("refused links")
	mine := newLink(s, core.ProviderGitHub, "gh-grace")
	mine.UserID = grace.ID
	_, err = s.Links.LinkProvider(ctx, mine, func(*core.User, []*core.ProviderLink) error { return errAbort })
	if !errors.Is(err, errAbort) {
		t.Fatalf("LinkProvider with an aborting fn: %v", err)
	}
	wantUnchanged("an aborted link")
	_, err = s.Links.LinkProvider(ctx, &core.ProviderLink{Provider: core.ProviderGitHub, Subject: "x", UserID: "nobody"}, addProvider(core.ProviderGitHub))
	wantCode(t, err, core.EUserNotFound)

	// Unlink: fn sees the links and may refuse; an unknown link is not found.
	_, err = s.Links.UnlinkProvider(ctx, ada.ID, core.ProviderGitHub, func(*core.User, []*core.ProviderLink) error { return errAbort })
	if !errors.Is(err, errAbort) {
		t.Fatalf("UnlinkProvider with an aborting fn: %v", err)
	}
	wantLinks(t, s, ada.ID, "github:gh-ada", "facebook:fb-ada")
	_, err = s.Links.UnlinkProvider(ctx, grace.ID, core.ProviderGitHub, addProvider("changed"))
	wantCode(t, err, core.ENotFound)
	wantUnchanged("unlinking what is not linked")
	u, err = s.Links.UnlinkProvider(ctx, ada.ID, core.ProviderGitHub, func(u *core.User, links []*core.ProviderLink) error {
		seen = len(links)
		u.Providers = slices.DeleteFunc(u.Providers, func(p string) bool { return p == core.ProviderGitHub })
		return nil
	})
	must(t, err)
	if seen != 2 || !slices.Equal(u.Providers, []string{core.ProviderPassword, core.ProviderFacebook}) {
		t.Fatalf("after UnlinkProvider: fn saw %d, providers %v", seen, u.Providers)
	}
	_, err = s.Links.FindProviderLink(ctx, core.ProviderGitHub, "gh-ada")
	wantCode(t, err, core.ENotFound)
	wantLinks(t, s, ada.ID, "facebook:fb-ada")

	// The unlinked account may be linked to someone else now.
	_, err = s.Links.LinkProvider(ctx, taken, addProvider(core.ProviderGitHub))
	must(t, err)
	wantLinks(t, s, grace.ID, "github:gh-ada")
}

func testLinksUpdate(t *testing.T, s Stores) {
	u := &core.User{ID: core.NewID(), Email: "ada@example.com"}
	l := newLink(s, core.ProviderTwitter, "x-ada")
	l.PendingCodeHash = "h1"
	must(t, s.Links.CreateUserWithLink(ctx, u, l))
	got, err := s.Links.UpdateProviderLink(ctx, core.ProviderTwitter, "x-ada", func(l *core.ProviderLink) error {
		l.PendingCodeHash = ""
		return nil
	})
	must(t, err)
	again, err := s.Links.FindProviderLink(ctx, core.ProviderTwitter, "x-ada")
	must(t, err)
	if got.PendingCodeHash != "" || again.PendingCodeHash != "" || again.UserID != u.ID {
		t.Fatalf("after UpdateProviderLink: %+v / %+v", got, again)
	}
	_, err = s.Links.UpdateProviderLink(ctx, core.ProviderTwitter, "x-ada", func(l *core.ProviderLink) error {
		l.UserID = "someone-else"
		return nil
	})
	wantCode(t, err, core.EInvalid)
	_, err = s.Links.UpdateProviderLink(ctx, core.ProviderTwitter, "nobody", func(*core.ProviderLink) error { return nil })
	wantCode(t, err, core.ENotFound)
}

func testLinksDeleteUser(t *testing.T, s Stores) {
	u := &core.User{ID: core.NewID(), Email: "ada@example.com"}
	must(t, s.Links.CreateUserWithLink(ctx, u, newLink(s, core.ProviderGoogle, "g-ada")))
	must(t, s.Users.DeleteUser(ctx, u.ID))
	_, err := s.Links.FindProviderLink(ctx, core.ProviderGoogle, "g-ada")
	wantCode(t, err, core.ENotFound)
	wantLinks(t, s, u.ID)
	v := &core.User{ID: core.NewID(), Email: "ada@example.com"}
	must(t, s.Links.CreateUserWithLink(ctx, v, newLink(s, core.ProviderGoogle, "g-ada")))
	wantLinks(t, s, v.ID, "google:g-ada")
}

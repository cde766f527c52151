package storetest

import (
	"slices"
	"testing"

	"github.com/sendlater/sendlater/core"
)

// A token's scopes are kept as made, through every read and an update of
// something else; a token made without (before tokens had scopes) reads
// back with none, nil, which core takes for every scope.
func testAccessTokenScopes(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	old := MustCreateAccessToken(t, s, u.ID, "from before scopes")
	scoped := &core.AccessToken{UserID: u.ID, Name: "reader", Hash: core.HashSecret(core.NewSecret()),
		CreatedAt: s.Clock.Now(), Scopes: []string{core.ScopeMessagesRead, core.ScopeAccount}}
	must(t, s.Tokens.CreateAccessToken(ctx, scoped))

	check := func(when string) {
		t.Helper()
		got, err := s.Tokens.FindAccessTokenByHash(ctx, scoped.Hash)
		must(t, err)
		if !slices.Equal(got.Scopes, scoped.Scopes) {
			t.Fatalf("%s: FindAccessTokenByHash scopes = %q, want %q", when, got.Scopes, scoped.Scopes)
		}
		got, err = s.Tokens.FindAccessTokenByHash(ctx, old.Hash)
		must(t, err)
		if got.Scopes != nil {
			t.Fatalf("%s: a token made without scopes reads back with %q, want nil", when, got.Scopes)
		}
		list, err := s.Tokens.ListAccessTokens(ctx, u.ID)
		must(t, err)
		for _, l := range list {
			want := scoped.Scopes
			if l.ID == old.ID {
				want = nil
			}
			if !slices.Equal(l.Scopes, want) || (want == nil) != (l.Scopes == nil) {
				t.Fatalf("%s: ListAccessTokens %s scopes = %q, want %q", when, l.Name, l.Scopes, want)
			}
		}
	}
	check("as made")
	for _, tok := range []*core.AccessToken{scoped, old} {
		_, err := s.Tokens.UpdateAccessToken(ctx, tok.ID, func(t *core.AccessToken) error { t.LastUsedAt = s.Clock.Now(); return nil })
		must(t, err)
	}
	check("after an update of its last use")
}

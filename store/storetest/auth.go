package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// MustCreateSession creates a session of user with a fresh refresh hash.
func MustCreateSession(tb testing.TB, s Stores, userID string) *core.Session {
	tb.Helper()
	now := s.Clock.Now()
	x := &core.Session{
		UserID: userID, RefreshHash: core.HashSecret(core.NewSecret()), AuthTime: now,
		CreatedAt: now, LastUsedAt: now, ExpiresAt: now.AddDate(0, 0, 30), UserAgent: "storetest",
	}
	must(tb, s.Sessions.CreateSession(ctx, x))
	if x.ID == "" {
		tb.Fatal("CreateSession left the id empty")
	}
	return x
}

// MustCreateAccessToken creates a token of user with a fresh hash.
func MustCreateAccessToken(tb testing.TB, s Stores, userID, name string) *core.AccessToken {
	tb.Helper()
	t := &core.AccessToken{UserID: userID, Name: name, Hash: core.HashSecret(core.NewSecret()), CreatedAt: s.Clock.Now()}
	must(tb, s.Tokens.CreateAccessToken(ctx, t))
	if t.ID == "" {
		tb.Fatal("CreateAccessToken left the id empty")
	}
	return t
}

func testSessions(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	x := MustCreateSession(t, s, u.ID)
	got, err := s.Sessions.FindSessionByID(ctx, x.ID)
	must(t, err)
	if got.UserID != u.ID || got.RefreshHash != x.RefreshHash || got.UserAgent != "storetest" ||
		!got.ExpiresAt.Equal(x.ExpiresAt) || !got.AuthTime.Equal(x.AuthTime) {
		t.Fatalf("FindSessionByID = %+v, want %+v", got, x)
	}
	_, err = s.Sessions.FindSessionByID(ctx, "nope")
	wantCode(t, err, core.ENotFound)
	_, _, err = s.Sessions.FindSessionByRefreshHash(ctx, "nope")
	wantCode(t, err, core.ENotFound)
	_, _, err = s.Sessions.FindSessionByRefreshHash(ctx, "")
	wantCode(t, err, core.ENotFound)
	_, err = s.Sessions.UpdateSession(ctx, "nope", func(*core.Session) error { return nil })
	wantCode(t, err, core.ENotFound)
	wantCode(t, s.Sessions.DeleteSession(ctx, "nope"), core.ENotFound)
	wantCode(t, s.Sessions.CreateSession(ctx, &core.Session{UserID: "ghost", RefreshHash: "h"}), core.EUserNotFound)

	_, err = s.Sessions.UpdateSession(ctx, x.ID, func(x *core.Session) error {
		x.RefreshHash, x.UserAgent = "changed", "changed"
		return errAbort
	})
	if !errors.Is(err, errAbort) {
		t.Fatalf("UpdateSession error = %v, want the callback's", err)
	}
	got, rotated, err := s.Sessions.FindSessionByRefreshHash(ctx, x.RefreshHash)
	must(t, err)
	if got.ID != x.ID || rotated || got.UserAgent != "storetest" {
		t.Fatalf("after an aborted update: %+v rotated %v", got, rotated)
	}
	_, _, err = s.Sessions.FindSessionByRefreshHash(ctx, "changed")
	wantCode(t, err, core.ENotFound)

	must(t, s.Sessions.DeleteSession(ctx, x.ID))
	_, err = s.Sessions.FindSessionByID(ctx, x.ID)
	wantCode(t, err, core.ENotFound)
	_, _, err = s.Sessions.FindSessionByRefreshHash(ctx, x.RefreshHash)
	wantCode(t, err, core.ENotFound)
}

func testSessionRotation(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	x := MustCreateSession(t, s, u.ID)
	first := x.RefreshHash
	var hashes []string
	for range 3 {
		s.Clock.Add(time.Minute)
		next := core.HashSecret(core.NewSecret())
		_, err := s.Sessions.UpdateSession(ctx, x.ID, func(x *core.Session) error {
			x.RotatedHashes = append(x.RotatedHashes, x.RefreshHash)
			x.RefreshHash, x.LastUsedAt, x.RefreshedAt = next, s.Clock.Now(), s.Clock.Now()
			return nil
		})
		must(t, err)
		hashes = append(hashes, next)
	}
	if got, _ := s.Sessions.FindSessionByID(ctx, x.ID); !got.RefreshedAt.Equal(s.Clock.Now()) {
		t.Fatalf("RefreshedAt = %v, want %v", got.RefreshedAt, s.Clock.Now())
	}
	current := hashes[len(hashes)-1]
	got, rotated, err := s.Sessions.FindSessionByRefreshHash(ctx, current)
	must(t, err)
	if got.ID != x.ID || rotated {
		t.Fatalf("by current hash: %s rotated %v", got.ID, rotated)
	}
	for _, h := range append([]string{first}, hashes[:len(hashes)-1]...) {
		got, rotated, err := s.Sessions.FindSessionByRefreshHash(ctx, h)
		must(t, err)
		if got.ID != x.ID || !rotated {
			t.Fatalf("by rotated hash: %s rotated %v", got.ID, rotated)
		}
	}
	// Dropping the oldest rotated hash (the bound) forgets it.
	_, err = s.Sessions.UpdateSession(ctx, x.ID, func(x *core.Session) error {
		x.RotatedHashes = x.RotatedHashes[1:]
		return nil
	})
	must(t, err)
	_, _, err = s.Sessions.FindSessionByRefreshHash(ctx, first)
	wantCode(t, err, core.ENotFound)
	got, rotated, err = s.Sessions.FindSessionByRefreshHash(ctx, hashes[0])
	must(t, err)
	if got.ID != x.ID || !rotated {
		t.Fatalf("by a kept rotated hash: %s rotated %v", got.ID, rotated)
	}
}

func testDeleteUserSessions(t *testing.T, s Stores) {
	a := MustCreateUser(t, s, "ada@example.com")
	b := MustCreateUser(t, s, "bob@example.com")
	a1, a2, a3 := MustCreateSession(t, s, a.ID), MustCreateSession(t, s, a.ID), MustCreateSession(t, s, a.ID)
	b1 := MustCreateSession(t, s, b.ID)
	must(t, s.Sessions.DeleteUserSessions(ctx, a.ID, a2.ID))
	for _, x := range []*core.Session{a1, a3} {
		_, err := s.Sessions.FindSessionByID(ctx, x.ID)
		wantCode(t, err, core.ENotFound)
		_, _, err = s.Sessions.FindSessionByRefreshHash(ctx, x.RefreshHash)
		wantCode(t, err, core.ENotFound)
	}
	for _, x := range []*core.Session{a2, b1} {
		_, _, err := s.Sessions.FindSessionByRefreshHash(ctx, x.RefreshHash)
		must(t, err)
	}
	must(t, s.Sessions.DeleteUserSessions(ctx, a.ID, ""))
	_, err := s.Sessions.FindSessionByID(ctx, a2.ID)
	wantCode(t, err, core.ENotFound)
	_, err = s.Sessions.FindSessionByID(ctx, b1.ID)
	must(t, err)
}

func testAccessTokens(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	other := MustCreateUser(t, s, "bob@example.com")
	t1 := MustCreateAccessToken(t, s, u.ID, "laptop")
	s.Clock.Add(time.Minute)
	t2 := MustCreateAccessToken(t, s, u.ID, "cron")
	MustCreateAccessToken(t, s, other.ID, "bob's")

	got, err := s.Tokens.FindAccessTokenByHash(ctx, t2.Hash)
	must(t, err)
	if got.ID != t2.ID || got.UserID != u.ID || got.Name != "cron" || !got.CreatedAt.Equal(t2.CreatedAt) {
		t.Fatalf("FindAccessTokenByHash = %+v, want %+v", got, t2)
	}
	list, err := s.Tokens.ListAccessTokens(ctx, u.ID)
	must(t, err)
	if len(list) != 2 || list[0].ID != t1.ID || list[1].ID != t2.ID {
		t.Fatalf("ListAccessTokens = %+v, want laptop then cron", list)
	}
	list, err = s.Tokens.ListAccessTokens(ctx, "nobody")
	must(t, err)
	if len(list) != 0 {
		t.Fatalf("tokens of nobody: %v", list)
	}

	_, err = s.Tokens.FindAccessTokenByHash(ctx, "nope")
	wantCode(t, err, core.ETokenNotFound)
	_, err = s.Tokens.UpdateAccessToken(ctx, "nope", func(*core.AccessToken) error { return nil })
	wantCode(t, err, core.ETokenNotFound)
	wantCode(t, s.Tokens.DeleteAccessToken(ctx, "nope"), core.ETokenNotFound)

	s.Clock.Add(time.Minute)
	used := s.Clock.Now()
	_, err = s.Tokens.UpdateAccessToken(ctx, t1.ID, func(t *core.AccessToken) error { t.LastUsedAt = used; return nil })
	must(t, err)
	got, err = s.Tokens.FindAccessTokenByHash(ctx, t1.Hash)
	must(t, err)
	if !got.LastUsedAt.Equal(used) {
		t.Fatalf("LastUsedAt = %v, want %v", got.LastUsedAt, used)
	}
	_, err = s.Tokens.UpdateAccessToken(ctx, t1.ID, func(t *core.AccessToken) error { t.Name = "x"; return errAbort })
	if !errors.Is(err, errAbort) {
		t.Fatalf("UpdateAccessToken error = %v, want the callback's", err)
	}

	// A new hash replaces the old one in the index.
	newHash := core.HashSecret(core.NewSecret())
	_, err = s.Tokens.UpdateAccessToken(ctx, t1.ID, func(t *core.AccessToken) error { t.Hash = newHash; return nil })
	must(t, err)
	_, err = s.Tokens.FindAccessTokenByHash(ctx, t1.Hash)
	wantCode(t, err, core.ETokenNotFound)
	got, err = s.Tokens.FindAccessTokenByHash(ctx, newHash)
	must(t, err)
	if got.ID != t1.ID || got.Name != "laptop" {
		t.Fatalf("by new hash: %+v", got)
	}

	must(t, s.Tokens.DeleteAccessToken(ctx, t2.ID))
	_, err = s.Tokens.FindAccessTokenByHash(ctx, t2.Hash)
	wantCode(t, err, core.ETokenNotFound)
	list, err = s.Tokens.ListAccessTokens(ctx, u.ID)
	must(t, err)
	if len(list) != 1 || list[0].ID != t1.ID {
		t.Fatalf("after delete: %+v", list)
	}
}

// testDeleteExpiredSessions: only sessions expired before now go, also when
// a refresh moved their expiry, and they can no longer be found.
func testDeleteExpiredSessions(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	now := s.Clock.Now()
	old := MustCreateSession(t, s, u.ID)
	kept := MustCreateSession(t, s, u.ID)
	extended := MustCreateSession(t, s, u.ID)
	for id, expires := range map[string]time.Time{
		old.ID: now.Add(time.Hour), kept.ID: now.Add(3 * time.Hour), extended.ID: now.Add(time.Hour),
	} {
		_, err := s.Sessions.UpdateSession(ctx, id, func(x *core.Session) error { x.ExpiresAt = expires; return nil })
		must(t, err)
	}
	// A refresh slides the expiry on: the index must follow.
	_, err := s.Sessions.UpdateSession(ctx, extended.ID, func(x *core.Session) error {
		x.ExpiresAt = now.Add(5 * time.Hour)
		return nil
	})
	must(t, err)

	n, err := s.Sessions.DeleteExpiredSessions(ctx, now.Add(2*time.Hour))
	must(t, err)
	if n != 1 {
		t.Fatalf("deleted %d sessions, want 1", n)
	}
	_, err = s.Sessions.FindSessionByID(ctx, old.ID)
	wantCode(t, err, core.ENotFound)
	_, _, err = s.Sessions.FindSessionByRefreshHash(ctx, old.RefreshHash)
	wantCode(t, err, core.ENotFound)
	for _, x := range []*core.Session{kept, extended} {
		_, err = s.Sessions.FindSessionByID(ctx, x.ID)
		must(t, err)
	}
	if n, err = s.Sessions.DeleteExpiredSessions(ctx, now.Add(2*time.Hour)); err != nil || n != 0 {
		t.Fatalf("second sweep deleted %d (%v)", n, err)
	}
}

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

func testActionCodes(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	now := s.Clock.Now()
	c := &core.ActionCode{
		Hash: core.HashSecret(core.NewSecret()), Mode: core.ModeRecoverEmail, UserID: u.ID,
		Email: "new@example.com", OldEmail: u.Email, CreatedAt: now, ExpiresAt: now.Add(time.Hour),
	}
	must(t, s.ActionCodes.CreateActionCode(ctx, c))
	got, err := s.ActionCodes.FindActionCode(ctx, c.Hash)
	must(t, err)
	if got.Mode != c.Mode || got.UserID != u.ID || got.Email != c.Email || got.OldEmail != c.OldEmail ||
		!got.ExpiresAt.Equal(c.ExpiresAt) || !got.UsedAt.IsZero() {
		t.Fatalf("FindActionCode = %+v, want %+v", got, c)
	}
	_, err = s.ActionCodes.FindActionCode(ctx, "nope")
	wantCode(t, err, core.EInvalidActionCode)
	_, err = s.ActionCodes.UseActionCode(ctx, "nope", now)
	wantCode(t, err, core.EInvalidActionCode)

	at := now.Add(time.Minute)
	used, err := s.ActionCodes.UseActionCode(ctx, c.Hash, at)
	must(t, err)
	if !used.UsedAt.Equal(at) || used.Email != c.Email {
		t.Fatalf("UseActionCode = %+v", used)
	}
	_, err = s.ActionCodes.UseActionCode(ctx, c.Hash, at.Add(time.Second))
	wantCode(t, err, core.EInvalidActionCode)
	got, err = s.ActionCodes.FindActionCode(ctx, c.Hash)
	must(t, err)
	if !got.UsedAt.Equal(at) {
		t.Fatalf("UsedAt = %v, want %v", got.UsedAt, at)
	}
}

func testActionCodeExpiry(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	now := s.Clock.Now()
	code := func(ttl time.Duration) *core.ActionCode {
		c := &core.ActionCode{
			Hash: core.HashSecret(core.NewSecret()), Mode: core.ModeResetPassword, UserID: u.ID,
			Email: u.Email, CreatedAt: now, ExpiresAt: now.Add(ttl),
		}
		must(t, s.ActionCodes.CreateActionCode(ctx, c))
		return c
	}
	short, long := code(time.Hour), code(3*time.Hour)
	_, err := s.ActionCodes.UseActionCode(ctx, short.Hash, short.ExpiresAt)
	wantCode(t, err, core.EExpiredActionCode)
	got, err := s.ActionCodes.FindActionCode(ctx, short.Hash)
	must(t, err)
	if !got.UsedAt.IsZero() {
		t.Fatal("an expired code was marked used")
	}

	n, err := s.ActionCodes.DeleteExpiredActionCodes(ctx, now.Add(2*time.Hour))
	must(t, err)
	if n != 1 {
		t.Fatalf("DeleteExpiredActionCodes = %d, want 1", n)
	}
	_, err = s.ActionCodes.FindActionCode(ctx, short.Hash)
	wantCode(t, err, core.EInvalidActionCode)
	if _, err := s.ActionCodes.UseActionCode(ctx, long.Hash, now.Add(2*time.Hour)); err != nil {
		t.Fatalf("the unexpired code: %v", err)
	}
	n, err = s.ActionCodes.DeleteExpiredActionCodes(ctx, now.Add(2*time.Hour))
	must(t, err)
	if n != 0 {
		t.Fatalf("second DeleteExpiredActionCodes = %d, want 0", n)
	}
}

func testContacts(t *testing.T, s Stores) {
	var want []string // newest first
	for i := range 3 {
		s.Clock.Add(time.Minute)
		c := &core.ContactSubmission{Name: "Ada", Email: "ada@example.com", Message: "hello " + string(rune('a'+i)), CreatedAt: s.Clock.Now()}
		must(t, s.Contacts.CreateContact(ctx, c))
		if c.ID == "" {
			t.Fatal("CreateContact left the id empty")
		}
		want = append([]string{c.ID}, want...)
	}
	all, err := s.Contacts.ListContacts(ctx, 0)
	must(t, err)
	if len(all) != 3 || all[0].ID != want[0] || all[2].ID != want[2] || all[0].Message != "hello c" || all[0].Email != "ada@example.com" {
		t.Fatalf("ListContacts = %+v, want ids %v", all, want)
	}
	two, err := s.Contacts.ListContacts(ctx, 2)
	must(t, err)
	if len(two) != 2 || two[1].ID != want[1] {
		t.Fatalf("ListContacts(2) = %+v", two)
	}
}

func testDeleteUserCascades(t *testing.T, s Stores) {
	a := MustCreateUser(t, s, "ada@example.com")
	b := MustCreateUser(t, s, "bob@example.com")
	var am []*core.Message
	for range 3 {
		am = append(am, MustCreateMessage(t, s, a.ID, core.Interval1M))
	}
	bm := MustCreateMessage(t, s, b.ID, core.Interval1M)
	as, bs := MustCreateSession(t, s, a.ID), MustCreateSession(t, s, b.ID)
	at, bt := MustCreateAccessToken(t, s, a.ID, "a"), MustCreateAccessToken(t, s, b.ID, "b")

	must(t, s.Users.DeleteUser(ctx, a.ID))

	for _, m := range am {
		_, err := s.Messages.FindMessageByID(ctx, m.ID)
		wantCode(t, err, core.EMessageNotFound)
	}
	n, err := s.Messages.CountMessages(ctx, a.ID)
	must(t, err)
	if n != 0 {
		t.Fatalf("CountMessages of a deleted user = %d", n)
	}
	list, total, err := s.Messages.ListMessages(ctx, core.MessageFilter{})
	must(t, err)
	wantIDs(t, "all messages", list, bm.ID)
	if total != 1 {
		t.Fatalf("total = %d", total)
	}
	wantDue(t, s, bm.SendDate.AddDate(1, 0, 0), bm.ID)
	wantReminders(t, s, bm.SendDate.AddDate(1, 0, 0), bm.ID)
	_, err = s.Sessions.FindSessionByID(ctx, as.ID)
	wantCode(t, err, core.ENotFound)
	_, _, err = s.Sessions.FindSessionByRefreshHash(ctx, as.RefreshHash)
	wantCode(t, err, core.ENotFound)
	_, err = s.Tokens.FindAccessTokenByHash(ctx, at.Hash)
	wantCode(t, err, core.ETokenNotFound)
	tokens, err := s.Tokens.ListAccessTokens(ctx, a.ID)
	must(t, err)
	if len(tokens) != 0 {
		t.Fatalf("tokens of a deleted user: %v", tokens)
	}

	// Bob keeps everything.
	_, err = s.Messages.FindMessageByID(ctx, bm.ID)
	must(t, err)
	_, err = s.Sessions.FindSessionByID(ctx, bs.ID)
	must(t, err)
	_, err = s.Tokens.FindAccessTokenByHash(ctx, bt.Hash)
	must(t, err)

	// The address is free for a new account.
	MustCreateUser(t, s, "Ada@example.com")
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

package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

func testUsers(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "Ada@Example.com")
	got, err := s.Users.FindUserByID(ctx, u.ID)
	must(t, err)
	if got.Email != "Ada@Example.com" || got.Name != u.Name || got.Timezone != u.Timezone ||
		got.PasswordHash != u.PasswordHash || !slices.Equal(got.Providers, u.Providers) ||
		!got.CreatedAt.Equal(u.CreatedAt) || !got.UpdatedAt.Equal(u.UpdatedAt) {
		t.Fatalf("FindUserByID = %+v, want %+v", got, u)
	}
	for _, email := range []string{"ada@example.com", "ADA@EXAMPLE.COM", " Ada@Example.com "} {
		got, err := s.Users.FindUserByEmail(ctx, email)
		must(t, err)
		if got.ID != u.ID {
			t.Fatalf("FindUserByEmail(%q) = %s, want %s", email, got.ID, u.ID)
		}
	}
	_, err = s.Users.FindUserByID(ctx, "nope")
	wantCode(t, err, core.EUserNotFound)
	_, err = s.Users.FindUserByEmail(ctx, "nobody@example.com")
	wantCode(t, err, core.EUserNotFound)
	_, err = s.Users.FindUserByEmail(ctx, "")
	wantCode(t, err, core.EUserNotFound)

	s.Clock.Add(time.Minute)
	up, err := s.Users.UpdateUser(ctx, u.ID, func(u *core.User) error {
		u.Name, u.EmailVerified, u.StripePriceID, u.StripeSubscriptionStatus = "Ada L.", true, "plan:pro", "active"
		u.UpdatedAt = s.Clock.Now()
		return nil
	})
	must(t, err)
	got, err = s.Users.FindUserByID(ctx, u.ID)
	must(t, err)
	if got.Name != "Ada L." || !got.EmailVerified || got.StripePriceID != "plan:pro" ||
		got.StripeSubscriptionStatus != "active" || !got.UpdatedAt.Equal(s.Clock.Now()) || up.Name != "Ada L." {
		t.Fatalf("after UpdateUser: %+v", got)
	}
	_, err = s.Users.UpdateUser(ctx, "nope", func(*core.User) error { return nil })
	wantCode(t, err, core.EUserNotFound)

	// An id is given when the caller has none.
	v := &core.User{Email: "v@example.com"}
	must(t, s.Users.CreateUser(ctx, v))
	if v.ID == "" {
		t.Fatal("CreateUser left the id empty")
	}

	must(t, s.Users.DeleteUser(ctx, u.ID))
	_, err = s.Users.FindUserByID(ctx, u.ID)
	wantCode(t, err, core.EUserNotFound)
	_, err = s.Users.FindUserByEmail(ctx, u.Email)
	wantCode(t, err, core.EUserNotFound)
	wantCode(t, s.Users.DeleteUser(ctx, u.ID), core.EUserNotFound)
}

func testUserEmailUnique(t *testing.T, s Stores) {
	a := MustCreateUser(t, s, "ada@example.com")
	dup := &core.User{ID: core.NewID(), Email: "ADA@example.COM"}
	wantCode(t, s.Users.CreateUser(ctx, dup), core.EEmailInUse)
	_, err := s.Users.FindUserByID(ctx, dup.ID)
	wantCode(t, err, core.EUserNotFound)
	got, err := s.Users.FindUserByEmail(ctx, "Ada@Example.com")
	must(t, err)
	if got.ID != a.ID {
		t.Fatalf("email now belongs to %s, want %s", got.ID, a.ID)
	}
}

func testUserEmailChange(t *testing.T, s Stores) {
	a := MustCreateUser(t, s, "ada@example.com")
	b := MustCreateUser(t, s, "bob@example.com")

	_, err := s.Users.UpdateUser(ctx, a.ID, func(u *core.User) error { u.Email = "Ada.New@Example.com"; return nil })
	must(t, err)
	_, err = s.Users.FindUserByEmail(ctx, "ada@example.com")
	wantCode(t, err, core.EUserNotFound)
	got, err := s.Users.FindUserByEmail(ctx, "ada.new@example.com")
	must(t, err)
	if got.ID != a.ID || got.Email != "Ada.New@Example.com" {
		t.Fatalf("by new email: %+v", got)
	}
	// The old address is free again.
	MustCreateUser(t, s, "ADA@example.com")

	// Taking another user's address, in any case, fails and changes nothing.
	_, err = s.Users.UpdateUser(ctx, a.ID, func(u *core.User) error { u.Email, u.Name = "BOB@example.com", "x"; return nil })
	wantCode(t, err, core.EEmailInUse)
	got, err = s.Users.FindUserByID(ctx, a.ID)
	must(t, err)
	if got.Email != "Ada.New@Example.com" || got.Name == "x" {
		t.Fatalf("failed update changed the user: %+v", got)
	}
	got, err = s.Users.FindUserByEmail(ctx, "bob@example.com")
	must(t, err)
	if got.ID != b.ID {
		t.Fatalf("bob's address moved to %s", got.ID)
	}

	// A change of case only keeps the address.
	_, err = s.Users.UpdateUser(ctx, b.ID, func(u *core.User) error { u.Email = "Bob@Example.com"; return nil })
	must(t, err)
	got, err = s.Users.FindUserByEmail(ctx, "bob@example.com")
	must(t, err)
	if got.ID != b.ID || got.Email != "Bob@Example.com" {
		t.Fatalf("after a case change: %+v", got)
	}
}

func testUserUpdateAborts(t *testing.T, s Stores) {
	a := MustCreateUser(t, s, "ada@example.com")
	_, err := s.Users.UpdateUser(ctx, a.ID, func(u *core.User) error {
		u.Name, u.Email = "changed", "changed@example.com"
		return errAbort
	})
	if !errors.Is(err, errAbort) {
		t.Fatalf("UpdateUser error = %v, want the callback's", err)
	}
	got, err := s.Users.FindUserByID(ctx, a.ID)
	must(t, err)
	if got.Name != a.Name || got.Email != a.Email {
		t.Fatalf("aborted update changed the user: %+v", got)
	}
	_, err = s.Users.FindUserByEmail(ctx, "changed@example.com")
	wantCode(t, err, core.EUserNotFound)
}

func testListUsers(t *testing.T, s Stores) {
	var want []string
	for _, e := range []string{"a@example.com", "b@example.com", "c@example.com", "d@example.com", "e@example.com"} {
		want = append(want, MustCreateUser(t, s, e).ID)
	}
	all, total, err := s.Users.ListUsers(ctx, core.UserFilter{})
	must(t, err)
	if total != 5 || len(all) != 5 {
		t.Fatalf("ListUsers = %d users, total %d; want 5, 5", len(all), total)
	}
	var got []string
	for _, u := range all {
		got = append(got, u.ID)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("ListUsers ids = %v, want %v", got, want)
	}
	// Pages follow the same order as the full list.
	page, total, err := s.Users.ListUsers(ctx, core.UserFilter{Offset: 1, Limit: 2})
	must(t, err)
	if total != 5 || len(page) != 2 || page[0].ID != all[1].ID || page[1].ID != all[2].ID {
		t.Fatalf("page = %d users (total %d), want all[1:3]", len(page), total)
	}
	page, total, err = s.Users.ListUsers(ctx, core.UserFilter{Offset: 10})
	must(t, err)
	if total != 5 || len(page) != 0 {
		t.Fatalf("page past the end = %d users, total %d", len(page), total)
	}
	byEmail, total, err := s.Users.ListUsers(ctx, core.UserFilter{Email: "C@EXAMPLE.COM"})
	must(t, err)
	if total != 1 || len(byEmail) != 1 || byEmail[0].Email != "c@example.com" {
		t.Fatalf("ListUsers by email = %v, total %d", byEmail, total)
	}
	none, total, err := s.Users.ListUsers(ctx, core.UserFilter{Email: "z@example.com"})
	must(t, err)
	if total != 0 || len(none) != 0 {
		t.Fatalf("ListUsers by unknown email = %v, total %d", none, total)
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

package storetest

import (
	"testing"

	"github.com/sendlater/sendlater/core"
)

// testReadsAfterChanges: a store may keep what it decoded to answer reads
// faster (bbolt keeps opened records beside their bytes, issue 14), but a
// read after a change or a deletion always sees it, and what a caller does
// to a record it got changes nothing the next read returns.
func testReadsAfterChanges(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	x := MustCreateSession(t, s, u.ID)
	m := MustCreateMessage(t, s, u.ID, core.Interval1M)
	for range 3 { // warm whatever a store keeps
		got, err := s.Users.FindUserByID(ctx, u.ID)
		must(t, err)
		got.Name = "scribbled"
		if len(got.Providers) > 0 {
			got.Providers[0] = "scribbled" // in place: a shared slice would carry it
		}
		xs, err := s.Sessions.FindSessionByID(ctx, x.ID)
		must(t, err)
		xs.UserAgent, xs.RotatedHashes = "scribbled", append(xs.RotatedHashes, "scribbled")
		ms, err := s.Messages.FindMessageByID(ctx, m.ID)
		must(t, err)
		ms.Title, ms.Body = "scribbled", "scribbled"
	}
	got, err := s.Users.FindUserByID(ctx, u.ID)
	must(t, err)
	if got.Name == "scribbled" || (len(got.Providers) > 0 && got.Providers[0] == "scribbled") {
		t.Fatalf("a caller's change to a user it read came back: %+v", got)
	}
	xs, err := s.Sessions.FindSessionByID(ctx, x.ID)
	must(t, err)
	if xs.UserAgent != "storetest" || len(xs.RotatedHashes) != 0 {
		t.Fatalf("a caller's change to a session it read came back: %+v", xs)
	}
	ms, err := s.Messages.FindMessageByID(ctx, m.ID)
	must(t, err)
	if ms.Title != m.Title || ms.Body != m.Body {
		t.Fatalf("a caller's change to a message it read came back: %q %q", ms.Title, ms.Body)
	}

	_, err = s.Users.UpdateUser(ctx, u.ID, func(u *core.User) error { u.Name = "Ada Lovelace"; return nil })
	must(t, err)
	_, err = s.Sessions.UpdateSession(ctx, x.ID, func(x *core.Session) error { x.UserAgent = "changed"; return nil })
	must(t, err)
	_, err = s.Messages.UpdateMessage(ctx, m.ID, func(m *core.Message) error { m.Title = "Changed"; return nil })
	must(t, err)
	if got, err = s.Users.FindUserByID(ctx, u.ID); err != nil || got.Name != "Ada Lovelace" {
		t.Fatalf("user after a change: %+v, %v", got, err)
	}
	if xs, err = s.Sessions.FindSessionByID(ctx, x.ID); err != nil || xs.UserAgent != "changed" {
		t.Fatalf("session after a change: %+v, %v", xs, err)
	}
	if ms, err = s.Messages.FindMessageByID(ctx, m.ID); err != nil || ms.Title != "Changed" {
		t.Fatalf("message after a change: %+v, %v", ms, err)
	}
	list, _, err := s.Messages.ListMessages(ctx, core.MessageFilter{Owner: u.ID})
	must(t, err)
	if len(list) != 1 || list[0].Title != "Changed" {
		t.Fatalf("list after a change: %+v", list)
	}

	must(t, s.Sessions.DeleteUserSessions(ctx, u.ID, ""))
	_, err = s.Sessions.FindSessionByID(ctx, x.ID)
	wantCode(t, err, core.ENotFound)
	must(t, s.Messages.DeleteMessage(ctx, m.ID))
	_, err = s.Messages.FindMessageByID(ctx, m.ID)
	wantCode(t, err, core.EMessageNotFound)
}

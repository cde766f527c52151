package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// testUserDisabled: a disabled user keeps when and which messages are held,
// and loses both when enabled again.
func testUserDisabled(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "dora@example.com")
	s.Clock.Add(time.Minute)
	at := s.Clock.Now()
	_, err := s.Users.UpdateUser(ctx, u.ID, func(u *core.User) error {
		u.DisabledAt, u.HeldMessages = at, []string{"m1", "m2"}
		return nil
	})
	must(t, err)
	got, err := s.Users.FindUserByEmail(ctx, "dora@example.com")
	must(t, err)
	if !got.Disabled() || !got.DisabledAt.Equal(at) || !slices.Equal(got.HeldMessages, []string{"m1", "m2"}) {
		t.Fatalf("disabled user read back as %+v", got)
	}
	_, err = s.Users.UpdateUser(ctx, u.ID, func(u *core.User) error {
		u.DisabledAt, u.HeldMessages = time.Time{}, nil
		return nil
	})
	must(t, err)
	got, err = s.Users.FindUserByID(ctx, u.ID)
	must(t, err)
	if got.Disabled() || got.HeldMessages != nil {
		t.Fatalf("enabled user read back as %+v", got)
	}
}

// testAudit: the audit log lists entries oldest first, from a time, up to a
// limit, as written.
func testAudit(t *testing.T, s Stores) {
	if s.Audit == nil {
		t.Skip("no audit store")
	}
	es, err := s.Audit.ListAudit(ctx, time.Time{}, 0)
	must(t, err)
	if es == nil || len(es) != 0 {
		t.Fatalf("empty log = %#v, want an empty list", es)
	}
	var written []*core.AuditEntry
	for i, action := range []string{"users.create", "users.disable", "messages.reveal"} {
		e := &core.AuditEntry{At: s.Clock.Now(), Actor: "alice (uid 1000)", Action: action, Target: "t" + string(rune('a'+i)), Detail: "d"}
		must(t, s.Audit.AppendAudit(ctx, e))
		if e.ID == "" {
			t.Fatal("AppendAudit left the id empty")
		}
		written = append(written, e)
		s.Clock.Add(time.Second)
	}
	es, err = s.Audit.ListAudit(ctx, time.Time{}, 0)
	must(t, err)
	if len(es) != 3 {
		t.Fatalf("ListAudit = %d entries, want 3", len(es))
	}
	for i, e := range es {
		w := written[i]
		if e.ID != w.ID || !e.At.Equal(w.At) || e.Actor != w.Actor || e.Action != w.Action || e.Target != w.Target || e.Detail != w.Detail {
			t.Fatalf("entry %d = %+v, want %+v", i, e, w)
		}
	}
	es, err = s.Audit.ListAudit(ctx, written[1].At, 0)
	must(t, err)
	if len(es) != 2 || es[0].ID != written[1].ID {
		t.Fatalf("ListAudit since the second = %+v", es)
	}
	es, err = s.Audit.ListAudit(ctx, time.Time{}, 1)
	must(t, err)
	if len(es) != 1 || es[0].ID != written[0].ID {
		t.Fatalf("ListAudit limit 1 = %+v", es)
	}
}

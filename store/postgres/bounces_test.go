package postgres_test

import (
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/seal"
	"github.com/sendlater/sendlater/store/storetest"
)

// A database before migration 0027 keeps its bounce marks inline in the
// sealed recipient lists: opening it with the key moves them to
// bounce_marks, sealed, once, and writes the lists again without them.
func TestMigrationMovesBounceMarks(t *testing.T) {
	url := pgtest.URL(t)
	db := mustOpen(t, url)
	s := stores(db)
	s.Clock = core.NewManualClock(storetest.Epoch)
	u := storetest.MustCreateUser(t, s, "old@example.com")
	m := storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)
	// More messages with a mark than a page holds: the move reads pages.
	more := []*core.Message{storetest.MustCreateMessage(t, s, u.ID, core.Interval1M), storetest.MustCreateMessage(t, s, u.ID, core.Interval6M)}
	db.Close()
	defer postgres.SetMoveMarksPage(2)()

	bounce := core.RecipientBounce{At: storetest.Epoch, Email: core.BounceNotice, Status: "5.1.1", Reason: "LEGACY-REASON-550"}
	old := *m
	old.Recipients = []core.Recipient{
		{Name: m.Name, Address: m.Recipient, Status: core.RecipientPending, Bounce: bounce, SoftBounces: 2},
		{Name: "Cy", Address: "Cy@Example.org", Status: core.RecipientPending, SoftBounces: 1},
	}
	sealer, err := seal.New(pgtest.Key)
	if err != nil {
		t.Fatal(err)
	}
	// The database as migration 26 left it, the list as its binary wrote it.
	pgtest.Exec(t, url, "drop table bounce_marks, bounce_marks_pending")
	pgtest.Exec(t, url, "delete from schema_migrations where version = 27")
	pgtest.Exec(t, url, "update messages set recipients = $2 where id = $1", m.ID, sealer.SealRecipientsWithMarks(&old))
	for _, o := range more {
		legacy := *o
		legacy.Recipients = []core.Recipient{{Name: o.Name, Address: o.Recipient, Status: core.RecipientPending, SoftBounces: 3}}
		pgtest.Exec(t, url, "update messages set recipients = $2 where id = $1", o.ID, sealer.SealRecipientsWithMarks(&legacy))
	}

	for range 2 { // the second opening finds nothing left to move
		db = mustOpen(t, url)
		got, err := db.FindMessageByID(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		rs := got.RecipientList()
		if len(rs) != 2 || rs[0].Bouncing() || rs[0].SoftBounces != 0 || rs[1].SoftBounces != 0 {
			t.Fatalf("the list still holds its marks: %+v", rs)
		}
		if err := core.JoinBounceMarks(ctx, db, got); err != nil {
			t.Fatal(err)
		}
		rs = got.RecipientList()
		if !rs[0].Bouncing() || rs[0].Bounce != bounce || rs[0].SoftBounces != 2 || rs[1].Bouncing() || rs[1].SoftBounces != 1 {
			t.Fatalf("after the migration: %+v", rs)
		}
		for _, o := range more {
			got, err := db.FindMessageByID(ctx, o.ID)
			if err != nil {
				t.Fatal(err)
			}
			if err := core.JoinBounceMarks(ctx, db, got); err != nil {
				t.Fatal(err)
			}
			if rs := got.RecipientList(); len(rs) != 1 || rs[0].SoftBounces != 3 {
				t.Fatalf("a message of a later page: %+v", rs)
			}
		}
		db.Close()
	}
	pgtest.Exec(t, url, `do $$ begin
		if exists (select 1 from bounce_marks where position('LEGACY-REASON' in encode(sealed, 'escape')) > 0) then
			raise exception 'a mark holds its reason in clear';
		end if;
		if (select count(*) from bounce_marks) <> 4 then raise exception 'not four marks'; end if;
	end $$`)
}

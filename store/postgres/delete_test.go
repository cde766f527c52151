package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/storetest"
)

// A user deleted while a settlement group holds some of their messages
// waits for it, and neither fails: the group locks messages in id order
// (settle.go), and so does the deletion before its cascade. The first
// message the group holds is made the middle one by creation, so that the
// cascade alone (oldest first by a scan of the table, newest first by the
// owner's index) would lock another before waiting for it, and deadlock.
func TestDeletingAUserWhileTheirMessagesSettle(t *testing.T) {
	url := pgtest.URL(t)
	db := mustOpen(t, url)
	s := stores(db)
	clock := core.NewManualClock(storetest.Epoch)
	s.Clock = clock
	var u *core.User
	var ms []*core.Message
	for attempt := 0; ; attempt++ {
		if attempt == 50 {
			t.Fatal("no user whose middle message has the smallest id in 50 attempts")
		}
		u = storetest.MustCreateUser(t, s, fmt.Sprintf("ada%d@example.com", attempt))
		ms = nil
		for range 3 {
			clock.Add(time.Minute)
			ms = append(ms, storetest.MustCreateMessage(t, s, u.ID, core.Interval1M))
		}
		if ms[1].ID < ms[0].ID && ms[1].ID < ms[2].ID {
			break
		}
	}

	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	group, err := pgx.Connect(wait, url)
	if err != nil {
		t.Fatal(err)
	}
	defer group.Close(ctx)
	tx, err := group.Begin(wait)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(wait, "select 1 from messages where id = $1 for update", ms[1].ID); err != nil {
		t.Fatal(err)
	}

	deleted := make(chan error, 1)
	go func() { deleted <- db.DeleteUser(wait, u.ID) }()
	for waiting := false; !waiting; {
		select {
		case err := <-deleted: // it cannot finish before the group does
			t.Fatalf("DeleteUser returned while the group held a message: %v", err)
		default:
		}
		// The group's connection is in a transaction, which keeps its first
		// reading of pg_stat_activity (stats_fetch_consistency = cache):
		// each poll clears it, or a deletion that started waiting after
		// the first poll would never be seen.
		if _, err := group.Exec(wait, "select pg_stat_clear_snapshot()"); err != nil {
			t.Fatal(err)
		}
		if err := group.QueryRow(wait, `select exists (select 1 from pg_stat_activity
			where wait_event_type = 'Lock' and datname = current_database()
			and (query like 'select 1 from messages where owner%' or query like 'delete from users%'))`).Scan(&waiting); err != nil {
			var seen string
			group.QueryRow(ctx, `select string_agg(coalesce(wait_event_type, '-') || ' ' || left(query, 60), '; ')
				from pg_stat_activity where datname = current_database()`).Scan(&seen)
			t.Fatalf("the deletion never waited for the group: %v (activity: %s)", err, seen)
		}
		time.Sleep(10 * time.Millisecond)
	}

	if _, err := tx.Exec(wait, "select 1 from messages where id = any($1) order by id for update", []string{ms[0].ID, ms[2].ID}); err != nil {
		t.Fatalf("the group could not lock the rest of its messages: %v", err)
	}
	if err := tx.Commit(wait); err != nil {
		t.Fatalf("the group's commit: %v", err)
	}
	if err := <-deleted; err != nil {
		t.Fatalf("DeleteUser: %v", err)
	}
	for _, m := range ms {
		if _, err := db.FindMessageByID(ctx, m.ID); core.ErrorCode(err) != core.EMessageNotFound {
			t.Fatalf("message %s after the deletion: %v, want it gone", m.ID, err)
		}
	}
}

package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/storetest"
)

// sameTwice reports whether db gives the user uid the same generation on
// two reads in a row: a replica that keeps generations does, one that does
// not makes a new one on every read.
func sameTwice(db *postgres.DB, uid string) bool {
	first := db.UserGeneration(uid)
	return db.UserGeneration(uid) == first
}

// waitSafe waits until db, a serving replica, keeps generations (the same
// value twice); it fails the test after 10 s.
func waitSafe(t *testing.T, db *postgres.DB) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if sameTwice(db, "probe") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the replica never became safe")
		}
	}
}

// raw is a connection of the test's own to the schema.
func raw(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// A write a client waits for returns only once every serving replica moved
// the user's generation: from another replica and from a process that
// writes without serving (the CLI), for the user's record, sessions and
// messages.
func TestAWriteReturnsOnceEveryReplicaMoved(t *testing.T) {
	url := pgtest.URL(t)
	a, b, cli := mustOpen(t, url), mustOpen(t, url), mustOpen(t, url)
	a.ServeGenerations()
	b.ServeGenerations()
	waitSafe(t, a)
	waitSafe(t, b)
	sa := stores(a)
	sa.Clock = core.NewManualClock(storetest.Epoch)
	u := storetest.MustCreateUser(t, sa, "gen@example.com")
	moves := func(what string, write func(db *postgres.DB) error) {
		t.Helper()
		for _, writer := range []*postgres.DB{a, cli} {
			before := b.UserGeneration(u.ID)
			if err := write(writer); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if b.UserGeneration(u.ID) == before {
				t.Fatalf("%s returned before the other replica moved the user's generation", what)
			}
		}
	}
	for range 5 {
		moves("UpdateUser", func(db *postgres.DB) error {
			_, err := db.UpdateUser(ctx, u.ID, func(u *core.User) error { u.Name += "x"; return nil })
			return err
		})
	}
	moves("DeleteSession", func(db *postgres.DB) error {
		x := &core.Session{UserID: u.ID, RefreshHash: core.NewID(), ExpiresAt: storetest.Epoch.Add(time.Hour), CreatedAt: storetest.Epoch}
		if err := db.CreateSession(ctx, x); err != nil {
			return err
		}
		return db.DeleteSession(ctx, x.ID)
	})
	moves("DeleteUserSessions", func(db *postgres.DB) error { return db.DeleteUserSessions(ctx, u.ID, "") })
	moves("CreateMessage", func(db *postgres.DB) error {
		m := storetest.NewMessage(sa, u.ID, core.Interval1M)
		return db.CreateMessage(ctx, m, func(*core.User, bool) error { return nil })
	})
}

// A replica whose LISTEN connection is cut keeps nothing until it listens
// again, and then reads everything again; a process that does not serve
// never keeps anything.
func TestAReplicaThatStopsHearingKeepsNothing(t *testing.T) {
	url := pgtest.URL(t)
	b, cli := mustOpen(t, url), mustOpen(t, url)
	b.ServeGenerations()
	waitSafe(t, b)
	if sameTwice(cli, "u") {
		t.Fatal("a process that does not serve repeats a generation")
	}
	before := b.UserGeneration("u")
	conn := raw(t, url)
	var killed int
	if err := conn.QueryRow(ctx, `select count(pg_terminate_backend(pid)) from pg_stat_activity
		where application_name = (select 'sendlater listener ' || id from replicas)`).Scan(&killed); err != nil || killed != 1 {
		t.Fatalf("terminating the listener: %d, %v", killed, err)
	}
	unsafe := false
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if !sameTwice(b, "u") {
			unsafe = true
			break
		}
	}
	if !unsafe {
		t.Fatal("the replica kept generations after its listener was cut")
	}
	waitSafe(t, b)
	if b.UserGeneration("u") == before {
		t.Fatal("after listening again the replica reuses what it kept before")
	}
}

// A replica that holds a lease but never acknowledges (stuck, or cut off
// from the database) holds a writer up until its lease passes, no longer.
func TestAWriterWaitsForASilentReplicaAtMostItsLease(t *testing.T) {
	url := pgtest.URL(t)
	cli := mustOpen(t, url)
	sc := stores(cli)
	sc.Clock = core.NewManualClock(storetest.Epoch)
	u := storetest.MustCreateUser(t, sc, "silent@example.com")
	conn := raw(t, url)
	if _, err := conn.Exec(ctx, "insert into replicas (id, lease_until) values ('silent', now() + interval '1500 milliseconds')"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := cli.UpdateUser(ctx, u.ID, func(u *core.User) error { u.Name = "Ann"; return nil }); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < time.Second || took > 10*time.Second {
		t.Fatalf("the write took %v: it must wait for the silent replica's lease (1.5 s), and no longer", took)
	}
	start = time.Now()
	if _, err := cli.UpdateUser(ctx, u.ID, func(u *core.User) error { u.Name = "Bea"; return nil }); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("a write after the lease passed still waited %v", took)
	}
}

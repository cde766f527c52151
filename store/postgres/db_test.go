package postgres_test

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/storetest"
)

// query runs sql on a connection of its own and returns the rows as text.
func query(tb testing.TB, url, sql string, args ...any) [][]string {
	tb.Helper()
	conn, err := pgx.Connect(ctx, url)
	must(tb, err)
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, sql, args...)
	must(tb, err)
	var out [][]string
	for rows.Next() {
		vals, err := rows.Values()
		must(tb, err)
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = fmt.Sprint(v)
		}
		out = append(out, row)
	}
	must(tb, rows.Err())
	return out
}

// seed stores one user with one message whose texts are easy to look for.
func seed(tb testing.TB, db *postgres.DB) (*core.User, *core.Message) {
	tb.Helper()
	s := stores(db)
	s.Clock = core.NewManualClock(storetest.Epoch)
	u := storetest.MustCreateUser(tb, s, "author@example.com")
	m := core.NewMessage(u.ID, core.MessageInput{
		Title:     "PLAINTEXT-TITLE-7f3a",
		Name:      "PLAINTEXT-NAME-91c2",
		Recipient: "plaintext-recipient-44d0@example.com",
		Body:      "PLAINTEXT-BODY-0b6e " + strings.Repeat("the future is a letter ", 40),
	}, storetest.Epoch, time.UTC)
	must(tb, db.CreateMessage(ctx, m, nil))
	storetest.MustSeedPersonalData(tb, s)
	return u, m
}

var secrets = append([]string{"PLAINTEXT-TITLE-7f3a", "PLAINTEXT-NAME-91c2", "plaintext-recipient-44d0",
	"PLAINTEXT-BODY-0b6e", "the future is a letter"}, storetest.PersonalDataSecrets...)

// The database never holds a message's contents, a webhook call's
// recipient, a secret or a refused address in clear: not in any column of
// any table, in text or in bytes.
func TestEncryptedAtRest(t *testing.T) {
	url := pgtest.URL(t)
	db := mustOpen(t, url)
	u, m := seed(t, db)
	_, err := db.UpdateMessage(ctx, m.ID, func(m *core.Message) error {
		m.Body += " PLAINTEXT-BODY-0b6e again"
		m.LastError = "550 plaintext-recipient-44d0@example.com: no such user"
		return nil
	})
	must(t, err)
	_, err = db.SettleMessage(ctx, m.ID, func(x *core.Message) ([]*core.OutboxItem, error) {
		x.Status = core.StatusDelivered
		return []*core.OutboxItem{{ID: x.ID, MessageID: x.ID, Owner: x.Owner, URL: "https://hooks.example/x",
			Recipient: x.Recipient, NextAttemptAt: storetest.Epoch, LastError: "PLAINTEXT-NAME-91c2"}}, nil
	})
	must(t, err)
	must(t, db.SetWebhookSecret(ctx, u.ID, "PLAINTEXT-TITLE-7f3a"))
	must(t, db.RefuseAddress(ctx, "plaintext-recipient-44d0@example.com", storetest.Epoch))

	tables := query(t, url, "select table_name from information_schema.tables where table_schema = current_schema()")
	values := 0
	for _, table := range tables {
		for _, row := range query(t, url, fmt.Sprintf("select t::text from %s t", pgx.Identifier{table[0]}.Sanitize())) {
			values++
			for _, s := range secrets {
				if strings.Contains(row[0], s) || strings.Contains(row[0], hex.EncodeToString([]byte(s))) {
					t.Errorf("table %s holds %q in clear: %.200s", table[0], s, row[0])
				}
			}
		}
	}
	if values < 6 {
		t.Fatalf("only %d rows in the database: the walk saw nothing", values)
	}
	got, err := db.FindMessageByID(ctx, m.ID)
	must(t, err)
	if !strings.Contains(got.Body, "PLAINTEXT-BODY-0b6e again") || !strings.Contains(got.LastError, "550") {
		t.Fatalf("the message does not open: %+v", got)
	}
}

// A sealed column copied into another message, or into another column,
// fails to open instead of showing the wrong text.
func TestCiphertextBoundToItsMessage(t *testing.T) {
	url := pgtest.URL(t)
	db := mustOpen(t, url)
	u, a := seed(t, db)
	b := storetest.NewMessage(storetest.Stores{Clock: core.NewManualClock(storetest.Epoch)}, u.ID, core.Interval1M)
	must(t, db.CreateMessage(ctx, b, nil))
	pgtest.Exec(t, url, "update messages set body = (select body from messages where id = $1) where id = $2", a.ID, b.ID)
	pgtest.Exec(t, url, "update messages set body = title where id = $1", a.ID)
	for _, id := range []string{a.ID, b.ID} {
		m, err := db.FindMessageByID(ctx, id)
		if err == nil {
			t.Fatalf("a moved ciphertext opened: body %q", m.Body)
		}
		if core.ErrorCode(err) != core.EInternal || !strings.Contains(err.Error(), "does not authenticate") {
			t.Fatalf("error = %v, want an internal authentication failure", err)
		}
	}
}

func TestWrongKey(t *testing.T) {
	url := pgtest.URL(t)
	db := mustOpen(t, url)
	seed(t, db)
	other := bytes.Repeat([]byte{0x17}, 32)
	_, err := postgres.Open(ctx, url, postgres.Options{Key: other})
	wantCode(t, err, core.EInvalid)
	if !strings.Contains(core.ErrorMessage(err), "The encryption key does not match this store") {
		t.Fatalf("Open with another key: %v", err)
	}
	_, err = postgres.Open(ctx, url, postgres.Options{Key: other[:16]})
	wantCode(t, err, core.EInvalid)
	mustOpen(t, url) // a refused open changed nothing
}

// Ten processes starting at once on a new database migrate it once.
func TestConcurrentOpensMigrateOnce(t *testing.T) {
	url := pgtest.URL(t)
	var wg sync.WaitGroup
	errs := make([]error, 10)
	for i := range errs {
		wg.Go(func() {
			db, err := postgres.Open(ctx, url, postgres.Options{Key: pgtest.Key})
			if err == nil {
				err = db.Ping(ctx)
				db.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		must(t, err)
	}
	status, err := postgres.MigrationStatus(ctx, url)
	must(t, err)
	rows := query(t, url, "select version, count(*) from schema_migrations group by version order by version")
	if len(rows) != len(status) || len(status) == 0 {
		t.Fatalf("schema_migrations = %v, want one row for each of %d migrations", rows, len(status))
	}
	for i, m := range status {
		if m.AppliedAt.IsZero() || rows[i][0] != fmt.Sprint(m.Version) || rows[i][1] != "1" {
			t.Fatalf("migration %d: %+v, recorded %v", m.Version, m, rows[i])
		}
	}
	applied, err := postgres.MigrateUp(ctx, url)
	must(t, err)
	if len(applied) != 0 {
		t.Fatalf("a migrated database migrated again: %+v", applied)
	}
}

func TestMigrationStatusAndUp(t *testing.T) {
	url := pgtest.URL(t)
	status, err := postgres.MigrationStatus(ctx, url)
	must(t, err)
	if len(status) == 0 || status[0].Version != 1 || status[0].Name != "schema" {
		t.Fatalf("status of a new database = %+v", status)
	}
	for _, m := range status {
		if !m.AppliedAt.IsZero() {
			t.Fatalf("pending migration shown applied: %+v", m)
		}
	}
	if rows := query(t, url, "select count(*) from information_schema.tables where table_schema = current_schema()"); rows[0][0] != "0" {
		t.Fatalf("status changed the database: %v tables", rows[0][0])
	}
	applied, err := postgres.MigrateUp(ctx, url)
	must(t, err)
	if len(applied) != len(status) {
		t.Fatalf("applied %d of %d migrations", len(applied), len(status))
	}
	// A database migrated by a newer binary is refused, with what to do.
	pgtest.Exec(t, url, "insert into schema_migrations (version, name) values (9999, 'from the future')")
	_, err = postgres.Open(ctx, url, postgres.Options{Key: pgtest.Key})
	wantCode(t, err, core.EUnavailable)
	if !strings.Contains(core.ErrorMessage(err), "newer than this sendlater knows") {
		t.Fatalf("Open of a newer database: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	// A port where nothing listens: unavailable, naming the server, at once.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	addr := l.Addr().String()
	l.Close()
	start := time.Now()
	_, err = postgres.Open(ctx, "postgres://postgres:s3cret-pw@"+addr+"/test?sslmode=disable&connect_timeout=2", postgres.Options{Key: pgtest.Key})
	wantCode(t, err, core.EUnavailable)
	host, _, _ := strings.Cut(addr, ":")
	if msg := core.ErrorMessage(err); !strings.Contains(msg, "Cannot reach PostgreSQL at "+host) || strings.Contains(err.Error(), "s3cret-pw") {
		t.Fatalf("message = %q", msg)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("Open waited too long")
	}
	_, err = postgres.Open(ctx, "postgres://postgres:s3cret-pw@127.0.0.1:notaport/test", postgres.Options{Key: pgtest.Key})
	wantCode(t, err, core.EInvalid)
	if strings.Contains(err.Error(), "s3cret-pw") || !strings.Contains(core.ErrorMessage(err), "The PostgreSQL URL is not valid") {
		t.Fatalf("bad URL: %v", err)
	}
	// A search_path naming no schema.
	url := pgtest.URL(t)
	_, err = postgres.Open(ctx, strings.Replace(url, "search_path=", "search_path=missing_", 1), postgres.Options{Key: pgtest.Key})
	wantCode(t, err, core.EInvalid)
	if !strings.Contains(core.ErrorMessage(err), "no schema named in search_path") {
		t.Fatalf("missing schema: %v", err)
	}
}

func TestBackupSaysPgDump(t *testing.T) {
	db := mustOpen(t, pgtest.URL(t))
	n, err := db.Backup(ctx, io.Discard)
	wantCode(t, err, core.EInvalid)
	if n != 0 || !strings.Contains(core.ErrorMessage(err), "pg_dump") {
		t.Fatalf("Backup = %d, %v", n, err)
	}
}

// While the database cannot be reached, calls fail with EUnavailable and a
// sentence a user may read (the driver's detail only in the error's text);
// when it is back, the store works again by itself.
func TestDatabaseDownAndBack(t *testing.T) {
	url := pgtest.URL(t)
	p := pgtest.StartProxy(t, url)
	db := mustOpen(t, p.URL)
	u, m := seed(t, db)

	p.Down()
	for _, call := range []func() error{
		func() error { _, err := db.FindMessageByID(ctx, m.ID); return err },
		func() error { _, _, err := db.ListMessages(ctx, core.MessageFilter{Owner: u.ID}); return err },
		func() error {
			_, err := db.UpdateMessage(ctx, m.ID, func(*core.Message) error { return nil })
			return err
		},
		func() error { return db.Ping(ctx) },
	} {
		err := call()
		wantCode(t, err, core.EUnavailable)
		if msg := core.ErrorMessage(err); msg != "The database cannot be reached at the moment. Please try again shortly." {
			t.Fatalf("message = %q", msg)
		}
	}

	p.Up()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := db.FindMessageByID(ctx, m.ID)
		if err == nil {
			if got.Body != m.Body {
				t.Fatal("another body after the outage")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store did not recover: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Rows written in clear before migration 8 are sealed when the store opens
// with its key, and read the same.
func TestClearRowsAreSealedAtOpen(t *testing.T) {
	url := pgtest.URL(t)
	db := mustOpen(t, url)
	u := storetest.MustCreateUser(t, storetest.Stores{Users: db, Clock: core.NewManualClock(storetest.Epoch)}, "old@example.com")
	pgtest.Exec(t, url, "update users set name = convert_to('LEGACY-NAME-2f4e', 'UTF8'), name_sealed = false where id = $1", u.ID)
	pgtest.Exec(t, url, `insert into contacts (id, name, email, message, created_at, sealed) values ('c1',
		convert_to('LEGACY-CONTACT-77ab', 'UTF8'), convert_to('legacy-sender@example.com', 'UTF8'), convert_to('LEGACY-ASKS-0c3d', 'UTF8'), 1, false)`)
	again := mustOpen(t, url)
	got, err := again.FindUserByID(ctx, u.ID)
	must(t, err)
	cs, err := again.ListContacts(ctx, 0)
	must(t, err)
	if got.Name != "LEGACY-NAME-2f4e" || len(cs) != 1 || cs[0].Name != "LEGACY-CONTACT-77ab" || cs[0].Message != "LEGACY-ASKS-0c3d" {
		t.Fatalf("after sealing: %q %+v", got.Name, cs)
	}
	for _, table := range []string{"users", "contacts"} {
		for _, row := range query(t, url, fmt.Sprintf("select t::text from %s t", table)) {
			for _, s := range []string{"LEGACY", "legacy-sender", hex.EncodeToString([]byte("LEGACY"))} {
				if strings.Contains(row[0], s) {
					t.Errorf("%s still holds %q in clear: %.200s", table, s, row[0])
				}
			}
		}
	}
}

// A settlement whose last write fails in the database (a NUL byte in a text
// column) is
// rolled back whole, and the connection it ran on is not left inside the
// failed transaction: the next settlements on the pool go through.
func TestSettleMessageRollsBackAFailedWrite(t *testing.T) {
	db := mustOpen(t, pgtest.URL(t))
	_, m := seed(t, db)
	waiting, _, err := db.CountOutbox(ctx)
	must(t, err)
	for range 20 { // more than the pool's connections
		_, err := db.SettleMessage(ctx, m.ID, func(x *core.Message) ([]*core.OutboxItem, error) {
			x.Status = core.StatusDelivered
			return []*core.OutboxItem{{ID: core.NewID(), Kind: core.OutboxEmail, Owner: x.Owner, NextAttemptAt: storetest.Epoch,
				Email: &core.Email{Subject: "never stored"}}, {ID: "nul\x00byte", NextAttemptAt: storetest.Epoch}}, nil
		})
		if err == nil {
			t.Fatal("a settlement with an invalid outbox item was stored")
		}
	}
	got, err := db.FindMessageByID(ctx, m.ID)
	must(t, err)
	if got.Status != m.Status {
		t.Fatalf("status %s after failed settlements", got.Status)
	}
	if pending, _, err := db.CountOutbox(ctx); err != nil || pending != waiting {
		t.Fatalf("outbox %d, %v after failed settlements, %d before", pending, err, waiting)
	}
	for range 20 {
		_, err = db.SettleMessage(ctx, m.ID, func(x *core.Message) ([]*core.OutboxItem, error) {
			x.Attempts++
			return nil, nil
		})
		must(t, err)
	}
	if got, _ = db.FindMessageByID(ctx, m.ID); got.Attempts != 20 {
		t.Fatalf("attempts %d, want 20", got.Attempts)
	}
}

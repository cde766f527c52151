package postgres_test

import (
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/storetest"
)

// A write whose connection is cut after its COMMIT left is EOutcomeUnknown
// (with a Retry-After), whether the server committed it (the answer was
// lost) or never saw the COMMIT: the store cannot tell them apart, and
// must not claim that nothing changed. Every kind of write transaction is
// covered: a create (readThenWrite), an update (a transaction of its own)
// and a statement that commits by itself.
func TestCommitCutIsOutcomeUnknown(t *testing.T) {
	url := pgtest.URL(t)
	p := pgtest.StartProxy(t, url)
	db := mustOpen(t, p.URL)
	direct := mustOpen(t, url) // reads what the server holds
	s := stores(db)
	s.Clock = core.NewManualClock(storetest.Epoch)
	u := storetest.MustCreateUser(t, s, "ann@example.com")
	in := core.MessageInput{Title: "t", Name: "n", Recipient: "r@example.com", Body: "b", IdempotencyKey: "k"}

	cut := func(committed bool, what, of string, write func() error) {
		t.Helper()
		c := p.CutAtCommit(committed, of)
		err := write()
		select {
		case <-c.Done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no COMMIT was cut", what)
		}
		if core.ErrorCode(err) != core.EOutcomeUnknown {
			t.Fatalf("%s (committed %v): %v, want %s", what, committed, err, core.EOutcomeUnknown)
		}
		if e, _ := core.AsError(err); e.RetryAfter <= 0 {
			t.Fatalf("%s: no Retry-After", what)
		}
	}

	for _, committed := range []bool{true, false} {
		m := core.NewMessage(u.ID, in, storetest.Epoch, time.UTC)
		m.IdempotencyKey = core.NewID()
		cut(committed, "create", "insert into messages", func() error { return db.CreateMessage(ctx, m, nil) })
		got, err := direct.FindMessageByIdempotencyKey(ctx, u.ID, m.IdempotencyKey)
		if committed && (err != nil || got.ID != m.ID) {
			t.Fatalf("a create whose answer was lost was not stored: %v", err)
		}
		if !committed {
			wantCode(t, err, core.EMessageNotFound)
		}
	}

	kept := storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)
	cut(true, "update", "update users", func() error {
		_, err := db.UpdateUser(ctx, u.ID, func(u *core.User) error { u.Name = "Ann B"; return nil })
		return err
	})
	if got, err := direct.FindUserByID(ctx, u.ID); err != nil || got.Name != "Ann B" {
		t.Fatalf("the committed update: %v %v", got, err)
	}
	cut(true, "a statement alone", "insert into sessions", func() error {
		return db.CreateSession(ctx, &core.Session{ID: core.NewID(), UserID: u.ID, CreatedAt: storetest.Epoch,
			ExpiresAt: storetest.Epoch.Add(time.Hour)})
	})

	// A write that fails before its COMMIT leaves changes nothing, and says
	// so: the database is unavailable.
	p.Down()
	_, err := db.UpdateMessage(ctx, kept.ID, func(m *core.Message) error { m.Title = "never"; return nil })
	wantCode(t, err, core.EUnavailable)
	p.Up()
}

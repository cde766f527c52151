package bolt_test

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/seal"
	"github.com/sendlater/sendlater/store/storetest"
	"go.etcd.io/bbolt"
)

// A store of schema 18 keeps its bounce marks inline in the sealed
// recipient lists: version 19 moves them to records of their own, sealed,
// and the lists are written again without them.
func TestMigrationMovesBounceMarks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sendlater.db")
	db := MustOpen(t, path)
	clock := core.NewManualClock(storetest.Epoch)
	st := storetest.Stores{Users: db, Messages: db, Clock: clock}
	u := storetest.MustCreateUser(t, st, "old@example.com")
	m := storetest.MustCreateMessage(t, st, u.ID, core.Interval1M)
	plain := storetest.MustCreateMessage(t, st, u.ID, core.Interval1M)
	must(t, db.Close())

	// The list as a version 18 binary wrote it: Bob bouncing (and two
	// soft bounces), Cy with one soft bounce.
	bounce := core.RecipientBounce{At: storetest.Epoch, Email: core.BounceNotice, Status: "5.1.1", Reason: "LEGACY-REASON-550"}
	old := *m
	old.Recipients = []core.Recipient{
		{Name: m.Name, Address: m.Recipient, Status: core.RecipientPending, Bounce: bounce, SoftBounces: 2},
		{Name: "Cy", Address: "Cy@Example.org", Status: core.RecipientPending, SoftBounces: 1},
	}
	sealer, err := seal.New(testKey)
	must(t, err)
	rawUpdate(t, path, func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte("messages"))
		must(t, b.Put([]byte(m.ID), bolt.WithSealedField(b.Get([]byte(m.ID)), "recipients", sealer.SealRecipientsWithMarks(&old))))
		must(t, tx.DeleteBucket([]byte("bounce_marks")))
		return tx.Bucket([]byte("meta")).Put([]byte("version"), binary.BigEndian.AppendUint64(nil, 18))
	})

	db = MustOpen(t, path)
	if v := bolt.SchemaVersion(); v != 19 {
		t.Fatalf("schema version %d, want 19", v)
	}
	got, err := db.FindMessageByID(ctx, m.ID)
	must(t, err)
	rs := got.RecipientList()
	if len(rs) != 2 || rs[0].Bouncing() || rs[0].SoftBounces != 0 || rs[1].SoftBounces != 0 {
		t.Fatalf("the list still holds its marks: %+v", rs)
	}
	must(t, core.JoinBounceMarks(ctx, db, got))
	rs = got.RecipientList()
	if !rs[0].Bouncing() || rs[0].Bounce != bounce || rs[0].SoftBounces != 2 || rs[1].Bouncing() || rs[1].SoftBounces != 1 {
		t.Fatalf("after the migration: %+v", rs)
	}
	marks, err := db.ListBounceMarks(ctx, []string{m.ID, plain.ID})
	must(t, err)
	if len(marks) != 2 {
		t.Fatalf("marks %+v", marks)
	}
	must(t, db.Close())
	raw, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	must(t, err)
	defer raw.Close()
	must(t, raw.View(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte("bounce_marks")).ForEach(func(_, v []byte) error {
			if bytes.Contains(v, []byte("LEGACY-REASON")) || bytes.Contains(v, []byte("example.org")) {
				t.Error("a mark holds its reason or address in clear")
			}
			return nil
		})
	}))
}

// A provider's webhook id that refuses a replay survives a restart (it is
// kept in the file, unlike the other limits' events) and is forgotten by
// the sweep once its window has passed.
func TestWebhookIDsOutliveARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sendlater.db")
	clock := core.NewManualClock(storetest.Epoch)
	limiter := func(db *bolt.DB) *core.Limiter {
		return &core.Limiter{Store: db, Clock: clock, Key: []byte("limits key")}
	}
	db := MustOpen(t, path)
	id, first, err := limiter(db).Once(ctx, core.LimitWebhookSeen, "sns:message-1")
	must(t, err)
	if !first || id == "" {
		t.Fatal("a new id is not first")
	}
	if _, err := limiter(db).Record(ctx, core.LimitWebhookAuthClient, "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	must(t, db.Close())

	db = MustOpen(t, path)
	if _, first, err := limiter(db).Once(ctx, core.LimitWebhookSeen, "sns:message-1"); err != nil || first {
		t.Fatalf("after a restart the replay is first again: %v %v", first, err)
	}
	if _, first, err := limiter(db).Once(ctx, core.LimitWebhookSeen, "sns:message-2"); err != nil || !first {
		t.Fatalf("another id: %v %v", first, err)
	}
	// A failed processing gives its id back.
	id3, _, err := limiter(db).Once(ctx, core.LimitWebhookSeen, "sns:message-3")
	must(t, err)
	must(t, limiter(db).Release(ctx, core.LimitWebhookSeen, "sns:message-3", id3))
	if _, first, err := limiter(db).Once(ctx, core.LimitWebhookSeen, "sns:message-3"); err != nil || !first {
		t.Fatalf("a released id: %v %v", first, err)
	}
	clock.Add(core.LimitWebhookSeen.Window + time.Second)
	n, err := limiter(db).Sweep(ctx)
	must(t, err)
	if n < 3 {
		t.Fatalf("the sweep forgot %d events, want the 3 ids at least", n)
	}
	if _, first, err := limiter(db).Once(ctx, core.LimitWebhookSeen, "sns:message-1"); err != nil || !first {
		t.Fatalf("after the window: %v %v", first, err)
	}
}

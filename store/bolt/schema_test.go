package bolt_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/storetest"
	"go.etcd.io/bbolt"
)

func TestLockTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sendlater.db")
	MustOpen(t, path)
	start := time.Now()
	_, err := bolt.Open(path, bolt.Options{Key: testKey, Timeout: 150 * time.Millisecond})
	wantCode(t, err, core.EUnavailable)
	want := "another process (probably `sendlater serve`) holds " + path
	if !strings.Contains(strings.ToLower(core.ErrorMessage(err)), strings.ToLower(want)) {
		t.Fatalf("message = %q, want it to say %q", core.ErrorMessage(err), want)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Open waited %v", d)
	}
	_, err = bolt.Open(path, bolt.Options{Key: testKey, ReadOnly: true, Timeout: 50 * time.Millisecond})
	wantCode(t, err, core.EUnavailable)
}

func TestReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sendlater.db")
	db := MustOpen(t, path)
	_, m := seed(t, db)
	must(t, db.Close())

	ro, err := bolt.Open(path, bolt.Options{Key: testKey, ReadOnly: true})
	must(t, err)
	defer ro.Close()
	got, err := ro.FindMessageByID(ctx, m.ID)
	must(t, err)
	if got.Body != m.Body {
		t.Fatal("read-only store returned another body")
	}
	_, err = ro.UpdateMessage(ctx, m.ID, func(*core.Message) error { return nil })
	wantCode(t, err, core.EUnavailable)

	_, err = bolt.Open(filepath.Join(t.TempDir(), "missing.db"), bolt.Options{Key: testKey, ReadOnly: true})
	wantCode(t, err, core.ENotFound)
}

// metaVersion reads the schema version of the closed store at path.
func metaVersion(tb testing.TB, path string) uint64 {
	tb.Helper()
	var v uint64
	raw, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	must(tb, err)
	defer raw.Close()
	must(tb, raw.View(func(tx *bbolt.Tx) error {
		v = binary.BigEndian.Uint64(tx.Bucket([]byte("meta")).Get([]byte("version")))
		return nil
	}))
	return v
}

func TestMigrations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sendlater.db")
	db := MustOpen(t, path)
	_, m := seed(t, db)
	must(t, db.Close())
	if v := metaVersion(t, path); v != uint64(bolt.SchemaVersion()) {
		t.Fatalf("version = %d, want %d", v, bolt.SchemaVersion())
	}

	t.Run("next version runs once, in order", func(t *testing.T) {
		runs := 0
		bolt.AppendMigration(t, func(tx *bbolt.Tx) error {
			runs++
			if tx.Bucket([]byte("messages")) == nil {
				t.Error("migration ran before version 1")
			}
			_, err := tx.CreateBucket([]byte("v2_test"))
			return err
		})
		for range 2 {
			db := MustOpen(t, path)
			got, err := db.FindMessageByID(ctx, m.ID)
			must(t, err)
			if got.Body != m.Body {
				t.Fatal("the message changed in the migration")
			}
			must(t, db.Close())
		}
		if runs != 1 {
			t.Fatalf("migration ran %d times, want 1", runs)
		}
		if v := metaVersion(t, path); v != uint64(bolt.SchemaVersion()) {
			t.Fatalf("version = %d, want %d", v, bolt.SchemaVersion())
		}
	})

	// Back on the older binary, the store is newer than it knows.
	_, err := bolt.Open(path, bolt.Options{Key: testKey})
	wantCode(t, err, core.EUnavailable)
	if !strings.Contains(core.ErrorMessage(err), "newer than this sendlater knows") {
		t.Fatalf("Open of a newer store: %v", err)
	}
}

func TestFailedMigrationChangesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sendlater.db")
	db := MustOpen(t, path)
	seed(t, db)
	must(t, db.Close())
	bolt.AppendMigration(t, func(tx *bbolt.Tx) error {
		if _, err := tx.CreateBucket([]byte("half_done")); err != nil {
			return err
		}
		return os.ErrInvalid
	})
	before := bolt.SchemaVersion() - 1
	if _, err := bolt.Open(path, bolt.Options{Key: testKey}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("version %d", before+1)) {
		t.Fatalf("Open with a failing migration: %v", err)
	}
	if v := metaVersion(t, path); v != uint64(before) {
		t.Fatalf("version = %d after a failed migration, want %d", v, before)
	}
}

func TestNotAStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	rawUpdate(t, path, func(tx *bbolt.Tx) error {
		_, err := tx.CreateBucket([]byte("someone_else"))
		return err
	})
	_, err := bolt.Open(path, bolt.Options{Key: testKey})
	if err == nil || !strings.Contains(core.ErrorMessage(err), "not a Sendlater store") {
		t.Fatalf("Open of a foreign bbolt file: %v", err)
	}
	junk := filepath.Join(t.TempDir(), "junk.db")
	must(t, os.WriteFile(junk, bytes.Repeat([]byte("junk"), 4096), 0o600))
	if _, err := bolt.Open(junk, bolt.Options{Key: testKey}); err == nil {
		t.Fatal("Open of a junk file succeeded")
	}
}

// Version 7 seals the account names and contact submissions a store of an
// earlier version holds in clear.
func TestMigrationSealsPersonalData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sendlater.db")
	db := MustOpen(t, path)
	u := storetest.MustCreateUser(t, storetest.Stores{Users: db, Clock: core.NewManualClock(storetest.Epoch)}, "old@example.com")
	must(t, db.Close())
	// The records as a version 6 binary wrote them.
	rawUpdate(t, path, func(tx *bbolt.Tx) error {
		user := fmt.Sprintf(`{"v":1,"id":%q,"email":"old@example.com","name":"LEGACY-NAME-2f4e","createdAt":1}`, u.ID)
		contact := `{"v":1,"id":"c1","name":"LEGACY-CONTACT-77ab","email":"legacy-sender@example.com","message":"LEGACY-ASKS-0c3d","createdAt":1}`
		must(t, tx.Bucket([]byte("users")).Put([]byte(u.ID), []byte(user)))
		must(t, tx.Bucket([]byte("contacts")).Put(append(bytes.Repeat([]byte{0x80}, 1), 7, 0, 0, 0, 0, 0, 0, 'c', '1'), []byte(contact)))
		return tx.Bucket([]byte("meta")).Put([]byte("version"), binary.BigEndian.AppendUint64(nil, 6))
	})
	db = MustOpen(t, path)
	got, err := db.FindUserByID(ctx, u.ID)
	must(t, err)
	if got.Name != "LEGACY-NAME-2f4e" {
		t.Fatalf("name %q after the migration", got.Name)
	}
	cs, err := db.ListContacts(ctx, 0)
	must(t, err)
	if len(cs) != 1 || cs[0].Name != "LEGACY-CONTACT-77ab" || cs[0].Email != "legacy-sender@example.com" || cs[0].Message != "LEGACY-ASKS-0c3d" {
		t.Fatalf("contacts after the migration: %+v", cs)
	}
	must(t, db.Close())
	raw, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	must(t, err)
	defer raw.Close()
	must(t, raw.View(func(tx *bbolt.Tx) error {
		for _, b := range []string{"users", "contacts"} {
			tx.Bucket([]byte(b)).ForEach(func(k, v []byte) error {
				for _, s := range []string{"LEGACY-NAME", "LEGACY-CONTACT", "legacy-sender", "LEGACY-ASKS"} {
					if bytes.Contains(v, []byte(s)) {
						t.Errorf("bucket %s still holds %q in clear", b, s)
					}
				}
				return nil
			})
		}
		return nil
	}))
}

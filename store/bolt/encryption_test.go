package bolt_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/seal"
	"github.com/sendlater/sendlater/store/storetest"
	"go.etcd.io/bbolt"
)

// seed stores one user with one message whose texts are easy to look for.
func seed(tb testing.TB, db *bolt.DB) (*core.User, *core.Message) {
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
	if err := db.CreateMessage(ctx, m, nil); err != nil {
		tb.Fatal(err)
	}
	storetest.MustSeedPersonalData(tb, s)
	return u, m
}

var secrets = append([]string{"PLAINTEXT-TITLE-7f3a", "PLAINTEXT-NAME-91c2", "plaintext-recipient-44d0",
	"PLAINTEXT-BODY-0b6e", "the future is a letter"}, storetest.PersonalDataSecrets...)

func TestEncryptedAtRest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sendlater.db")
	db := MustOpen(t, path)
	_, m := seed(t, db)
	if _, err := db.UpdateMessage(ctx, m.ID, func(m *core.Message) error {
		m.Body += " PLAINTEXT-BODY-0b6e again"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got, err := db.FindMessageByID(ctx, m.ID)
	if err != nil || !strings.Contains(got.Body, "PLAINTEXT-BODY-0b6e again") {
		t.Fatalf("FindMessageByID = %v, %v", got, err)
	}
	must(t, db.Close())

	// No bucket holds a secret in a key or a value...
	raw, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	must(t, err)
	values := 0
	err = raw.View(func(tx *bbolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bbolt.Bucket) error {
			return b.ForEach(func(k, v []byte) error {
				values++
				for _, s := range secrets {
					if bytes.Contains(k, []byte(s)) || bytes.Contains(v, []byte(s)) {
						t.Errorf("bucket %s key %q holds %q in clear", name, k, s)
					}
				}
				return nil
			})
		})
	})
	must(t, err)
	must(t, raw.Close())
	if values < 5 {
		t.Fatalf("only %d values in the file: the walk saw nothing", values)
	}
	// ...and neither does any byte of the file, free pages included.
	file, err := os.ReadFile(path)
	must(t, err)
	for _, s := range secrets {
		if bytes.Contains(file, []byte(s)) {
			t.Errorf("the file holds %q in clear", s)
		}
	}
}

// rawUpdate changes the closed store at path with bbolt directly.
func rawUpdate(tb testing.TB, path string, fn func(tx *bbolt.Tx) error) {
	tb.Helper()
	raw, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: time.Second})
	must(tb, err)
	must(tb, raw.Update(fn))
	must(tb, raw.Close())
}

func TestCiphertextBoundToItsMessage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sendlater.db")
	db := MustOpen(t, path)
	u, a := seed(t, db)
	b := storetest.NewMessage(storetest.Stores{Clock: core.NewManualClock(storetest.Epoch)}, u.ID, core.Interval1M)
	must(t, db.CreateMessage(ctx, b, nil))
	must(t, db.Close())

	// Copy a's sealed body into b's record, and a's sealed title into a's body.
	rawUpdate(t, path, func(tx *bbolt.Tx) error {
		msgs := tx.Bucket([]byte("messages"))
		ra, rb := msgs.Get([]byte(a.ID)), msgs.Get([]byte(b.ID))
		newB := bolt.WithSealedField(rb, "body", bolt.SealedField(ra, "body"))
		newA := bolt.WithSealedField(ra, "body", bolt.SealedField(ra, "title"))
		must(t, msgs.Put([]byte(b.ID), newB))
		return msgs.Put([]byte(a.ID), newA)
	})
	db = MustOpen(t, path)
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

func TestRecordBoundToItsKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sendlater.db")
	db := MustOpen(t, path)
	u, a := seed(t, db)
	b := storetest.NewMessage(storetest.Stores{Clock: core.NewManualClock(storetest.Epoch)}, u.ID, core.Interval1M)
	must(t, db.CreateMessage(ctx, b, nil))
	must(t, db.Close())

	// b's key now holds a's whole record.
	rawUpdate(t, path, func(tx *bbolt.Tx) error {
		msgs := tx.Bucket([]byte("messages"))
		return msgs.Put([]byte(b.ID), bytes.Clone(msgs.Get([]byte(a.ID))))
	})
	db = MustOpen(t, path)
	if m, err := db.FindMessageByID(ctx, b.ID); err == nil {
		t.Fatalf("message %s came back as %s", b.ID, m.ID)
	}
	if _, err := db.FindMessageByID(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
}

func TestWrongKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sendlater.db")
	db := MustOpen(t, path)
	seed(t, db)
	must(t, db.Close())

	other := bytes.Repeat([]byte{0x17}, seal.KeySize)
	_, err := bolt.Open(path, bolt.Options{Key: other})
	if err == nil || !strings.Contains(strings.ToLower(core.ErrorMessage(err)), "the encryption key does not match this store") {
		t.Fatalf("Open with another key: %v", err)
	}
	_, err = bolt.Open(path, bolt.Options{Key: other[:16]})
	wantCode(t, err, core.EInvalid)
	// The right key still works: a refused open changed nothing.
	MustOpen(t, path)
}

func TestDamagedRecordIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sendlater.db")
	db := MustOpen(t, path)
	_, m := seed(t, db)
	m.LastError = "421 try later"
	_, err := db.UpdateMessage(ctx, m.ID, func(x *core.Message) error { x.LastError = m.LastError; return nil })
	must(t, err)
	must(t, db.Close())
	var record []byte
	raw, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	must(t, err)
	must(t, raw.View(func(tx *bbolt.Tx) error {
		record = bytes.Clone(tx.Bucket([]byte("messages")).Get([]byte(m.ID)))
		return nil
	}))
	must(t, raw.Close())
	must(t, bolt.CheckMessageRecord(record))
	for n := range len(record) {
		if err := bolt.CheckMessageRecord(record[:n]); err == nil {
			t.Fatalf("a record cut to %d of %d bytes decoded", n, len(record))
		}
	}
	if err := bolt.CheckMessageRecord(append(bytes.Clone(record), 0)); err == nil {
		t.Fatal("a record with a trailing byte decoded")
	}
}

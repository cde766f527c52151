package bolt_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
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

var ctx = context.Background()

// testKey is the key of every test store unless a test says otherwise.
var testKey = bytes.Repeat([]byte{0x5e}, bolt.KeySize)

// MustOpen opens the store at path with testKey and closes it after the test.
func MustOpen(tb testing.TB, path string) *bolt.DB {
	tb.Helper()
	db, err := bolt.Open(path, bolt.Options{Key: testKey})
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// stores wraps one DB as every store of the contract.
func stores(db *bolt.DB) storetest.Stores {
	return storetest.Stores{
		Users: db, Messages: db, Sessions: db, Tokens: db, ActionCodes: db, Contacts: db,
		Delivery: db,
	}
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Stores {
		db := MustOpen(t, filepath.Join(t.TempDir(), "sendlater.db"))
		t.Cleanup(func() {
			if err := db.Check(); err != nil {
				t.Errorf("Check after the test: %v", err)
			}
		})
		return stores(db)
	})
}

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
	return u, m
}

var secrets = []string{"PLAINTEXT-TITLE-7f3a", "PLAINTEXT-NAME-91c2", "plaintext-recipient-44d0", "PLAINTEXT-BODY-0b6e", "the future is a letter"}

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

	other := bytes.Repeat([]byte{0x17}, bolt.KeySize)
	_, err := bolt.Open(path, bolt.Options{Key: other})
	if err == nil || !strings.Contains(strings.ToLower(core.ErrorMessage(err)), "the encryption key does not match this store") {
		t.Fatalf("Open with another key: %v", err)
	}
	_, err = bolt.Open(path, bolt.Options{Key: other[:16]})
	wantCode(t, err, core.EInvalid)
	// The right key still works: a refused open changed nothing.
	MustOpen(t, path)
}

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

func TestBackup(t *testing.T) {
	dir := t.TempDir()
	db := MustOpen(t, filepath.Join(dir, "sendlater.db"))
	u, m := seed(t, db)
	var buf bytes.Buffer
	n, err := db.Backup(ctx, &buf)
	must(t, err)
	if n != int64(buf.Len()) || n == 0 {
		t.Fatalf("Backup wrote %d bytes, reported %d", buf.Len(), n)
	}
	// Writes after the backup are not in it.
	must(t, db.DeleteMessage(ctx, m.ID))

	copyPath := filepath.Join(dir, "backup.db")
	must(t, os.WriteFile(copyPath, buf.Bytes(), 0o600))
	restored := MustOpen(t, copyPath)
	must(t, restored.Check())
	got, err := restored.FindMessageByID(ctx, m.ID)
	must(t, err)
	if got.Body != m.Body || got.Recipient != m.Recipient {
		t.Fatal("the backup holds another message")
	}
	if _, err := restored.FindUserByEmail(ctx, u.Email); err != nil {
		t.Fatal(err)
	}
}

func TestCheck(t *testing.T) {
	db := MustOpen(t, filepath.Join(t.TempDir(), "sendlater.db"))
	seed(t, db)
	must(t, db.Check())
}

func TestFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "sendlater.db")
	MustOpen(t, path)
	wantMode(t, dir, os.ModeDir|0o700)
	wantMode(t, path, 0o600)

	keyDir := filepath.Join(t.TempDir(), "secrets")
	keyFile := filepath.Join(keyDir, "store.key")
	key, err := bolt.LoadOrCreateKey(keyFile)
	must(t, err)
	if len(key) != bolt.KeySize {
		t.Fatalf("key of %d bytes", len(key))
	}
	wantMode(t, keyDir, os.ModeDir|0o700)
	wantMode(t, keyFile, 0o600)
	again, err := bolt.LoadOrCreateKey(keyFile)
	must(t, err)
	if !bytes.Equal(key, again) {
		t.Fatal("the second load returned another key")
	}
	entries, err := os.ReadDir(keyDir)
	must(t, err)
	if len(entries) != 1 {
		t.Fatalf("key dir holds %d files, want 1 (no temporary left)", len(entries))
	}
}

func wantMode(tb testing.TB, path string, want os.FileMode) {
	tb.Helper()
	fi, err := os.Stat(path)
	must(tb, err)
	if fi.Mode() != want {
		tb.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
	}
}

func TestLoadOrCreateKeyRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"short-hex": strings.Repeat("ab", 16),
		"long-b64":  base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xfb}, 48)), // 64 characters, not hex
		"empty":     "",
		"text":      "not a key at all",
	} {
		file := filepath.Join(dir, name)
		must(t, os.WriteFile(file, []byte(content), 0o600))
		_, err := bolt.LoadOrCreateKey(file)
		if core.ErrorCode(err) != core.EInvalid {
			t.Fatalf("%s: LoadOrCreateKey error = %v, want %s", name, err, core.EInvalid)
		}
		if !strings.Contains(core.ErrorMessage(err), file) {
			t.Errorf("%s: message %q does not name the file", name, core.ErrorMessage(err))
		}
		b, _ := os.ReadFile(file)
		if string(b) != content {
			t.Errorf("%s: a refused key file was rewritten", name)
		}
	}
}

func TestParseKey(t *testing.T) {
	raw := make([]byte, bolt.KeySize)
	for i := range raw {
		raw[i] = byte(i * 7)
	}
	for _, s := range []string{
		hex.EncodeToString(raw),
		strings.ToUpper(hex.EncodeToString(raw)),
		"  " + hex.EncodeToString(raw) + "\n",
		base64.StdEncoding.EncodeToString(raw),
		base64.RawStdEncoding.EncodeToString(raw),
		base64.URLEncoding.EncodeToString(raw),
		base64.RawURLEncoding.EncodeToString(raw),
	} {
		k, err := bolt.ParseKey(s)
		if err != nil || !bytes.Equal(k, raw) {
			t.Errorf("ParseKey(%q) = %x, %v", s, k, err)
		}
	}
	for _, s := range []string{"", "abcd", hex.EncodeToString(raw[:31]), base64.StdEncoding.EncodeToString(raw[:31]), strings.Repeat("z", 64)} {
		_, err := bolt.ParseKey(s)
		wantCode(t, err, core.EInvalid)
		if s != "" && strings.Contains(err.Error(), s) {
			t.Errorf("the error repeats the key: %v", err)
		}
		if !strings.Contains(core.ErrorMessage(err), "64 hex characters or the base64 of 32 bytes") {
			t.Errorf("unclear error: %v", err)
		}
	}
}

func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := core.ErrorCode(err); got != code {
		tb.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
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

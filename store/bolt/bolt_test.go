package bolt_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/seal"
	"github.com/sendlater/sendlater/store/storetest"
)

var ctx = context.Background()

// testKey is the key of every test store unless a test says otherwise.
var testKey = bytes.Repeat([]byte{0x5e}, seal.KeySize)

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
		Delivery: db, Billing: db, Links: db, Health: db, Watcher: db, Limits: db, PageViews: db,
		Audit: db, Drafts: db, Devices: db, Passkeys: db, DeviceCodes: db, Suppressions: db, Attachments: db,
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

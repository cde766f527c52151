package bolt_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/seal"
	"go.etcd.io/bbolt"
)

// Inspect reads a store without changing it: its version, whether a key
// opens it, and bbolt's consistency check, which finds pages that are
// neither reachable nor free.
func TestInspect(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sendlater.db")
	key := make([]byte, seal.KeySize)
	db, err := bolt.Open(path, bolt.Options{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	in, err := bolt.Inspect(path, key, time.Second)
	if err != nil || in.Version != in.Known || in.Known < 14 || !in.KeyChecked || !in.KeyOK || len(in.Problems) != 0 || in.Size == 0 {
		t.Fatalf("a new store: %+v, %v", in, err)
	}
	other := make([]byte, seal.KeySize)
	other[0] = 1
	if in, err := bolt.Inspect(path, other, time.Second); err != nil || !in.KeyChecked || in.KeyOK {
		t.Fatalf("another key: %+v, %v", in, err)
	}
	if in, err := bolt.Inspect(path, nil, time.Second); err != nil || in.KeyChecked {
		t.Fatalf("no key: %+v, %v", in, err)
	}

	// Pages freed by a deleted bucket, then forgotten by the freelist:
	// unreachable and not free.
	raw, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = raw.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucket([]byte("scratch"))
		for i := 0; err == nil && i < 2000; i++ {
			err = b.Put(fmt.Appendf(nil, "key-%05d", i), make([]byte, 100))
		}
		return err
	})
	if err == nil {
		err = raw.Update(func(tx *bbolt.Tx) error { return tx.DeleteBucket([]byte("scratch")) })
	}
	if err == nil {
		err = raw.Update(func(tx *bbolt.Tx) error { return nil }) // the freed pages reach the freelist
	}
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	forgetFreePages(t, path)
	in, err = bolt.Inspect(path, key, time.Second)
	if err != nil || len(in.Problems) == 0 {
		t.Fatalf("a freelist that lost its pages: %+v, %v", in, err)
	}
	t.Logf("found: %v", in.Problems[0])

	if _, err := bolt.Inspect(filepath.Join(t.TempDir(), "none.db"), key, time.Second); core.ErrorCode(err) != core.ENotFound {
		t.Fatalf("no file: %v", err)
	}
}

// forgetFreePages sets the count of the freelist page of the current meta
// page of the bbolt file at path to zero.
func forgetFreePages(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	if _, err := f.ReadAt(buf[:128], 0); err != nil {
		t.Fatal(err)
	}
	// Page header: id u64, flags u16, count u16, overflow u32. Meta after
	// it: magic, version, page size (u32 each), flags u32, root bucket
	// (16 bytes), freelist pgid, hwm pgid, txid.
	pageSize := int64(binary.LittleEndian.Uint32(buf[16+8:]))
	var freelist, bestTx uint64
	for _, p := range []int64{0, 1} {
		if _, err := f.ReadAt(buf[:128], p*pageSize); err != nil {
			t.Fatal(err)
		}
		if tx := binary.LittleEndian.Uint64(buf[16+48:]); tx >= bestTx {
			bestTx, freelist = tx, binary.LittleEndian.Uint64(buf[16+32:])
		}
	}
	if _, err := f.ReadAt(buf[:16], int64(freelist)*pageSize); err != nil {
		t.Fatal(err)
	}
	if count := binary.LittleEndian.Uint16(buf[10:]); count == 0 {
		t.Fatal("the freelist holds no page to forget")
	}
	if _, err := f.WriteAt([]byte{0, 0}, int64(freelist)*pageSize+10); err != nil {
		t.Fatal(err)
	}
}

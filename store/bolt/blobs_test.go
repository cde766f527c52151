package bolt_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sendlater/sendlater/blob/blobtest"
	"github.com/sendlater/sendlater/core"
)

func TestBlobContract(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) core.BlobStore {
		db := MustOpen(t, filepath.Join(t.TempDir(), "sendlater.db"))
		t.Cleanup(func() {
			if err := db.Check(); err != nil {
				t.Errorf("Check after the test: %v", err)
			}
		})
		return db.Blobs()
	})
}

// failingReader reads n random bytes, then fails.
type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("the connection dropped")
	}
	p = p[:min(len(p), f.n)]
	rand.Read(p)
	f.n -= len(p)
	return len(p), nil
}

// An upload cut short leaves nothing: not listed, not opened, no chunk, and
// the key stays free for the upload's retry.
func TestBlobPutCutShortLeavesNothing(t *testing.T) {
	db := MustOpen(t, filepath.Join(t.TempDir(), "sendlater.db"))
	blobs := db.Blobs()
	if _, err := blobs.PutBlob(ctx, "m1/f1", &failingReader{n: 3<<20 + 5}); err == nil {
		t.Fatal("a put whose reader failed succeeded")
	}
	if _, err := blobs.OpenBlob(ctx, "m1/f1"); core.ErrorCode(err) != core.ENotFound {
		t.Fatalf("open the cut put: %v", err)
	}
	listed := 0
	must(t, blobs.ListBlobs(ctx, "", func(string, int64) error { listed++; return nil }))
	chunks, pending, err := db.BlobLeftovers()
	if listed != 0 || chunks != 0 || pending != 0 || err != nil {
		t.Fatalf("after a cut put: %d listed, %d chunks, %d pending, %v", listed, chunks, pending, err)
	}
	data := bytes.Repeat([]byte("retry "), 1000)
	if n, err := blobs.PutBlob(ctx, "m1/f1", bytes.NewReader(data)); err != nil || n != int64(len(data)) {
		t.Fatalf("the retry: %d %v", n, err)
	}
	must(t, db.Check())
}

// Of puts of one key at once, one wins; the others are refused and leave
// no chunk behind.
func TestBlobConcurrentPutsOfOneKey(t *testing.T) {
	db := MustOpen(t, filepath.Join(t.TempDir(), "sendlater.db"))
	want := blobtest.PutsOfOneKeyAtOnce(t, db.Blobs())
	chunks, pending, err := db.BlobLeftovers()
	if chunks != want || pending != 0 || err != nil {
		t.Fatalf("%d chunks (want %d), %d pending, %v", chunks, want, pending, err)
	}
}

// A deleted blob gives its space back to the file's free pages: a second
// put of the same size does not grow the file.
func TestBlobDeleteFreesTheSpace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sendlater.db")
	db := MustOpen(t, path)
	blobs := db.Blobs()
	data := make([]byte, 8<<20)
	rand.Read(data)
	_, err := blobs.PutBlob(ctx, "a", bytes.NewReader(data))
	must(t, err)
	must(t, blobs.DeleteBlob(ctx, "a"))
	before, err := os.Stat(path)
	must(t, err)
	_, err = blobs.PutBlob(ctx, "b", bytes.NewReader(data))
	must(t, err)
	after, err := os.Stat(path)
	must(t, err)
	if after.Size() > before.Size() {
		t.Fatalf("the file grew from %d to %d bytes after a delete and a put of the same size", before.Size(), after.Size())
	}
	if chunks, _, _ := db.BlobLeftovers(); chunks != (8<<20)/(core.AttachmentChunkSize+16)+1 {
		t.Fatalf("%d chunks", chunks)
	}
}

// The bbolt file holds no plaintext of a file sealed (core.SealAttachment)
// and stored; the same search finds a file stored unsealed, so it would
// see one.
func TestBlobFileHoldsNoPlaintext(t *testing.T) {
	marker := []byte("PLAINTEXT-MARKER the will is in the desk ")
	search := func(t *testing.T, seal bool) bool {
		path := filepath.Join(t.TempDir(), "sendlater.db")
		db := MustOpen(t, path)
		for i, size := range []int{1, 100, 5000} { // a chunk's part, chunks, across write batches
			plain := bytes.Repeat(marker, size)
			var r io.Reader = bytes.NewReader(plain)
			if seal {
				var err error
				r, err = core.SealAttachment(bytes.Repeat([]byte{9}, 32), "f1", r)
				must(t, err)
			}
			_, err := db.Blobs().PutBlob(ctx, "m1/f"+string(rune('a'+i)), r)
			must(t, err)
		}
		b, err := os.ReadFile(path) // every commit is on disk
		must(t, err)
		return bytes.Contains(b, marker[:16])
	}
	if search(t, true) {
		t.Fatal("the bbolt file holds plaintext of a sealed file")
	}
	if !search(t, false) {
		t.Fatal("the search does not find a file stored unsealed: it could not see plaintext")
	}
}

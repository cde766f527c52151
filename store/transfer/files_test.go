package transfer_test

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/transfer"
)

// sealedFiles puts sealed attachments of several sizes (empty, one
// chunk, across the stores' write batches) into s and returns their
// sealed bytes by key.
func sealedFiles(t *testing.T, s transfer.Store) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for i, size := range []int{0, 1000, 3<<20 + 7} {
		plain := make([]byte, size)
		rand.Read(plain)
		key := fmt.Sprintf("m%d/f%d", i%2, i)
		sealed, err := core.SealAttachment(bytes.Repeat([]byte{4}, 32), key, bytes.NewReader(plain))
		must(t, err)
		var kept bytes.Buffer
		_, err = s.Blobs().PutBlob(ctx, key, io.TeeReader(sealed, &kept))
		must(t, err)
		files[key] = kept.Bytes()
	}
	return files
}

// sameFiles fails unless s holds exactly files, byte for byte.
func sameFiles(t *testing.T, what string, s transfer.Store, files map[string][]byte) {
	t.Helper()
	n := 0
	must(t, s.Blobs().ListBlobs(ctx, "", func(key string, size int64) error {
		n++
		want, ok := files[key]
		if !ok || size != int64(len(want)) {
			t.Fatalf("%s: file %s of %d bytes, want %d (known: %v)", what, key, size, len(want), ok)
		}
		r, err := s.Blobs().OpenBlob(ctx, key)
		must(t, err)
		defer r.Close()
		got, err := io.ReadAll(io.NewSectionReader(r, 0, r.Size()))
		must(t, err)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: file %s has other bytes", what, key)
		}
		return nil
	}))
	if n != len(files) {
		t.Fatalf("%s: %d files, want %d", what, n, len(files))
	}
}

// Attached files move bolt -> postgres -> bolt with their sealed bytes
// unchanged; a rerun changes nothing.
func TestCopyMovesFilesUnchanged(t *testing.T) {
	pg := openPostgres(t, pgtest.Key)
	src := openBolt(t, pgtest.Key)
	counts := fill(t, src, 10)
	files := sealedFiles(t, src)
	counts.Files = len(files)
	back := openBolt(t, pgtest.Key)
	for _, step := range []struct {
		what     string
		from, to transfer.Store
	}{{"bolt -> postgres", src, pg}, {"postgres -> bolt", pg, back}} {
		rep, err := transfer.Copy(ctx, step.from, step.to)
		wantReport(t, step.what, rep, err, counts, total(counts))
		var want int64
		for _, f := range files {
			want += int64(len(f))
		}
		if rep.FileBytes != want {
			t.Fatalf("%s: %d bytes of files copied, want %d", step.what, rep.FileBytes, want)
		}
		sameFiles(t, step.what, step.to, files)
		rep, err = transfer.Copy(ctx, step.from, step.to)
		wantReport(t, step.what+" again", rep, err, counts, 0)
	}
}

// A destination holding another file under a source's key is refused with
// a sentence naming it, and the file there is left as it was.
func TestCopyRefusesAnotherFileUnderAKey(t *testing.T) {
	src := openBolt(t, pgtest.Key)
	_, err := src.Blobs().PutBlob(ctx, "m1/f1", bytes.NewReader([]byte("sealed bytes")))
	must(t, err)
	dst := openPostgres(t, pgtest.Key)
	_, err = dst.Blobs().PutBlob(ctx, "m1/f1", bytes.NewReader([]byte("other")))
	must(t, err)
	_, err = transfer.Copy(ctx, src, dst)
	if core.ErrorCode(err) != core.EConflict || core.ErrorMessage(err) !=
		`The destination holds another file under "m1/f1" (5 bytes, the source's 12): it held other files before. Copy into an empty store.` {
		t.Fatalf("Copy over another file: %v", err)
	}
	sameFiles(t, "the destination", dst, map[string][]byte{"m1/f1": []byte("other")})
}

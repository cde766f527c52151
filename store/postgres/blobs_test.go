package postgres_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/blob/blobtest"
	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
)

func TestBlobContract(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) core.BlobStore { return mustOpen(t, pgtest.URL(t)).Blobs() })
}

// blobLeftovers counts the chunk rows and the puts without a size in the
// schema of url: what a put cut short could leave behind.
func blobLeftovers(t *testing.T, url string) (chunks, pending int) {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, "select (select count(*) from blob_chunks), (select count(*) from blobs where size is null)").
		Scan(&chunks, &pending); err != nil {
		t.Fatal(err)
	}
	return chunks, pending
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

// An upload cut short leaves nothing: not listed, not opened, no row, and
// the key stays free for the upload's retry.
func TestBlobPutCutShortLeavesNothing(t *testing.T) {
	url := pgtest.URL(t)
	blobs := mustOpen(t, url).Blobs()
	if _, err := blobs.PutBlob(ctx, "m1/f1", &failingReader{n: 3<<20 + 5}); err == nil {
		t.Fatal("a put whose reader failed succeeded")
	}
	if _, err := blobs.OpenBlob(ctx, "m1/f1"); core.ErrorCode(err) != core.ENotFound {
		t.Fatalf("open the cut put: %v", err)
	}
	listed := 0
	if err := blobs.ListBlobs(ctx, "", func(string, int64) error { listed++; return nil }); err != nil {
		t.Fatal(err)
	}
	if chunks, pending := blobLeftovers(t, url); listed != 0 || chunks != 0 || pending != 0 {
		t.Fatalf("after a cut put: %d listed, %d chunk rows, %d pending", listed, chunks, pending)
	}
	data := bytes.Repeat([]byte("retry "), 1000)
	if n, err := blobs.PutBlob(ctx, "m1/f1", bytes.NewReader(data)); err != nil || n != int64(len(data)) {
		t.Fatalf("the retry: %d %v", n, err)
	}
}

// Of puts of one key at once, one wins; the others are refused and leave
// no row behind.
func TestBlobConcurrentPutsOfOneKey(t *testing.T) {
	url := pgtest.URL(t)
	want := blobtest.PutsOfOneKeyAtOnce(t, mustOpen(t, url).Blobs())
	if chunks, pending := blobLeftovers(t, url); chunks != want || pending != 0 {
		t.Fatalf("%d chunk rows (want %d), %d pending", chunks, want, pending)
	}
}

// A put a crash left without its size is swept with its chunks once idle
// long enough, never while it is fresh; the finished blob stays.
func TestBlobSweepTakesOnlyIdlePuts(t *testing.T) {
	url := pgtest.URL(t)
	db := mustOpen(t, url)
	blobs := db.Blobs()
	if _, err := blobs.PutBlob(ctx, "kept", bytes.NewReader(make([]byte, 200000))); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// What a crash leaves: a put with chunks and no size.
	var id int64
	if err := conn.QueryRow(ctx, "insert into blobs (key, touched_at) values ('cut', extract(epoch from now())::bigint) returning id").Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "insert into blob_chunks (blob, idx, data) values ($1, 0, '\\x00')", id); err != nil {
		t.Fatal(err)
	}
	if n, err := db.SweepBlobPuts(ctx, time.Hour); err != nil || n != 0 {
		t.Fatalf("a fresh put swept: %d %v", n, err)
	}
	if _, err := blobs.OpenBlob(ctx, "cut"); core.ErrorCode(err) != core.ENotFound {
		t.Fatalf("open the cut put: %v", err)
	}
	if n, err := db.SweepBlobPuts(ctx, 0); err != nil || n != 1 {
		t.Fatalf("sweep the idle put: %d %v", n, err)
	}
	if chunks, pending := blobLeftovers(t, url); chunks != 4 || pending != 0 {
		t.Fatalf("after the sweep: %d chunk rows, %d pending", chunks, pending)
	}
}

// No table of the schema holds plaintext of a file sealed
// (core.SealAttachment) and stored, read as text or as bytes (a bytea
// column reads as hex); the same search finds a file stored unsealed, so
// it would see one.
func TestBlobTablesHoldNoPlaintext(t *testing.T) {
	marker := []byte("PLAINTEXT-MARKER the will is in the desk ")
	search := func(t *testing.T, seal bool) []string {
		url := pgtest.URL(t)
		db := mustOpen(t, url)
		for i, size := range []int{1, 100, 5000} { // a chunk's part, chunks, across write batches
			plain := bytes.Repeat(marker, size)
			var r io.Reader = bytes.NewReader(plain)
			if seal {
				var err error
				r, err = core.SealAttachment(bytes.Repeat([]byte{9}, 32), "f1", r)
				if err != nil {
					t.Fatal(err)
				}
			}
			if _, err := db.Blobs().PutBlob(ctx, "m1/f"+string(rune('a'+i)), r); err != nil {
				t.Fatal(err)
			}
		}
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		rows, err := conn.Query(ctx, "select table_name from information_schema.tables where table_schema = current_schema()")
		if err != nil {
			t.Fatal(err)
		}
		tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil || len(tables) < 10 {
			t.Fatalf("tables %v %v", tables, err)
		}
		var found []string
		for _, table := range tables {
			var dump []byte
			if err := conn.QueryRow(ctx, "select coalesce(string_agg(t::text, E'\\n'), '') from "+pgx.Identifier{table}.Sanitize()+" t").Scan(&dump); err != nil {
				t.Fatal(err)
			}
			dump = bytes.ToLower(dump)
			if bytes.Contains(dump, bytes.ToLower(marker[:16])) || bytes.Contains(dump, []byte(hex.EncodeToString(marker[:16]))) {
				found = append(found, table)
			}
		}
		return found
	}
	if found := search(t, true); len(found) > 0 {
		t.Fatalf("tables %v hold plaintext of a sealed file", found)
	}
	if found := search(t, false); len(found) != 1 || found[0] != "blob_chunks" {
		t.Fatalf("the search finds a file stored unsealed in %v, want [blob_chunks]: it could not see plaintext", found)
	}
}

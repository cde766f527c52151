package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sendlater/sendlater/core"
)

// Attachments' sealed bytes inside the store (issue 33, migration 0025):
// a blobs row per put, its size null until the last of its chunk rows is
// written, so that a put cut short is never read; its chunks are written in
// batches of blobBatch bytes, each batch one round trip and its own
// transaction, so a 25 MB upload holds no connection between batches (a
// slow client does not take one of the pool's few) and no more than one
// batch in memory.

const (
	// blobChunk is the size of a chunk row: one sealed attachment chunk
	// (core.AttachmentChunkSize and its 16-byte tag), so that opening one
	// sealed chunk reads one row.
	blobChunk = core.AttachmentChunkSize + 16
	// blobBatch is how many bytes one round trip of a put writes.
	blobBatch = 4 * blobChunk
	// blobPutIdle is how long a put may go without writing a batch before
	// the sweep takes it for one a crash cut short.
	blobPutIdle = time.Hour
)

// blobStore is the core.BlobStore of the store (Blobs).
type blobStore struct{ s *DB }

// Blobs is the storage of attachments' sealed bytes inside the store.
func (s *DB) Blobs() core.BlobStore { return blobStore{s} }

var _ core.BlobStore = blobStore{}

func (b blobStore) PutBlob(ctx context.Context, key string, r io.Reader) (int64, error) {
	if err := core.CheckBlobKey(key); err != nil {
		return 0, err
	}
	var id int64
	err := b.s.pool.QueryRow(ctx, `insert into blobs (key, touched_at)
		select $1, extract(epoch from now())::bigint
		where not exists (select 1 from blobs where key = $1 and size is not null)
		returning id`, key).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, core.ErrBlobExists()
	}
	if err != nil {
		return 0, wrapErr(err)
	}
	size, err := b.putChunks(ctx, id, r)
	if err != nil {
		// Not ctx: a cancelled upload still removes what it wrote (and if
		// this fails too, the sweep will).
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		b.s.pool.Exec(dctx, "delete from blobs where id = $1 and size is null", id)
		return 0, err
	}
	return size, nil
}

// putChunks writes what r reads as the chunk rows of put id, a batch a
// round trip, and then gives the put its size.
func (b blobStore) putChunks(ctx context.Context, id int64, r io.Reader) (int64, error) {
	buf := make([]byte, blobBatch)
	var size, index int64
	for {
		n, rerr := io.ReadFull(r, buf)
		if rerr != nil && rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
			return 0, rerr
		}
		if n > 0 {
			batch := &pgx.Batch{}
			for off := 0; off < n; off += blobChunk {
				batch.Queue("insert into blob_chunks (blob, idx, data) values ($1, $2, $3)",
					id, index, buf[off:min(off+blobChunk, n)])
				index++
			}
			batch.Queue("update blobs set touched_at = extract(epoch from now())::bigint where id = $1 and size is null", id)
			if err := b.s.pool.SendBatch(ctx, batch).Close(); err != nil {
				var pgErr *pgconn.PgError
				if errors.As(err, &pgErr) && pgErr.ConstraintName == "blob_chunks_blob_fkey" {
					return 0, errPutSwept()
				}
				return 0, wrapErr(err)
			}
			size += int64(n)
		}
		if rerr != nil {
			break
		}
	}
	tag, err := b.s.pool.Exec(ctx, "update blobs set size = $2 where id = $1 and size is null", id, size)
	if err != nil {
		return 0, wrapCommitErr(err) // blobs_key: a put of the same key finished first
	}
	if tag.RowsAffected() != 1 {
		return 0, errPutSwept()
	}
	return size, nil
}

// errPutSwept is a put that went blobPutIdle without a batch.
func errPutSwept() error {
	return core.Errorf(core.EUnavailable, "The upload paused for too long and was discarded. Please upload the file again.")
}

// SweepBlobPuts removes the puts that wrote nothing for idle (a crash cut
// them short), their chunks with them, and returns how many. Open sweeps
// those idle for an hour.
func (s *DB) SweepBlobPuts(ctx context.Context, idle time.Duration) (int64, error) {
	tag, err := s.pool.Exec(ctx, "delete from blobs where size is null and touched_at <= extract(epoch from now())::bigint - $1",
		int64(idle/time.Second))
	return tag.RowsAffected(), wrapErr(err)
}

func (b blobStore) OpenBlob(ctx context.Context, key string) (core.BlobReader, error) {
	if core.CheckBlobKey(key) != nil {
		return nil, core.ErrBlobNotFound() // no put stores such a key
	}
	var id, size int64
	err := b.s.pool.QueryRow(ctx, "select id, size from blobs where key = $1 and size is not null", key).Scan(&id, &size)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, core.ErrBlobNotFound()
	}
	if err != nil {
		return nil, wrapErr(err)
	}
	return &blobReader{s: b.s, ctx: ctx, id: id, size: size}, nil
}

// blobReader reads one blob: each ReadAt one query for the rows it spans,
// under the context of OpenBlob (a download whose request ended stops).
type blobReader struct {
	s    *DB
	ctx  context.Context
	id   int64
	size int64
	core.BlobReadGuard
}

func (r *blobReader) Size() int64 { return r.size }

func (r *blobReader) ReadAt(p []byte, off int64) (int, error) {
	want, err := r.Window(p, off, r.size)
	if err != nil {
		return 0, err
	}
	n := 0
	if len(want) > 0 {
		first, last := off/blobChunk, (off+int64(len(want))-1)/blobChunk
		rows, err := r.s.pool.Query(r.ctx, "select idx, data from blob_chunks where blob = $1 and idx between $2 and $3 order by idx",
			r.id, first, last)
		if err != nil {
			return 0, wrapErr(err)
		}
		next := first
		for rows.Next() {
			raw := rows.RawValues() // read in place: no copy of a row
			if len(raw) != 2 || len(raw[0]) != 4 || int64(int32(binary.BigEndian.Uint32(raw[0]))) != next {
				break // a row missing: deleted since it was opened
			}
			at := off + int64(n)
			in := int(at - next*blobChunk)
			if in > len(raw[1]) {
				break
			}
			n += copy(want[n:], raw[1][in:])
			next++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return n, wrapErr(err)
		}
		if n < len(want) {
			return n, core.ErrBlobNotFound()
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (b blobStore) DeleteBlob(ctx context.Context, key string) error {
	if core.CheckBlobKey(key) != nil {
		return nil // no put stores such a key
	}
	_, err := b.s.pool.Exec(ctx, "delete from blobs where key = $1 and size is not null", key) // and its chunks
	return wrapErr(err)
}

// blobListPage is how many keys one query of ListBlobs reads: fn runs
// between queries, on no connection, so it may delete what it is shown.
const blobListPage = 500

func (b blobStore) ListBlobs(ctx context.Context, prefix string, fn func(key string, size int64) error) error {
	type listed struct {
		key  string
		size int64
	}
	if !utf8.ValidString(prefix) || strings.ContainsRune(prefix, 0) {
		return nil // no key starts so
	}
	from, op := prefix, ">="
	for {
		rows, err := b.s.pool.Query(ctx, "select key, size from blobs where size is not null and key "+op+" $1 order by key limit $2",
			from, blobListPage)
		if err != nil {
			return wrapErr(err)
		}
		page, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (listed, error) {
			var l listed
			return l, row.Scan(&l.key, &l.size)
		})
		if err != nil {
			return wrapErr(err)
		}
		for _, l := range page {
			if !strings.HasPrefix(l.key, prefix) {
				return nil
			}
			if err := fn(l.key, l.size); err != nil {
				return err
			}
		}
		if len(page) < blobListPage {
			return nil
		}
		from, op = page[len(page)-1].key, ">"
	}
}

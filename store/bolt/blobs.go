package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"sync"

	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

// Attachments' sealed bytes inside the store (issue 33, schema version 17).
//
// A put writes its chunks under a new put id, in batches of blobBatch bytes,
// each batch its own short write transaction (so a 25 MB upload never holds
// the writer lock for long, and never holds more than one batch in memory),
// with the put listed in blobs_pending until a last transaction names the
// blob in blobs. Only blobs is ever read: a put cut short (an error, or a
// crash at any point) is invisible, and its chunks are removed (at once on
// an error, at the next Open after a crash).
var (
	bucketBlobs        = []byte("blobs")         // key -> blobRecord (complete blobs only)
	bucketBlobChunks   = []byte("blob_chunks")   // put id (8) | chunk index (4) -> sealed bytes
	bucketBlobsPending = []byte("blobs_pending") // put id (8) -> key, while its put runs
)

// createBlobBuckets is the migration that adds the attachments' storage.
func createBlobBuckets(tx *bbolt.Tx) error {
	for _, name := range [][]byte{bucketBlobs, bucketBlobChunks, bucketBlobsPending} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	return nil
}

const (
	// blobChunk is the size of a stored chunk: one sealed attachment chunk
	// (core.AttachmentChunkSize and its 16-byte tag), so that opening one
	// sealed chunk reads one stored chunk.
	blobChunk = core.AttachmentChunkSize + 16
	// blobBatch is how many bytes one write transaction of a put stores:
	// the most a put holds in memory.
	blobBatch = 16 * blobChunk
)

// blobRecord is a complete blob: its put id and its size.
func blobRecord(id uint64, size int64) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, id), uint64(size))
}

func parseBlobRecord(v []byte) (id uint64, size int64, ok bool) {
	if len(v) != 16 {
		return 0, 0, false
	}
	return binary.BigEndian.Uint64(v), int64(binary.BigEndian.Uint64(v[8:])), true
}

func blobChunkKey(id uint64, index int64) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(make([]byte, 0, 12), id), uint32(index))
}

// blobStore is the core.BlobStore of the store (Blobs).
type blobStore struct{ s *DB }

// Blobs is the storage of attachments' sealed bytes inside the store.
func (s *DB) Blobs() core.BlobStore { return blobStore{s} }

var _ core.BlobStore = blobStore{}

func (b blobStore) PutBlob(ctx context.Context, key string, r io.Reader) (int64, error) {
	if err := core.CheckBlobKey(key); err != nil {
		return 0, err
	}
	var id uint64
	err := b.s.update(ctx, func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketBlobs).Get([]byte(key)) != nil {
			return core.ErrBlobExists()
		}
		pending := tx.Bucket(bucketBlobsPending)
		var err error
		if id, err = pending.NextSequence(); err != nil {
			return err
		}
		return pending.Put(binary.BigEndian.AppendUint64(nil, id), []byte(key))
	})
	if err != nil {
		return 0, err
	}
	size, err := b.putChunks(ctx, id, key, r)
	if err != nil {
		// Not ctx: a cancelled upload still removes what it wrote.
		if cerr := b.s.update(context.WithoutCancel(ctx), func(tx *bbolt.Tx) error { return dropPut(tx, id) }); cerr != nil {
			return 0, errors.Join(err, cerr)
		}
		return 0, err
	}
	return size, nil
}

// putChunks writes what r reads as the chunks of put id, a batch a
// transaction, and names the blob key in the last one.
func (b blobStore) putChunks(ctx context.Context, id uint64, key string, r io.Reader) (int64, error) {
	pb := batchBuffers.Get().(*[]byte)
	defer batchBuffers.Put(pb) // bbolt copies a value into its pages at the commit
	buf := *pb
	var size int64
	var index int64
	for {
		n, rerr := io.ReadFull(r, buf)
		if rerr != nil && rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
			return 0, rerr
		}
		last := rerr != nil
		err := b.s.update(ctx, func(tx *bbolt.Tx) error {
			chunks := tx.Bucket(bucketBlobChunks)
			for off := 0; off < n; off += blobChunk {
				end := min(off+blobChunk, n)
				if err := chunks.Put(blobChunkKey(id, index+int64(off/blobChunk)), buf[off:end]); err != nil {
					return err
				}
			}
			if !last {
				return nil
			}
			blobs := tx.Bucket(bucketBlobs)
			if blobs.Get([]byte(key)) != nil { // a put of the same key finished first
				return core.ErrBlobExists()
			}
			if err := blobs.Put([]byte(key), blobRecord(id, size+int64(n))); err != nil {
				return err
			}
			return tx.Bucket(bucketBlobsPending).Delete(binary.BigEndian.AppendUint64(nil, id))
		})
		if err != nil {
			return 0, err
		}
		index += int64((n + blobChunk - 1) / blobChunk)
		size += int64(n)
		if last {
			return size, nil
		}
	}
}

// batchBuffers are putChunks' batches, reused: an upload puts a blob a part
// (1 MiB), and a new batch for each would be garbage of the part's size
// every part, which the heap grows by before a collection.
var batchBuffers = sync.Pool{New: func() any { b := make([]byte, blobBatch); return &b }}

// dropPut removes the chunks of put id and its pending mark.
func dropPut(tx *bbolt.Tx, id uint64) error {
	prefix := binary.BigEndian.AppendUint64(nil, id)
	c := tx.Bucket(bucketBlobChunks).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return tx.Bucket(bucketBlobsPending).Delete(prefix)
}

// sweepBlobPuts removes the puts a crash cut short: at Open, when no put
// of this process runs yet.
func sweepBlobPuts(tx *bbolt.Tx) error {
	pending := tx.Bucket(bucketBlobsPending)
	if pending == nil {
		return nil
	}
	var ids []uint64
	if err := pending.ForEach(func(k, _ []byte) error {
		if len(k) == 8 {
			ids = append(ids, binary.BigEndian.Uint64(k))
		}
		return nil
	}); err != nil {
		return err
	}
	for _, id := range ids {
		if err := dropPut(tx, id); err != nil {
			return err
		}
	}
	return nil
}

func (b blobStore) OpenBlob(ctx context.Context, key string) (core.BlobReader, error) {
	if core.CheckBlobKey(key) != nil {
		return nil, core.ErrBlobNotFound() // no put stores such a key
	}
	var id uint64
	var size int64
	err := b.s.view(ctx, func(tx *bbolt.Tx) error {
		v := tx.Bucket(bucketBlobs).Get([]byte(key))
		if v == nil {
			return core.ErrBlobNotFound()
		}
		var ok bool
		if id, size, ok = parseBlobRecord(v); !ok {
			return core.Errorf(core.EInternal, "The record of file %q is damaged.", key)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &blobReader{s: b.s, ctx: ctx, id: id, size: size}, nil
}

// blobReader reads one blob, a read transaction a ReadAt (none is held
// between reads, so a slow download never holds up the file's growth),
// under the context of OpenBlob (a download whose request ended stops).
type blobReader struct {
	s    *DB
	ctx  context.Context
	id   uint64
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
	err = r.s.view(r.ctx, func(tx *bbolt.Tx) error {
		chunks := tx.Bucket(bucketBlobChunks)
		for n < len(want) {
			at := off + int64(n)
			v := chunks.Get(blobChunkKey(r.id, at/blobChunk))
			in := int(at % blobChunk)
			if v == nil || in >= len(v) { // deleted since it was opened
				return core.ErrBlobNotFound()
			}
			n += copy(want[n:], v[in:])
			releaseMapped(tx, v) // a download does not keep the file resident
		}
		return nil
	})
	if err != nil {
		return n, err
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
	return b.s.update(ctx, func(tx *bbolt.Tx) error {
		blobs := tx.Bucket(bucketBlobs)
		v := blobs.Get([]byte(key))
		if v == nil {
			return nil
		}
		id, _, ok := parseBlobRecord(v)
		if !ok {
			return core.Errorf(core.EInternal, "The record of file %q is damaged.", key)
		}
		if err := blobs.Delete([]byte(key)); err != nil {
			return err
		}
		return dropPut(tx, id)
	})
}

// blobListPage is how many keys one read transaction of ListBlobs takes: fn
// runs outside any transaction, so it may delete what it is shown.
const blobListPage = 500

func (b blobStore) ListBlobs(ctx context.Context, prefix string, fn func(key string, size int64) error) error {
	type listed struct {
		key  string
		size int64
	}
	from := []byte(prefix)
	skipFirst := false
	for {
		var page []listed
		err := b.s.view(ctx, func(tx *bbolt.Tx) error {
			c := tx.Bucket(bucketBlobs).Cursor()
			k, v := c.Seek(from)
			if skipFirst && k != nil && bytes.Equal(k, from) {
				k, v = c.Next()
			}
			for ; k != nil && bytes.HasPrefix(k, []byte(prefix)) && len(page) < blobListPage; k, v = c.Next() {
				_, size, ok := parseBlobRecord(v)
				if !ok {
					return core.Errorf(core.EInternal, "The record of file %q is damaged.", k)
				}
				page = append(page, listed{string(k), size})
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, l := range page {
			if err := fn(l.key, l.size); err != nil {
				return err
			}
		}
		if len(page) < blobListPage {
			return nil
		}
		from, skipFirst = []byte(page[len(page)-1].key), true
	}
}

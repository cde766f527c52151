package core

import (
	"context"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// BlobStore keeps the sealed bytes of attachments (SealAttachment) under
// keys: inside the store on one machine, or in S3-compatible object storage
// for a cluster (blob/s3). It never sees a plaintext byte. Every
// implementation passes blob/blobtest.
type BlobStore interface {
	// PutBlob stores what r reads under key, streaming (never the whole
	// blob in memory), and returns how many bytes it stored. A key is
	// written once; a second put of it fails with EConflict.
	PutBlob(ctx context.Context, key string, r io.Reader) (int64, error)
	// OpenBlob opens the blob of key for reads at any offset; ENotFound
	// when there is none.
	OpenBlob(ctx context.Context, key string) (BlobReader, error)
	// DeleteBlob removes the blob of key; a missing one is no error.
	DeleteBlob(ctx context.Context, key string) error
	// ListBlobs calls fn with every key under prefix and its size, in key
	// order (a garbage collection finds orphans with it).
	ListBlobs(ctx context.Context, prefix string, fn func(key string, size int64) error) error
}

// BlobReader reads one stored blob.
type BlobReader interface {
	io.ReaderAt
	io.Closer
	Size() int64
}

// ErrBlobNotFound is a key no BlobStore holds.
func ErrBlobNotFound() error { return Errorf(ENotFound, "The file could not be found.") }

// MaxBlobKey bounds a blob key's length (S3's own limit).
const MaxBlobKey = 1024

// CheckBlobKey refuses a key no BlobStore should hold: empty, longer than
// MaxBlobKey, not UTF-8 or with a NUL.
func CheckBlobKey(key string) error {
	if key == "" || len(key) > MaxBlobKey || strings.ContainsRune(key, 0) || !utf8.ValidString(key) {
		return Errorf(EInvalid, "A file key must be 1 to %d bytes of UTF-8 text, without NUL.", MaxBlobKey)
	}
	return nil
}

// ErrBlobExists is a key written before.
func ErrBlobExists() error { return Errorf(EConflict, "A file with this key already exists.") }

// BlobReadGuard is what the stores' BlobReaders share: Close, and the
// part of a ReadAt's buffer a read may fill. Embed it.
type BlobReadGuard struct {
	mu     sync.Mutex
	closed bool
}

// Close marks the reader closed: every later read fails.
func (g *BlobReadGuard) Close() error {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	return nil
}

// Window is the part of p a ReadAt at off of a blob of size fills: an
// error once closed or for a negative offset, io.EOF at or past the end.
func (g *BlobReadGuard) Window(p []byte, off, size int64) ([]byte, error) {
	g.mu.Lock()
	closed := g.closed
	g.mu.Unlock()
	switch {
	case closed:
		return nil, Errorf(EInvalid, "The file was closed.")
	case off < 0:
		return nil, Errorf(EInvalid, "A read must start at an offset of 0 or more.")
	case off >= size:
		return nil, io.EOF
	}
	if rest := size - off; int64(len(p)) > rest {
		p = p[:rest]
	}
	return p, nil
}

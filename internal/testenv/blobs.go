package testenv

import (
	"context"
	"io"
	"sync"
	"testing"

	"github.com/sendlater/sendlater/blob/s3/s3test"
	"github.com/sendlater/sendlater/core"
)

// lazyBlobs is the default BlobStore of an Env: blob/s3 over an S3 server
// in the test's process, started on first use (most tests attach no file).
type lazyBlobs struct {
	tb   testing.TB
	once sync.Once
	st   core.BlobStore
}

func (l *lazyBlobs) get() core.BlobStore {
	l.once.Do(func() { l.st, _ = s3test.New(l.tb) })
	return l.st
}

func (l *lazyBlobs) PutBlob(ctx context.Context, key string, r io.Reader) (int64, error) {
	return l.get().PutBlob(ctx, key, r)
}

func (l *lazyBlobs) OpenBlob(ctx context.Context, key string) (core.BlobReader, error) {
	return l.get().OpenBlob(ctx, key)
}

func (l *lazyBlobs) DeleteBlob(ctx context.Context, key string) error {
	return l.get().DeleteBlob(ctx, key)
}

func (l *lazyBlobs) ListBlobs(ctx context.Context, prefix string, fn func(key string, size int64) error) error {
	return l.get().ListBlobs(ctx, prefix, fn)
}

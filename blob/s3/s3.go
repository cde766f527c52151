// Package s3 keeps attachments' sealed bytes in S3-compatible object
// storage (Amazon S3, MinIO, Ceph, R2…) as core.BlobStore, with minio-go:
// for installations of several servers, which share no disk. Objects hold
// only sealed bytes (core.SealAttachment): the bucket never sees a file's
// plaintext.
package s3

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/sendlater/sendlater/core"
)

// Config is where the objects go (config attachments.s3.*).
type Config struct {
	Endpoint  string // host[:port]
	Bucket    string
	AccessKey string
	SecretKey string
	Region    string
	Insecure  bool // http instead of https (a local MinIO)
	// Prefix starts every object's name (e.g. "sendlater/").
	Prefix string
}

// partSize bounds what one upload holds in memory: minio-go buffers a part
// of an upload of unknown size (S3's smallest part is 5 MiB).
const partSize = 5 << 20

// Store is a core.BlobStore over one bucket.
type Store struct {
	c      *minio.Client
	bucket string
	prefix string
}

var _ core.BlobStore = (*Store)(nil)

// Open connects to the endpoint; it makes no request.
func Open(c Config) (*Store, error) {
	cl, err := minio.New(c.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(c.AccessKey, c.SecretKey, ""),
		Secure: !c.Insecure,
		Region: c.Region,
	})
	if err != nil {
		return nil, err
	}
	return &Store{c: cl, bucket: c.Bucket, prefix: c.Prefix}, nil
}

// Check reports whether the bucket exists and can be reached.
func (s *Store) Check(ctx context.Context) error {
	ok, err := s.c.BucketExists(ctx, s.bucket)
	if err != nil {
		return core.Errorf(core.EUnavailable, "Cannot reach the object storage: %s", minio.ToErrorResponse(err).Code)
	}
	if !ok {
		return core.Errorf(core.EUnavailable, "The object storage has no bucket %q.", s.bucket)
	}
	return nil
}

func (s *Store) PutBlob(ctx context.Context, key string, r io.Reader) (int64, error) {
	// The prefix counts in S3's limit on a key.
	if err := core.CheckBlobKey(key); err != nil {
		return 0, err
	} else if err := core.CheckBlobKey(s.prefix + key); err != nil {
		return 0, err
	}
	// If-None-Match: * makes the put fail when the key exists, in one
	// request (S3 conditional writes; servers without them write anyway,
	// so the stat below keeps the rule for them too).
	if _, err := s.c.StatObject(ctx, s.bucket, s.prefix+key, minio.StatObjectOptions{}); err == nil {
		return 0, core.ErrBlobExists()
	} else if !notFound(err) {
		return 0, unavailable(err)
	}
	// No payload hash: the bytes are sealed (GCM authenticates them) and
	// TLS carries them; hashing would mean reading each part twice, and
	// without TLS minio-go would frame the body in aws-chunked signing.
	opts := minio.PutObjectOptions{PartSize: partSize, ContentType: "application/octet-stream", DisableContentSha256: true}
	opts.SetMatchETagExcept("*")
	size := int64(-1) // unknown: streamed in parts of partSize
	br := bufio.NewReaderSize(r, 4096)
	if _, err := br.Peek(1); err == io.EOF {
		size = 0 // an upload of unknown size needs at least one byte
	}
	info, err := s.c.PutObject(ctx, s.bucket, s.prefix+key, br, size, opts)
	if err != nil {
		if minio.ToErrorResponse(err).StatusCode == http.StatusPreconditionFailed {
			return 0, core.ErrBlobExists()
		}
		return 0, unavailable(err)
	}
	return info.Size, nil
}

func (s *Store) OpenBlob(ctx context.Context, key string) (core.BlobReader, error) {
	info, err := s.c.StatObject(ctx, s.bucket, s.prefix+key, minio.StatObjectOptions{})
	if err != nil {
		if notFound(err) {
			return nil, core.ErrBlobNotFound()
		}
		return nil, unavailable(err)
	}
	return &object{s: s, ctx: ctx, key: s.prefix + key, size: info.Size}, nil
}

// object reads ranges of one object, a GET with a Range each.
type object struct {
	s    *Store
	ctx  context.Context
	key  string
	size int64
}

func (o *object) Size() int64  { return o.size }
func (o *object) Close() error { return nil }

func (o *object) ReadAt(p []byte, off int64) (int, error) {
	if off >= o.size {
		return 0, io.EOF
	}
	end := min(off+int64(len(p)), o.size)
	opts := minio.GetObjectOptions{}
	if err := opts.SetRange(off, end-1); err != nil {
		return 0, err
	}
	obj, err := o.s.c.GetObject(o.ctx, o.s.bucket, o.key, opts)
	if err != nil {
		return 0, unavailable(err)
	}
	defer obj.Close()
	n, err := io.ReadFull(obj, p[:end-off])
	if err != nil {
		return n, unavailable(err)
	}
	if end-off < int64(len(p)) {
		return n, io.EOF
	}
	return n, nil
}

func (s *Store) DeleteBlob(ctx context.Context, key string) error {
	if err := s.c.RemoveObject(ctx, s.bucket, s.prefix+key, minio.RemoveObjectOptions{}); err != nil && !notFound(err) {
		return unavailable(err)
	}
	return nil
}

func (s *Store) ListBlobs(ctx context.Context, prefix string, fn func(key string, size int64) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for o := range s.c.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix + prefix, Recursive: true}) {
		if o.Err != nil {
			return unavailable(o.Err)
		}
		if err := fn(o.Key[len(s.prefix):], o.Size); err != nil {
			return err
		}
	}
	return nil
}

func notFound(err error) bool {
	code := minio.ToErrorResponse(err).Code
	return code == "NoSuchKey" || code == "NotFound"
}

// unavailable is an error of the object storage, without its detail (the
// log has it from the caller).
func unavailable(err error) error {
	var e *core.Error
	if errors.As(err, &e) {
		return err
	}
	return core.Errorf(core.EUnavailable, "The object storage could not be reached; try again later.")
}

package s3_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/sendlater/sendlater/blob/blobtest"
	"github.com/sendlater/sendlater/blob/s3"
	"github.com/sendlater/sendlater/core"
)

// fakeS3 is an S3 server in the test's process (gofakes3; no S3 server runs
// on the test machines), with one bucket, and its backend to search.
func fakeS3(t *testing.T) (*s3.Store, *s3mem.Backend) {
	t.Helper()
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	if err := backend.CreateBucket("attachments"); err != nil {
		t.Fatal(err)
	}
	st, err := s3.Open(s3.Config{Endpoint: strings.TrimPrefix(srv.URL, "http://"), Bucket: "attachments",
		AccessKey: "test", SecretKey: "test-secret", Region: "us-east-1", Insecure: true, Prefix: "sendlater/"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	return st, backend
}

func TestContract(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) core.BlobStore {
		st, _ := fakeS3(t)
		return st
	})
}

// A bucket that does not exist is said plainly.
func TestCheckNamesAMissingBucket(t *testing.T) {
	st, _ := fakeS3(t)
	other, err := s3.Open(s3.Config{Endpoint: "127.0.0.1:1", Bucket: "x", AccessKey: "a", SecretKey: "b", Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Check(context.Background()); core.ErrorCode(err) != core.EUnavailable {
		t.Fatalf("an unreachable endpoint: %v", err)
	}
	_ = st
}

// No plaintext of a sealed file reaches the bucket.
func TestTheBucketHoldsNoPlaintext(t *testing.T) {
	st, backend := fakeS3(t)
	plain := bytes.Repeat([]byte("PLAINTEXT-MARKER the will is in the desk "), 5000)
	sealed, err := core.SealAttachment(bytes.Repeat([]byte{9}, 32), "f1", bytes.NewReader(plain))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.PutBlob(context.Background(), "m1/f1", sealed); err != nil {
		t.Fatal(err)
	}
	obj, err := backend.GetObject("attachments", "sendlater/m1/f1", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Contents.Close()
	var buf bytes.Buffer
	buf.ReadFrom(obj.Contents)
	if buf.Len() == 0 || bytes.Contains(buf.Bytes(), []byte("PLAINTEXT-MARKER")) {
		t.Fatalf("the bucket holds %d bytes, plaintext in them: %v", buf.Len(), bytes.Contains(buf.Bytes(), []byte("PLAINTEXT-MARKER")))
	}
}

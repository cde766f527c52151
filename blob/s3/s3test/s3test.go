// Package s3test serves tests an S3 server in their own process
// (gofakes3: no S3 server runs on the test machines) with one bucket, and
// a blob/s3 store over it: the BlobStore of tests until the store's own
// blobs are wired.
package s3test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/sendlater/sendlater/blob/s3"
)

// Bucket is the one bucket of New's server.
const Bucket = "attachments"

// New starts a server for the test's life and returns a store over its
// bucket (objects under "sendlater/") and the server's backend, to search.
func New(tb testing.TB) (*s3.Store, *s3mem.Backend) {
	tb.Helper()
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	tb.Cleanup(srv.Close)
	if err := backend.CreateBucket(Bucket); err != nil {
		tb.Fatal(err)
	}
	st, err := s3.Open(s3.Config{Endpoint: strings.TrimPrefix(srv.URL, "http://"), Bucket: Bucket,
		AccessKey: "test", SecretKey: "test-secret", Region: "us-east-1", Insecure: true, Prefix: "sendlater/"})
	if err != nil {
		tb.Fatal(err)
	}
	if err := st.Check(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return st, backend
}

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

// The one bucket of the server, New's prefix, and the credentials (the
// server checks none).
const (
	Bucket    = "attachments"
	Prefix    = "sendlater/"
	AccessKey = "test"
	SecretKey = "test-secret"
)

// Start starts a server for the test's life and returns its endpoint
// (host:port, plain http) and backend, to search.
func Start(tb testing.TB) (endpoint string, backend *s3mem.Backend) {
	tb.Helper()
	backend = s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	tb.Cleanup(srv.Close)
	if err := backend.CreateBucket(Bucket); err != nil {
		tb.Fatal(err)
	}
	return strings.TrimPrefix(srv.URL, "http://"), backend
}

// New starts a server (Start) and returns a store over its bucket (objects
// under Prefix) and the server's backend.
func New(tb testing.TB) (*s3.Store, *s3mem.Backend) {
	tb.Helper()
	endpoint, backend := Start(tb)
	st, err := s3.Open(s3.Config{Endpoint: endpoint, Bucket: Bucket,
		AccessKey: AccessKey, SecretKey: SecretKey, Region: "us-east-1", Insecure: true, Prefix: Prefix})
	if err != nil {
		tb.Fatal(err)
	}
	if err := st.Check(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return st, backend
}

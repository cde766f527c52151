package main_test

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"

	"github.com/sendlater/sendlater/blob/s3"
	"github.com/sendlater/sendlater/blob/s3/s3test"
)

// `sendlater attachments gc` through a running server whose files are in
// S3: a blob left by a crash (no file lists it) is removed, the report
// says so, and the run is in the audit log.
func TestAttachmentsGCRemovesOrphans(t *testing.T) {
	dir := t.TempDir()
	openStore(t, dir, filepath.Join(dir, "data", "sendlater.db")).Close()
	endpoint, backend := s3test.Start(t)
	env := []string{"SENDLATER_ATTACHMENTS_STORAGE=s3", "SENDLATER_ATTACHMENTS_S3_ENDPOINT=" + endpoint,
		"SENDLATER_ATTACHMENTS_S3_BUCKET=" + s3test.Bucket, "SENDLATER_ATTACHMENTS_S3_PREFIX=" + s3test.Prefix,
		"SENDLATER_ATTACHMENTS_S3_ACCESS_KEY=" + s3test.AccessKey, "SENDLATER_ATTACHMENTS_S3_SECRET_KEY=" + s3test.SecretKey,
		"SENDLATER_ATTACHMENTS_S3_INSECURE=true", "SENDLATER_ATTACHMENTS_S3_REGION=us-east-1"}
	st, err := s3.Open(s3.Config{Endpoint: endpoint, Bucket: s3test.Bucket, Prefix: s3test.Prefix, AccessKey: s3test.AccessKey,
		SecretKey: s3test.SecretKey, Region: "us-east-1", Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.PutBlob(context.Background(), "att/GONE/00000.crash", bytes.NewReader([]byte("sealed"))); err != nil {
		t.Fatal(err)
	}
	startServer(t, dir, env...)
	r := mustRunEnv(t, dir, env, "attachments", "gc")
	if !strings.Contains(r.stdout, "1 orphaned blobs removed (6 bytes)") {
		t.Fatalf("attachments gc:\n%s%s", r.stdout, r.stderr)
	}
	list, err := backend.ListBucket(s3test.Bucket, nil, gofakes3.ListBucketPage{})
	if err != nil || len(list.Contents) != 0 {
		t.Fatalf("the bucket after gc: %d objects, %v", len(list.Contents), err)
	}
	r = mustRunEnv(t, dir, env, "audit", "list")
	if !regexp.MustCompile(`attachments\.gc`).MatchString(r.stdout) {
		t.Fatalf("the audit log:\n%s", r.stdout)
	}
}

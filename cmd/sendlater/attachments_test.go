package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/sendlater/sendlater/blob/s3"
	"github.com/sendlater/sendlater/blob/s3/s3test"
	"github.com/sendlater/sendlater/core"
)

// `sendlater attachments gc` through a running server whose files are in
// S3: a store that lists no file while the bucket holds a part removes
// nothing without --force (the part may be another store's); with it,
// the blob left by a crash is removed, the report says so, and the run is
// in the audit log.
func TestAttachmentsGCRemovesOrphans(t *testing.T) {
	dir := t.TempDir()
	openStore(t, dir, filepath.Join(dir, "data", "sendlater.db")).Close()
	endpoint, backend := s3test.Start(t)
	env := s3Env(endpoint)
	st, err := s3.Open(s3.Config{Endpoint: endpoint, Bucket: s3test.Bucket, Prefix: s3test.Prefix, AccessKey: s3test.AccessKey,
		SecretKey: s3test.SecretKey, Region: "us-east-1", Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.PutBlob(context.Background(), "att/GONE/00000.crash", bytes.NewReader([]byte("sealed"))); err != nil {
		t.Fatal(err)
	}
	startServer(t, dir, env...)
	r := run(t, dir, env, "attachments", "gc")
	if r.code == 0 || !strings.Contains(r.stderr, "Nothing was removed") || objects(t, backend) != 1 {
		t.Fatalf("attachments gc on a store with no file: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = mustRunEnv(t, dir, env, "attachments", "gc", "--force")
	if !strings.Contains(r.stdout, "1 orphaned blobs removed (6 bytes)") {
		t.Fatalf("attachments gc:\n%s%s", r.stdout, r.stderr)
	}
	if n := objects(t, backend); n != 0 {
		t.Fatalf("the bucket after gc: %d objects", n)
	}
	r = mustRunEnv(t, dir, env, "audit", "list")
	if !regexp.MustCompile(`attachments\.gc`).MatchString(r.stdout) {
		t.Fatalf("the audit log:\n%s", r.stdout)
	}
}

func objects(t *testing.T, backend *s3mem.Backend) int {
	t.Helper()
	list, err := backend.ListBucket(s3test.Bucket, nil, gofakes3.ListBucketPage{})
	if err != nil {
		t.Fatal(err)
	}
	return len(list.Contents)
}

// s3Env is the config of files kept in the S3 server at endpoint.
func s3Env(endpoint string) []string {
	return []string{"SENDLATER_ATTACHMENTS_STORAGE=s3", "SENDLATER_ATTACHMENTS_S3_ENDPOINT=" + endpoint,
		"SENDLATER_ATTACHMENTS_S3_BUCKET=" + s3test.Bucket, "SENDLATER_ATTACHMENTS_S3_PREFIX=" + s3test.Prefix,
		"SENDLATER_ATTACHMENTS_S3_ACCESS_KEY=" + s3test.AccessKey, "SENDLATER_ATTACHMENTS_S3_SECRET_KEY=" + s3test.SecretKey,
		"SENDLATER_ATTACHMENTS_S3_INSECURE=true", "SENDLATER_ATTACHMENTS_S3_REGION=us-east-1"}
}

// sendlater messages attach|files|detach as the author, through the
// running server: a file of three parts goes up and is listed with its
// sniffed type, sealed in the bucket (no plaintext), then detached with
// its bytes; each step is in the audit log.
func TestMessagesAttachFilesDetach(t *testing.T) {
	dir := t.TempDir()
	db := openStore(t, dir, filepath.Join(dir, "data", "sendlater.db"))
	u, ms := seedInto(t, db)
	if _, err := db.UpdateUser(context.Background(), u.ID, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = core.PriceMap{}.PriceFor(core.PlanPro), "active"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	endpoint, backend := s3test.Start(t)
	env := s3Env(endpoint)
	startServer(t, dir, env...)
	data := []byte("%PDF-1.4\n" + strings.Repeat("PLAINTEXT-MARKER of the will ", 90000)) // 2.6 MB: three parts
	if err := os.WriteFile(filepath.Join(dir, "will.pdf"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	r := mustRunEnv(t, dir, env, "messages", "attach", ms[0].ID, "will.pdf", "--json")
	var f struct{ ID, Name, Type, State string }
	if err := json.Unmarshal([]byte(r.stdout), &f); err != nil || f.State != "complete" || f.Type != "application/pdf" || f.Name != "will.pdf" {
		t.Fatalf("messages attach: %+v %v\n%s%s", f, err, r.stdout, r.stderr)
	}
	if n := objects(t, backend); n != 3 {
		t.Fatalf("the bucket holds %d objects, want 3 parts", n)
	}
	list, _ := backend.ListBucket(s3test.Bucket, nil, gofakes3.ListBucketPage{})
	for _, o := range list.Contents {
		obj, err := backend.GetObject(s3test.Bucket, o.Key, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(obj.Contents)
		obj.Contents.Close()
		if bytes.Contains(b, []byte("PLAINTEXT-MARKER")) {
			t.Fatalf("%s holds plaintext", o.Key)
		}
	}
	r = mustRunEnv(t, dir, env, "messages", "files", ms[0].ID)
	if !strings.Contains(r.stdout, f.ID) || !strings.Contains(r.stdout, "application/pdf") || !strings.Contains(r.stdout, "complete") ||
		!strings.Contains(r.stdout, "DOWNLOADS") {
		t.Fatalf("messages files:\n%s", r.stdout)
	}
	r = mustRunEnv(t, dir, env, "messages", "detach", ms[0].ID, f.ID)
	if n := objects(t, backend); n != 0 {
		t.Fatalf("after detach the bucket holds %d objects", n)
	}
	r = mustRunEnv(t, dir, env, "audit", "list")
	if !strings.Contains(r.stdout, "messages.attach") || !strings.Contains(r.stdout, "messages.detach") ||
		!strings.Contains(r.stdout, "listed the files (1)") {
		t.Fatalf("the audit log:\n%s", r.stdout)
	}
}

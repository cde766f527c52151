package core_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/sendlater/sendlater/blob/s3/s3test"
	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

const testPart = 2 * core.AttachmentChunkSize // 128 KiB parts: three make a file

func attachEnv(t *testing.T, fn func(t *testing.T, e *testenv.Env, bucket *s3mem.Backend)) {
	for _, backend := range []string{testenv.Bolt, testenv.Postgres} {
		t.Run(backend, func(t *testing.T) {
			blobs, bucket := s3test.New(t)
			fn(t, testenv.New(t, testenv.Config{Backend: backend, Blobs: blobs, AttachmentPartSize: testPart}), bucket)
		})
	}
}

// dropAfter reads n bytes of r, then fails as a dropped connection does.
type dropAfter struct {
	r io.Reader
	n int
}

func (d *dropAfter) Read(p []byte) (int, error) {
	if d.n == 0 {
		return 0, errors.New("connection reset by peer")
	}
	p = p[:min(len(p), d.n)]
	k, err := d.r.Read(p)
	d.n -= k
	return k, err
}

func mustMessage(t *testing.T, e *testenv.Env, owner string) *core.Message {
	t.Helper()
	m, err := e.Messages.Create(e.As(owner), core.MessageInput{Title: "For Ann", Name: "Ann", Recipient: "ann@example.com",
		Body: "The files are attached.", Interval: core.Interval1M})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A file uploaded in parts, its connection dropped in the middle of a part,
// resumes from the offset the server gives and reads back equal, whole and
// by any range; the bucket holds none of its plaintext; the record has its
// sniffed type.
func TestAttachmentUploadResumesAfterADrop(t *testing.T) {
	attachEnv(t, func(t *testing.T, e *testenv.Env, bucket *s3mem.Backend) {
		u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
		m := mustMessage(t, e, u.ID)
		ctx := e.As(u.ID)
		data := []byte("%PDF-1.7\n" + strings.Repeat("PLAINTEXT-MARKER the deeds are in the blue box. ", 6000))
		data = data[:2*testPart+1000]
		a, err := e.Attachments.Create(ctx, m.ID, "../../Testament.pdf", int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if a.Name != "Testament.pdf" || a.PartSize != testPart || a.Offset() != 0 {
			t.Fatalf("created %+v", a)
		}
		if _, err := e.Attachments.Upload(ctx, m.ID, a.ID, 0, bytes.NewReader(data[:testPart])); err != nil {
			t.Fatal(err)
		}
		// The second part drops half-way: nothing of it counts.
		_, err = e.Attachments.Upload(ctx, m.ID, a.ID, testPart, &dropAfter{r: bytes.NewReader(data[testPart:]), n: testPart / 2})
		if err == nil {
			t.Fatal("a dropped part was accepted")
		}
		got, err := e.Attachments.Get(ctx, m.ID, a.ID)
		if err != nil || got.Offset() != testPart || got.State != core.AttachmentUploading {
			t.Fatalf("after the drop: %+v %v", got, err)
		}
		// Sending from the wrong offset says where the upload is.
		_, err = e.Attachments.Upload(ctx, m.ID, a.ID, 0, bytes.NewReader(data[:testPart]))
		if ae, _ := core.AsError(err); core.ErrorCode(err) != core.EConflict || ae.Fields["offset"] == "" {
			t.Fatalf("the wrong offset: %v", err)
		}
		for off := got.Offset(); off < int64(len(data)); off += testPart {
			if got, err = e.Attachments.Upload(ctx, m.ID, a.ID, off, bytes.NewReader(data[off:min(off+testPart, int64(len(data)))])); err != nil {
				t.Fatalf("part at %d: %v", off, err)
			}
		}
		if got.State != core.AttachmentComplete || got.Type != "application/pdf" || got.Executable {
			t.Fatalf("complete: %+v", got)
		}
		_, err = e.Attachments.Upload(ctx, m.ID, a.ID, int64(len(data)), bytes.NewReader(nil))
		if core.ErrorCode(err) != core.EConflict {
			t.Fatalf("a part after the end: %v", err)
		}
		_, f, err := e.Attachments.Open(ctx, m.ID, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		all, err := io.ReadAll(f)
		if err != nil || !bytes.Equal(all, data) {
			t.Fatalf("read back %d bytes of %d, equal %v: %v", len(all), len(data), bytes.Equal(all, data), err)
		}
		for _, r := range [][2]int64{{0, 1}, {testPart - 3, 10}, {testPart*2 - 1, 1001}, {5, testPart * 2}} {
			if _, err := f.Seek(r[0], io.SeekStart); err != nil {
				t.Fatal(err)
			}
			part := make([]byte, r[1])
			if _, err := io.ReadFull(f, part); err != nil || !bytes.Equal(part, data[r[0]:r[0]+r[1]]) {
				t.Fatalf("range %v: %v", r, err)
			}
		}
		// The bucket: three parts, none with plaintext (the failed
		// attempt's blob was removed).
		list, err := bucket.ListBucket(s3test.Bucket, nil, gofakes3.ListBucketPage{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Contents) != 3 {
			t.Fatalf("the bucket holds %d objects, want 3", len(list.Contents))
		}
		for _, o := range list.Contents {
			obj, err := bucket.GetObject(s3test.Bucket, o.Key, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(obj.Contents)
			obj.Contents.Close()
			if bytes.Contains(b, []byte("PLAINTEXT-MARKER")) || bytes.Contains(b, []byte("%PDF")) {
				t.Fatalf("object %s holds plaintext", o.Key)
			}
		}
	})
}

// The plan decides: Starter has no files (the upgrade hint's code), Pro's
// 25 MB a message and 250 MB an account; a part longer than its place or a
// body cut short is refused with the field; another author's message and
// file answer as missing ones.
func TestAttachmentRules(t *testing.T) {
	attachEnv(t, func(t *testing.T, e *testenv.Env, _ *s3mem.Backend) {
		free := e.MustUser(t, "free@example.com", "", core.PlanStarter)
		pro := e.MustUser(t, "pro@example.com", "", core.PlanPro)
		other := e.MustUser(t, "other@example.com", "", core.PlanPro)
		fm := mustMessage(t, e, free.ID)
		if _, err := e.Attachments.Create(e.As(free.ID), fm.ID, "a.txt", 10); core.ErrorCode(err) != core.EFeatureNotIncluded {
			t.Fatalf("a Starter upload: %v", err)
		}
		m := mustMessage(t, e, pro.ID)
		ctx := e.As(pro.ID)
		if _, err := e.Attachments.Create(ctx, m.ID, "big.bin", 25_000_001); core.ErrorCode(err) != core.EPlanLimit {
			t.Fatalf("over 25 MB: %v", err)
		}
		if _, err := e.Attachments.Create(ctx, m.ID, "  ", 1); core.ErrorCode(err) != core.EValidation {
			t.Fatalf("no name: %v", err)
		}
		if _, err := e.Attachments.Create(e.As(other.ID), m.ID, "a.txt", 1); core.ErrorCode(err) != core.EMessageNotFound {
			t.Fatalf("another's message: %v", err)
		}
		a, err := e.Attachments.Create(ctx, m.ID, "setup.txt", 100)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Attachments.Get(e.As(other.ID), m.ID, a.ID); core.ErrorCode(err) != core.EAttachmentNotFound {
			t.Fatalf("another's file: %v", err)
		}
		if _, err := e.Attachments.Upload(e.As(other.ID), m.ID, a.ID, 0, bytes.NewReader(make([]byte, 100))); core.ErrorCode(err) != core.EAttachmentNotFound {
			t.Fatalf("an upload to another's file: %v", err)
		}
		if _, err := e.Attachments.Upload(ctx, m.ID, a.ID, 0, bytes.NewReader(make([]byte, 101))); core.ErrorCode(err) != core.ETooLarge {
			t.Fatalf("a part too long: %v", err)
		}
		if _, err := e.Attachments.Upload(ctx, m.ID, a.ID, 0, bytes.NewReader(make([]byte, 99))); core.ErrorCode(err) != core.EInvalid {
			t.Fatalf("a part cut short: %v", err)
		}
		// A program, whatever its name, is marked and typed as bytes.
		elf := append([]byte("\x7fELF"), make([]byte, 96)...)
		got, err := e.Attachments.Upload(ctx, m.ID, a.ID, 0, bytes.NewReader(elf))
		if err != nil || !got.Executable || got.Type != "application/octet-stream" || got.State != core.AttachmentComplete {
			t.Fatalf("a program: %+v %v", got, err)
		}
		// Ten files at most.
		for i := 1; i < core.MaxAttachments; i++ {
			if _, err := e.Attachments.Create(ctx, m.ID, "f.txt", 0); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.Attachments.Create(ctx, m.ID, "f.txt", 0); core.ErrorCode(err) != core.EPlanLimit {
			t.Fatalf("an eleventh file: %v", err)
		}
		list, err := e.Attachments.List(ctx, m.ID)
		if err != nil || len(list) != core.MaxAttachments {
			t.Fatalf("List: %d %v", len(list), err)
		}
	})
}

// A crash between storing a part and recording it, or a file deleted
// without its bytes, leaves orphans; Collect removes them and stale
// uploads, and keeps every live part, also of an upload under way.
func TestAttachmentGCRemovesOrphansOnly(t *testing.T) {
	attachEnv(t, func(t *testing.T, e *testenv.Env, _ *s3mem.Backend) {
		u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
		m := mustMessage(t, e, u.ID)
		ctx := e.As(u.ID)
		data := make([]byte, testPart+10)
		rand.Read(data)
		done, err := e.Attachments.Create(ctx, m.ID, "done.bin", int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for off := int64(0); off < int64(len(data)); off += testPart {
			if _, err := e.Attachments.Upload(ctx, m.ID, done.ID, off, bytes.NewReader(data[off:min(off+testPart, int64(len(data)))])); err != nil {
				t.Fatal(err)
			}
		}
		going, err := e.Attachments.Create(ctx, m.ID, "going.bin", int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Attachments.Upload(ctx, m.ID, going.ID, 0, bytes.NewReader(data[:testPart])); err != nil {
			t.Fatal(err)
		}
		// A part being stored now (its record not yet updated) is kept.
		put := func(key string) {
			if _, err := e.Blobs.PutBlob(e.Ctx, key, bytes.NewReader([]byte("sealed bytes"))); err != nil {
				t.Fatal(err)
			}
		}
		put(going.PartKey(1, "inflight"))
		// Orphans: a record deleted by a crash before its blobs went, a
		// failed attempt at a recorded part.
		put(core.AttachmentBlobPrefix + "GONE/00000.x")
		put(done.PartKey(0, "failedattempt"))
		e.Clock.Add(time.Hour)
		rep, err := e.Attachments.Collect(e.Ctx, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Orphans != 2 || rep.Kept != 4 || rep.StaleUploads != 0 {
			t.Fatalf("gc: %+v, want 2 orphans removed and 4 parts kept", rep)
		}
		_, f, err := e.Attachments.Open(ctx, m.ID, done.ID)
		if err != nil {
			t.Fatal(err)
		}
		all, err := io.ReadAll(f)
		f.Close()
		if err != nil || !bytes.Equal(all, data) {
			t.Fatalf("the live file after gc: %v", err)
		}
		// A week later the upload under way is stale: it goes, its parts too.
		e.Clock.Add(core.DefaultStaleUpload)
		rep, err = e.Attachments.Collect(e.Ctx, 0, false)
		if err != nil || rep.StaleUploads != 1 || rep.Orphans != 2 || rep.Kept != 2 {
			t.Fatalf("gc a week later: %+v %v", rep, err)
		}
		if _, err := e.Attachments.Get(ctx, m.ID, going.ID); core.ErrorCode(err) != core.EAttachmentNotFound {
			t.Fatalf("the stale upload: %v", err)
		}
		// Deleting a file removes its bytes.
		if err := e.Attachments.Delete(ctx, m.ID, done.ID); err != nil {
			t.Fatal(err)
		}
		n := 0
		e.Blobs.ListBlobs(e.Ctx, core.AttachmentBlobPrefix, func(string, int64) error { n++; return nil })
		if n != 0 {
			t.Fatalf("%d blobs left after the delete", n)
		}
	})
}

// Deleting a message removes its files' bytes, and deleting an account
// (here by the operator) every file's of it; another author's stay.
func TestAttachmentBytesGoWithMessageAndAccount(t *testing.T) {
	attachEnv(t, func(t *testing.T, e *testenv.Env, _ *s3mem.Backend) {
		ann := e.MustUser(t, "ann@example.com", "", core.PlanPro)
		bob := e.MustUser(t, "bob@example.com", "", core.PlanPro)
		upload := func(owner string, m *core.Message) *core.Attachment {
			ctx := e.As(owner)
			a, err := e.Attachments.Create(ctx, m.ID, "f.bin", testPart+1)
			if err != nil {
				t.Fatal(err)
			}
			data := make([]byte, testPart+1)
			for off := int64(0); off < int64(len(data)); off += testPart {
				if _, err := e.Attachments.Upload(ctx, m.ID, a.ID, off, bytes.NewReader(data[off:min(off+testPart, int64(len(data)))])); err != nil {
					t.Fatal(err)
				}
			}
			return a
		}
		blobsOf := func(a *core.Attachment) int {
			n := 0
			e.Blobs.ListBlobs(e.Ctx, core.AttachmentBlobPrefix+a.ID+"/", func(string, int64) error { n++; return nil })
			return n
		}
		m1, m2, mb := mustMessage(t, e, ann.ID), mustMessage(t, e, ann.ID), mustMessage(t, e, bob.ID)
		f1, f2, fb := upload(ann.ID, m1), upload(ann.ID, m2), upload(bob.ID, mb)
		if err := e.Messages.Delete(e.As(ann.ID), m1.ID); err != nil {
			t.Fatal(err)
		}
		if blobsOf(f1) != 0 || blobsOf(f2) != 2 {
			t.Fatalf("after the message's delete: %d and %d blobs, want 0 and 2", blobsOf(f1), blobsOf(f2))
		}
		if err := e.Admin.DeleteUser(core.WithOperator(e.Ctx, "alice"), ann.Email); err != nil {
			t.Fatal(err)
		}
		if blobsOf(f2) != 0 || blobsOf(fb) != 2 {
			t.Fatalf("after the account's delete: %d and %d blobs, want 0 and bob's 2", blobsOf(f2), blobsOf(fb))
		}
	})
}

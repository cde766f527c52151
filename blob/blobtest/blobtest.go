// Package blobtest is the contract every core.BlobStore passes unchanged:
// inside the store on bbolt and PostgreSQL, and in S3-compatible storage.
package blobtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"testing"
	"testing/iotest"

	"github.com/sendlater/sendlater/core"
)

// Run runs the contract on a new, empty store from open.
func Run(t *testing.T, open func(t *testing.T) core.BlobStore) {
	ctx := context.Background()
	t.Run("PutOpenRanges", func(t *testing.T) {
		s := open(t)
		for _, size := range []int{0, 1, 1000, 5<<20 + 3} { // the last spans two upload parts
			data := make([]byte, size)
			rand.Read(data)
			key := "m1/f" + string(rune('a'+size%26))
			n, err := s.PutBlob(ctx, key, iotest.HalfReader(bytes.NewReader(data)))
			if err != nil || n != int64(size) {
				t.Fatalf("put %d bytes: %d %v", size, n, err)
			}
			r, err := s.OpenBlob(ctx, key)
			if err != nil || r.Size() != int64(size) {
				t.Fatalf("open %d bytes: %v %v", size, r, err)
			}
			all, err := io.ReadAll(io.NewSectionReader(r, 0, r.Size()))
			if err != nil || !bytes.Equal(all, data) {
				t.Fatalf("read %d bytes back: %d %v", size, len(all), err)
			}
			if size > 10 {
				p := make([]byte, 7)
				if n, err := r.ReadAt(p, int64(size/2)); n != 7 || (err != nil && err != io.EOF) || !bytes.Equal(p, data[size/2:size/2+7]) {
					t.Fatalf("ReadAt the middle: %d %v", n, err)
				}
				if n, err := r.ReadAt(p, int64(size-3)); n != 3 || err != io.EOF || !bytes.Equal(p[:3], data[size-3:]) {
					t.Fatalf("ReadAt the end: %d %v", n, err)
				}
			}
			r.Close()
		}
	})
	t.Run("WrittenOnce", func(t *testing.T) {
		s := open(t)
		if _, err := s.PutBlob(ctx, "k", bytes.NewReader([]byte("first"))); err != nil {
			t.Fatal(err)
		}
		if _, err := s.PutBlob(ctx, "k", bytes.NewReader([]byte("second"))); core.ErrorCode(err) != core.EConflict {
			t.Fatalf("a second put: %v, want %s", err, core.EConflict)
		}
		r, err := s.OpenBlob(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		p := make([]byte, 5)
		if _, err := r.ReadAt(p, 0); (err != nil && err != io.EOF) || string(p) != "first" {
			t.Fatalf("after a refused second put: %q %v", p, err)
		}
	})
	t.Run("KeysRefused", func(t *testing.T) {
		s := open(t)
		long := string(bytes.Repeat([]byte("k"), core.MaxBlobKey+1))
		for _, key := range []string{"", long, "a\x00b", "bad\xff"} {
			if _, err := s.PutBlob(ctx, key, bytes.NewReader([]byte("x"))); core.ErrorCode(err) != core.EInvalid {
				t.Fatalf("put under %.20q: %v, want %s", key, err, core.EInvalid)
			}
		}
		// S3 counts its prefix in the limit: a store may keep a little less.
		if _, err := s.PutBlob(ctx, string(bytes.Repeat([]byte("k"), core.MaxBlobKey/2)), bytes.NewReader([]byte("x"))); err != nil {
			t.Fatalf("put under a key of %d bytes: %v", core.MaxBlobKey/2, err)
		}
	})
	t.Run("DeleteAndMissing", func(t *testing.T) {
		s := open(t)
		if _, err := s.OpenBlob(ctx, "none"); core.ErrorCode(err) != core.ENotFound {
			t.Fatalf("open a missing key: %v", err)
		}
		if err := s.DeleteBlob(ctx, "none"); err != nil {
			t.Fatalf("delete a missing key: %v", err)
		}
		if _, err := s.PutBlob(ctx, "gone", bytes.NewReader([]byte("x"))); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteBlob(ctx, "gone"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.OpenBlob(ctx, "gone"); core.ErrorCode(err) != core.ENotFound {
			t.Fatalf("open after delete: %v", err)
		}
	})
	t.Run("ListByPrefix", func(t *testing.T) {
		s := open(t)
		for _, k := range []string{"a/2", "a/1", "b/1", "a/3"} {
			if _, err := s.PutBlob(ctx, k, bytes.NewReader([]byte(k+k))); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		if err := s.ListBlobs(ctx, "a/", func(k string, size int64) error {
			if size != int64(2*len(k)) {
				t.Errorf("%s: size %d", k, size)
			}
			got = append(got, k)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0] != "a/1" || got[1] != "a/2" || got[2] != "a/3" {
			t.Fatalf("listed %q", got)
		}
	})
	t.Run("SealedBytesOnly", func(t *testing.T) {
		// What a caller stores is what SealAttachment made: the store never
		// holds the plaintext (the searching test is the caller's, over the
		// storage itself); here the round trip of a sealed file.
		s := open(t)
		key := bytes.Repeat([]byte{3}, 32)
		plain := bytes.Repeat([]byte("the will is in the desk "), 10000)
		sealed, err := core.SealAttachment(key, "f1", bytes.NewReader(plain))
		if err != nil {
			t.Fatal(err)
		}
		n, err := s.PutBlob(ctx, "f1", sealed)
		if err != nil || n != core.SealedAttachmentSize(int64(len(plain))) {
			t.Fatalf("put sealed: %d %v", n, err)
		}
		r, err := s.OpenBlob(ctx, "f1")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		open, err := core.OpenAttachmentRange(key, "f1", r, r.Size(), 100, 50)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(open)
		if err != nil || !bytes.Equal(got, plain[100:150]) {
			t.Fatalf("a range of the sealed file: %q %v", got, err)
		}
	})
}

package blobtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// CrashBlob is the content of the blob of key, made from the key alone:
// its size (up to 3 MiB, so most puts span several write batches) and a
// reader of its bytes. A crash test's parent knows what to expect.
func CrashBlob(key string) (int64, io.Reader) {
	sum := sha256.Sum256([]byte(key))
	size := int64(binary.BigEndian.Uint32(sum[:4]) % (3 << 20))
	return size, io.LimitReader(rand.NewChaCha8(sum), size)
}

// CrashPut is the line prefix WriteUntilKilled acknowledges a put with.
const CrashPut = "put "

// WriteUntilKilled is a crash test's helper process: it puts CrashBlobs
// into s from 4 writers until it is killed, printing a key only once its
// put has returned. It never returns.
func WriteUntilKilled(s core.BlobStore) {
	ctx := context.Background()
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	var seq atomic.Int64
	for w := range 4 {
		go func() {
			for {
				key := fmt.Sprintf("%s/w%d/%d", run, w, seq.Add(1))
				want, r := CrashBlob(key)
				n, err := s.PutBlob(ctx, key, r)
				if err != nil || n != want {
					fmt.Fprintln(os.Stderr, "helper:", key, n, err)
					os.Exit(2)
				}
				fmt.Fprintf(os.Stdout, "%s%s\n", CrashPut, key)
			}
		}()
	}
	select {}
}

// CheckAfterCrash reads every blob s lists back whole against CrashBlob
// (acknowledged or not: a kill may come between a put's last commit and
// its line) and checks that every acknowledged key is listed. It returns
// the keys listed and how many sealed chunks they span.
func CheckAfterCrash(t testing.TB, s core.BlobStore, acknowledged []string) (map[string]bool, int) {
	t.Helper()
	listed := map[string]bool{}
	chunks := 0
	err := s.ListBlobs(context.Background(), "", func(key string, size int64) error {
		listed[key] = true
		want, wr := CrashBlob(key)
		if size != want {
			t.Fatalf("%s listed with %d bytes, want %d", key, size, want)
		}
		r, err := s.OpenBlob(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		got, err := io.ReadAll(io.NewSectionReader(r, 0, r.Size()))
		wantBytes, _ := io.ReadAll(wr)
		if err != nil || !bytes.Equal(got, wantBytes) {
			t.Fatalf("%s reads back other bytes: %v", key, err)
		}
		chunks += int((size + core.AttachmentChunkSize + 15) / (core.AttachmentChunkSize + 16))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range acknowledged {
		if !listed[key] {
			t.Fatalf("acknowledged blob %s is gone", key)
		}
	}
	return listed, chunks
}

// PutsOfOneKeyAtOnce puts 2 MiB under one key from 4 writers at once: one
// wins, the others are refused with EConflict, and the winner's bytes are
// not mixed with another's. It returns how many sealed chunks the winner
// spans, for the store's own check that the losers left none. A store that
// cannot hold the rule atomically (S3 without conditional writes) does not
// run it.
func PutsOfOneKeyAtOnce(t testing.TB, s core.BlobStore) (chunks int) {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, refused := 0, 0
	for i := range 4 {
		wg.Go(func() {
			_, err := s.PutBlob(ctx, "same", bytes.NewReader(bytes.Repeat([]byte{byte(i)}, 2<<20)))
			mu.Lock()
			defer mu.Unlock()
			switch core.ErrorCode(err) {
			case "":
				won++
			case core.EConflict:
				refused++
			default:
				t.Errorf("put %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if won != 1 || refused != 3 {
		t.Fatalf("%d won, %d refused", won, refused)
	}
	r, err := s.OpenBlob(ctx, "same")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	all, err := io.ReadAll(io.NewSectionReader(r, 0, r.Size()))
	if err != nil || len(all) != 2<<20 || !bytes.Equal(all, bytes.Repeat(all[:1], len(all))) {
		t.Fatalf("the winner's bytes are mixed with another's: %d %v", len(all), err)
	}
	return (2<<20 + core.AttachmentChunkSize + 15) / (core.AttachmentChunkSize + 16)
}

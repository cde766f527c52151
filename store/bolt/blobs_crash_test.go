package bolt_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/bolt"
)

// crashBlobsEnv names the store the blob-writing helper process writes to.
const crashBlobsEnv = "SENDLATER_TEST_CRASH_BLOBS"

// crashBlob is the content of the blob of key, made from the key alone:
// its size (up to 3 MiB, so most puts span several write batches) and a
// reader of its bytes. The parent knows what to expect.
func crashBlob(key string) (int64, io.Reader) {
	sum := sha256.Sum256([]byte(key))
	size := int64(binary.BigEndian.Uint32(sum[:4]) % (3 << 20))
	return size, io.LimitReader(rand.NewChaCha8(sum), size)
}

// TestHelperProcessBlobWriter is not a test: TestBlobCrashRecovery runs the
// test binary again with only this function, and kills it while it puts
// blobs from 4 writers at once. A key is printed only once its put has
// returned.
func TestHelperProcessBlobWriter(t *testing.T) {
	path := os.Getenv(crashBlobsEnv)
	if path == "" {
		t.Skip("the helper process of TestBlobCrashRecovery")
	}
	db, err := bolt.Open(path, bolt.Options{Key: testKey, Timeout: 5 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(2)
	}
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	var seq atomic.Int64
	for w := range 4 {
		go func() {
			for {
				key := fmt.Sprintf("%s/w%d/%d", run, w, seq.Add(1))
				want, r := crashBlob(key)
				n, err := db.Blobs().PutBlob(ctx, key, r)
				if err != nil || n != want {
					fmt.Fprintln(os.Stderr, "helper:", key, n, err)
					os.Exit(2)
				}
				fmt.Fprintf(os.Stdout, "put %s\n", key)
			}
		}()
	}
	select {}
}

func TestBlobCrashRecovery(t *testing.T) {
	rounds := 12
	if testing.Short() {
		rounds = 4
	}
	path := filepath.Join(t.TempDir(), "sendlater.db")
	// The store exists before the first kill (a kill during its creation
	// is TestCrashRecovery's), so that it always opens read-only.
	first, err := bolt.Open(path, bolt.Options{Key: testKey})
	must(t, err)
	must(t, first.Close())
	var acknowledged []string
	cut := 0
	for round := range rounds {
		keys, stderr := runAndKillBlobs(t, path, time.Duration(100+rand.IntN(400))*time.Millisecond)
		acknowledged = append(acknowledged, keys...)
		// Read-only first (no sweep): the puts the kill cut short.
		ro, err := bolt.Open(path, bolt.Options{Key: testKey, ReadOnly: true})
		if err != nil {
			t.Fatalf("round %d: Open read-only after SIGKILL: %v\nhelper stderr: %s", round, err, stderr)
		}
		_, pending, err := ro.BlobLeftovers()
		must(t, err)
		cut += pending
		must(t, ro.Close())
		db, err := bolt.Open(path, bolt.Options{Key: testKey})
		if err != nil {
			t.Fatalf("round %d: Open after SIGKILL: %v\nhelper stderr: %s", round, err, stderr)
		}
		must(t, db.Check())
		blobs := db.Blobs()
		listed := map[string]bool{}
		chunks := 0
		// Every blob listed, acknowledged or not (killed between its last
		// commit and its line), reads back whole.
		must(t, blobs.ListBlobs(ctx, "", func(key string, size int64) error {
			listed[key] = true
			want, wr := crashBlob(key)
			if size != want {
				t.Fatalf("round %d: %s listed with %d bytes, want %d", round, key, size, want)
			}
			r, err := blobs.OpenBlob(ctx, key)
			must(t, err)
			defer r.Close()
			got, err := io.ReadAll(io.NewSectionReader(r, 0, r.Size()))
			must(t, err)
			wantBytes, _ := io.ReadAll(wr)
			if !bytes.Equal(got, wantBytes) {
				t.Fatalf("round %d: %s reads back other bytes", round, key)
			}
			chunks += int((size + core.AttachmentChunkSize + 15) / (core.AttachmentChunkSize + 16))
			return nil
		}))
		for _, key := range acknowledged {
			if !listed[key] {
				t.Fatalf("round %d: acknowledged blob %s is gone", round, key)
			}
		}
		// The puts the kill cut short left nothing once reopened.
		stored, pending, err := db.BlobLeftovers()
		must(t, err)
		if stored != chunks || pending != 0 {
			t.Fatalf("round %d: %d chunks stored for %d in the listed blobs, %d puts pending", round, stored, chunks, pending)
		}
		must(t, db.Close())
		t.Logf("round %d: %d blobs listed, %d acknowledged, %d puts cut short in all", round, len(listed), len(acknowledged), cut)
	}
	if len(acknowledged) == 0 || cut == 0 {
		t.Fatalf("%d blobs acknowledged, %d puts cut short: the test tested nothing", len(acknowledged), cut)
	}
}

// runAndKillBlobs runs the blob writer on path, sends it SIGKILL after d
// and returns the keys it acknowledged (whole lines only) and its stderr.
func runAndKillBlobs(t *testing.T, path string, d time.Duration) ([]string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcessBlobWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashBlobsEnv+"="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	var keys []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadString('\n')
			if err != nil { // a line cut by the kill was never acknowledged
				io.Copy(io.Discard, r)
				return
			}
			if key, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "put "); ok {
				keys = append(keys, key)
			}
		}
	}()
	time.Sleep(d)
	must(t, cmd.Process.Kill()) // SIGKILL: no deferred close, no flush
	<-done
	cmd.Wait()
	if strings.Contains(stderr.String(), "helper:") {
		t.Fatalf("the helper failed: %s", stderr.String())
	}
	return keys, stderr.String()
}

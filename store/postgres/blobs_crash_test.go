package postgres_test

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
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
)

// crashBlobsEnv names the schema's URL the blob-writing helper process
// writes to.
const crashBlobsEnv = "SENDLATER_TEST_CRASH_BLOBS"

// crashBlob is the content of the blob of key, made from the key alone:
// its size (up to 3 MiB, so most puts span several round trips) and a
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
	url := os.Getenv(crashBlobsEnv)
	if url == "" {
		t.Skip("the helper process of TestBlobCrashRecovery")
	}
	db, err := postgres.Open(ctx, url, postgres.Options{Key: pgtest.Key})
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

// A SIGKILL of a process putting blobs loses no acknowledged blob, lists
// no partial one, and what it cut short is swept without touching the
// finished ones.
func TestBlobCrashRecovery(t *testing.T) {
	rounds := 8
	if testing.Short() {
		rounds = 3
	}
	url := pgtest.URL(t)
	var acknowledged []string
	cut := int64(0)
	for round := range rounds {
		keys, stderr := runAndKillBlobs(t, url, time.Duration(300+rand.IntN(500))*time.Millisecond)
		acknowledged = append(acknowledged, keys...)
		db, err := postgres.Open(ctx, url, postgres.Options{Key: pgtest.Key})
		if err != nil {
			t.Fatalf("round %d: Open after SIGKILL: %v\nhelper stderr: %s", round, err, stderr)
		}
		blobs := db.Blobs()
		listed := map[string]bool{}
		chunks := 0
		check := func(key string, size int64) error {
			listed[key] = true
			want, wr := crashBlob(key)
			if size != want {
				t.Fatalf("round %d: %s listed with %d bytes, want %d", round, key, size, want)
			}
			r, err := blobs.OpenBlob(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := io.ReadAll(io.NewSectionReader(r, 0, r.Size()))
			wantBytes, _ := io.ReadAll(wr)
			if err != nil || !bytes.Equal(got, wantBytes) {
				t.Fatalf("round %d: %s reads back other bytes: %v", round, key, err)
			}
			chunks += int((size + core.AttachmentChunkSize + 15) / (core.AttachmentChunkSize + 16))
			return nil
		}
		// Every blob listed, acknowledged or not (killed between its last
		// commit and its line), reads back whole, before and after the
		// sweep of what the kill cut short.
		if err := blobs.ListBlobs(ctx, "", check); err != nil {
			t.Fatal(err)
		}
		n, err := db.SweepBlobPuts(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		cut += n
		before := len(listed)
		listed, chunks = map[string]bool{}, 0
		if err := blobs.ListBlobs(ctx, "", check); err != nil {
			t.Fatal(err)
		}
		if len(listed) != before {
			t.Fatalf("round %d: %d blobs listed before the sweep, %d after", round, before, len(listed))
		}
		for _, key := range acknowledged {
			if !listed[key] {
				t.Fatalf("round %d: acknowledged blob %s is gone", round, key)
			}
		}
		if stored, pending := blobLeftovers(t, url); stored != chunks || pending != 0 {
			t.Fatalf("round %d: %d chunk rows for %d in the listed blobs, %d puts pending", round, stored, chunks, pending)
		}
		db.Close()
		t.Logf("round %d: %d blobs listed, %d acknowledged, %d puts cut short in all", round, len(listed), len(acknowledged), cut)
	}
	if len(acknowledged) == 0 || cut == 0 {
		t.Fatalf("%d blobs acknowledged, %d puts cut short: the test tested nothing", len(acknowledged), cut)
	}
}

// runAndKillBlobs runs the blob writer on url, sends it SIGKILL after d
// and returns the keys it acknowledged (whole lines only) and its stderr.
func runAndKillBlobs(t *testing.T, url string, d time.Duration) ([]string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcessBlobWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashBlobsEnv+"="+url+"&application_name="+crashBlobsApp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
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
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no deferred close, no flush
		t.Fatal(err)
	}
	<-done
	cmd.Wait()
	if strings.Contains(stderr.String(), "helper:") {
		t.Fatalf("the helper failed: %s", stderr.String())
	}
	// The server finishes a statement the killed process had sent (a put's
	// last one may so commit its file after the kill) before it sees the
	// connection closed: wait for its sessions to end, so that the checks
	// see the store as the kill leaves it for good.
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var n int
		if err := conn.QueryRow(ctx, "select count(*) from pg_stat_activity where application_name = $1", crashBlobsApp).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions of the killed process still open after a minute", n)
		}
	}
	return keys, stderr.String()
}

// crashBlobsApp names the helper process's sessions (application_name).
const crashBlobsApp = "sendlater_blob_crash"

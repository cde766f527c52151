package bolt_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sendlater/sendlater/blob/blobtest"
	"github.com/sendlater/sendlater/internal/crashtest"
	"github.com/sendlater/sendlater/store/bolt"
)

// crashBlobsEnv names the store the blob-writing helper process writes to.
const crashBlobsEnv = "SENDLATER_TEST_CRASH_BLOBS"

// TestHelperProcessBlobWriter is not a test: TestBlobCrashRecovery runs the
// test binary again with only this function, and kills it while it puts
// blobs from 4 writers at once (blobtest.WriteUntilKilled).
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
	blobtest.WriteUntilKilled(db.Blobs())
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
		keys, stderr := runAndKillBlobs(t, path, time.Duration(rand.IntN(400))*time.Millisecond)
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
		// Every blob listed reads back whole; every acknowledged one is.
		listed, chunks := blobtest.CheckAfterCrash(t, db.Blobs(), acknowledged)
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

// runAndKillBlobs runs the blob writer on path, sends it SIGKILL d after
// its first acknowledged put (its other writers are then mid-put) and returns
// the keys it acknowledged and its stderr.
func runAndKillBlobs(t *testing.T, path string, d time.Duration) ([]string, string) {
	return crashtest.RunAndKillAfterFirst(t, "TestHelperProcessBlobWriter", []string{crashBlobsEnv + "=" + path}, blobtest.CrashPut, d)
}

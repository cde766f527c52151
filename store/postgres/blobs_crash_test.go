package postgres_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/blob/blobtest"
	"github.com/sendlater/sendlater/internal/crashtest"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
)

// crashBlobsEnv names the schema's URL the blob-writing helper process
// writes to.
const crashBlobsEnv = "SENDLATER_TEST_CRASH_BLOBS"

// TestHelperProcessBlobWriter is not a test: TestBlobCrashRecovery runs the
// test binary again with only this function, and kills it while it puts
// blobs from 4 writers at once (blobtest.WriteUntilKilled).
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
	blobtest.WriteUntilKilled(db.Blobs())
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
		keys, stderr := runAndKillBlobs(t, url, time.Duration(rand.IntN(500))*time.Millisecond)
		acknowledged = append(acknowledged, keys...)
		db, err := postgres.Open(ctx, url, postgres.Options{Key: pgtest.Key})
		if err != nil {
			t.Fatalf("round %d: Open after SIGKILL: %v\nhelper stderr: %s", round, err, stderr)
		}
		// Every blob listed, acknowledged or not (killed between its last
		// commit and its line), reads back whole, before and after the
		// sweep of what the kill cut short.
		listed, _ := blobtest.CheckAfterCrash(t, db.Blobs(), acknowledged)
		n, err := db.SweepBlobPuts(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		cut += n
		before := len(listed)
		listed, chunks := blobtest.CheckAfterCrash(t, db.Blobs(), acknowledged)
		if len(listed) != before {
			t.Fatalf("round %d: %d blobs listed before the sweep, %d after", round, before, len(listed))
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

// runAndKillBlobs runs the blob writer on url, sends it SIGKILL d after
// its first acknowledged put (its other writers are then mid-put) and returns
// the keys it acknowledged and its stderr.
func runAndKillBlobs(t *testing.T, url string, d time.Duration) ([]string, string) {
	t.Helper()
	keys, stderr := crashtest.RunAndKillAfterFirst(t, "TestHelperProcessBlobWriter", []string{crashBlobsEnv + "=" + url + "&application_name=" + crashBlobsApp}, blobtest.CrashPut, d)
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
	return keys, stderr
}

// crashBlobsApp names the helper process's sessions (application_name).
const crashBlobsApp = "sendlater_blob_crash"

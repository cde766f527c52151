package bolt_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/crashtest"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/storetest"
)

// crashStoreEnv names the store the helper process writes to.
const crashStoreEnv = "SENDLATER_TEST_CRASH_STORE"

const crashAuthor = "crash@example.com"

// crashBody is the body of message id: the parent knows what to expect.
func crashBody(id string) string {
	return "Body of " + id + ". " + strings.Repeat("Written for the future, kept through any crash. ", 20)
}

// TestHelperProcessWriter is not a test: TestCrashRecovery runs the test
// binary again with only this function, and kills it while it writes.
// Concurrent writers create messages (committed together by Batch) while
// another pauses and resumes them; an id is printed only once its commit has
// returned.
func TestHelperProcessWriter(t *testing.T) {
	path := os.Getenv(crashStoreEnv)
	if path == "" {
		t.Skip("the helper process of TestCrashRecovery")
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(2)
	}
	db, err := bolt.Open(path, bolt.Options{Key: testKey, Timeout: 5 * time.Second})
	if err != nil {
		fail(err)
	}
	u, err := db.FindUserByEmail(ctx, crashAuthor)
	if core.ErrorCode(err) == core.EUserNotFound {
		u = &core.User{Email: crashAuthor}
		err = db.CreateUser(ctx, u)
	}
	if err != nil {
		fail(err)
	}
	var (
		mu      sync.Mutex
		created []string
	)
	clock := storetest.Stores{Clock: core.NewManualClock(time.Now())}
	for range 16 {
		go func() {
			for {
				m := storetest.NewMessage(clock, u.ID, core.Interval1M)
				m.Body = crashBody(m.ID)
				if err := db.CreateMessage(ctx, m, nil); err != nil {
					fail(err)
				}
				mu.Lock()
				fmt.Fprintf(os.Stdout, "created %s\n", m.ID)
				created = append(created, m.ID)
				mu.Unlock()
			}
		}()
	}
	for {
		mu.Lock()
		var id string
		if len(created) > 0 {
			id = created[rand.IntN(len(created))]
		}
		mu.Unlock()
		if id == "" {
			time.Sleep(time.Millisecond)
			continue
		}
		if _, err := db.UpdateMessage(ctx, id, func(m *core.Message) error {
			m.IsActive = !m.IsActive
			return nil
		}); err != nil {
			fail(err)
		}
	}
}

func TestCrashRecovery(t *testing.T) {
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	path := filepath.Join(t.TempDir(), "sendlater.db")
	var acknowledged []string
	for round := range rounds {
		ids, stderr := runAndKill(t, path, time.Duration(20+rand.IntN(281))*time.Millisecond)
		acknowledged = append(acknowledged, ids...)
		db, err := bolt.Open(path, bolt.Options{Key: testKey})
		if err != nil {
			t.Fatalf("round %d: Open after SIGKILL: %v\nhelper stderr: %s", round, err, stderr)
		}
		if err := db.Check(); err != nil {
			t.Fatalf("round %d: Check after SIGKILL: %v", round, err)
		}
		for _, id := range acknowledged {
			m, err := db.FindMessageByID(ctx, id)
			if err != nil {
				t.Fatalf("round %d: acknowledged message %s: %v", round, id, err)
			}
			if m.Body != crashBody(id) {
				t.Fatalf("round %d: message %s has another body", round, id)
			}
		}
		// Every index entry leads to a readable record.
		all, total, err := db.ListMessages(ctx, core.MessageFilter{})
		must(t, err)
		if _, err := db.DueMessages(ctx, time.Now().AddDate(2, 0, 0), 0); err != nil {
			t.Fatalf("round %d: due index: %v", round, err)
		}
		if _, err := db.DueReminders(ctx, time.Now().AddDate(2, 0, 0), 0); err != nil {
			t.Fatalf("round %d: reminder index: %v", round, err)
		}
		if total < len(acknowledged) || len(all) != total {
			t.Fatalf("round %d: %d messages listed of %d, %d acknowledged", round, len(all), total, len(acknowledged))
		}
		must(t, db.Close())
	}
	t.Logf("%d rounds, %d acknowledged messages, all intact", rounds, len(acknowledged))
	if len(acknowledged) == 0 {
		t.Fatal("the helper never acknowledged a message: the test tested nothing")
	}
}

// runAndKill runs the helper writer on path, sends it SIGKILL after d and
// returns the ids it acknowledged and its stderr.
func runAndKill(t *testing.T, path string, d time.Duration) ([]string, string) {
	return crashtest.RunAndKill(t, "TestHelperProcessWriter", []string{crashStoreEnv + "=" + path}, "created ", d)
}

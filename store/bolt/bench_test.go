package bolt_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/storetest"
)

// The 1M fixture: fixtureOwners authors with fixtureEach messages each, ~1 KB
// bodies, encrypted as in production. Building it takes minutes, so it is
// built once, on the first benchmark that needs it, into a file under
// os.TempDir() that later runs reuse. Plain `go test` runs no benchmark and
// never builds it.
const (
	fixtureOwners = 1000
	fixtureEach   = 1000
	fixtureTotal  = fixtureOwners * fixtureEach
	fixtureName   = "sendlater-bench-1M-v2.db" // bump when the format changes
)

// fixtureStart is the createdAt of the first fixture message; every sendDate
// is at least a month later.
var fixtureStart = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

var fixtureOnce struct {
	sync.Once
	path string
	err  error
}

// fixture returns the path of the 1M store, building it when absent.
func fixture(b *testing.B) string {
	fixtureOnce.Do(func() {
		path := filepath.Join(os.TempDir(), fixtureName)
		fixtureOnce.path = path
		if _, err := os.Stat(path); err == nil {
			// Built by an earlier binary: one read-write open brings its
			// schema up to date for the read-only benchmarks.
			db, err := bolt.Open(path, bolt.Options{Key: testKey})
			if err == nil {
				err = db.Close()
			}
			fixtureOnce.err = err
			return
		}
		start := time.Now()
		fixtureOnce.err = buildFixture(path + ".building")
		if fixtureOnce.err == nil {
			fixtureOnce.err = os.Rename(path+".building", path)
		}
		fmt.Fprintf(os.Stderr, "built %s (%d messages) in %v\n", path, fixtureTotal, time.Since(start).Round(time.Second))
	})
	if fixtureOnce.err != nil {
		b.Fatalf("building the fixture: %v", fixtureOnce.err)
	}
	return fixtureOnce.path
}

func buildFixture(path string) error {
	os.Remove(path)
	db, err := bolt.Open(path, bolt.Options{Key: testKey, NoSync: true})
	if err != nil {
		return err
	}
	defer db.Close()
	owners := make([]string, fixtureOwners)
	for i := range owners {
		u := &core.User{ID: fixtureOwnerID(i), Email: fmt.Sprintf("author%04d@example.com", i), CreatedAt: fixtureStart}
		if err := db.CreateUser(ctx, u); err != nil {
			return err
		}
		owners[i] = u.ID
	}
	filler := strings.Repeat("Dear you, this was written long ago so that it reaches you today. ", 16)[:1000]
	const perTx = 20000
	batch := make([]*core.Message, 0, perTx)
	for i := range fixtureTotal {
		// Owners interleave, as they would in a real store.
		now := fixtureStart.Add(time.Duration(i) * time.Second)
		m := core.NewMessage(owners[i%fixtureOwners], core.MessageInput{
			Title:     fmt.Sprintf("Letter %d", i),
			Name:      "Grace Hopper",
			Recipient: fmt.Sprintf("grace%d@example.com", i),
			Body:      fmt.Sprintf("%08d ", i) + filler,
			Interval:  []core.Interval{core.Interval1M, core.Interval6M, core.Interval12M}[i%3],
		}, now, time.UTC)
		batch = append(batch, m)
		if len(batch) == perTx {
			if err := db.PutMessages(batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := db.PutMessages(batch); err != nil {
		return err
	}
	return db.Check()
}

func fixtureOwnerID(i int) string { return fmt.Sprintf("owner%015d", i) }

// openFixture opens the 1M store read-only, so no benchmark changes it.
func openFixture(b *testing.B) *bolt.DB {
	db, err := bolt.Open(fixture(b), bolt.Options{Key: testKey, ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkCreateMessageParallel creates messages from many concurrent
// writers (as concurrent requests would), fsync on, the plan check run.
func BenchmarkCreateMessageParallel(b *testing.B) {
	db, err := bolt.Open(filepath.Join(b.TempDir(), "sendlater.db"), bolt.Options{Key: testKey})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := stores(db)
	s.Clock = core.NewManualClock(storetest.Epoch)
	const authors = 256
	owners := make([]string, authors)
	for i := range owners {
		owners[i] = storetest.MustCreateUser(b, s, fmt.Sprintf("author%d@example.com", i)).ID
	}
	body := strings.Repeat("A message for the future, about a kilobyte long. ", 20)
	check := func(u *core.User, hasMessages bool) error {
		if !core.MayAddMessage(core.PlanPro, true, hasMessages) {
			return core.Errorf(core.EPlanLimit, "limit")
		}
		return nil
	}
	var next sync.Mutex
	n := 0
	b.SetParallelism(32) // 64 writers on 2 cores
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			next.Lock()
			owner := owners[n%authors]
			n++
			next.Unlock()
			m := storetest.NewMessage(s, owner, core.Interval1M)
			m.Body = body
			if err := db.CreateMessage(ctx, m, check); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
}

// BenchmarkListOwner20Of1M lists one author's 20 newest messages, decrypted,
// with their total, out of 1,000,000 stored (1,000 per author).
func BenchmarkListOwner20Of1M(b *testing.B) {
	db := openFixture(b)
	i := 0
	for b.Loop() {
		ms, total, err := db.ListMessages(ctx, core.MessageFilter{Owner: fixtureOwnerID(i % fixtureOwners), Limit: 20})
		if err != nil || len(ms) != 20 || total != fixtureEach || ms[0].Body == "" {
			b.Fatalf("ListMessages = %d messages, total %d, %v", len(ms), total, err)
		}
		i += 7
	}
}

// BenchmarkDueNoneOf1M asks for due messages when none of 1,000,000 is due.
func BenchmarkDueNoneOf1M(b *testing.B) {
	db := openFixture(b)
	for b.Loop() {
		ms, err := db.DueMessages(ctx, fixtureStart, 100)
		if err != nil || len(ms) != 0 {
			b.Fatalf("DueMessages = %d, %v", len(ms), err)
		}
	}
}

// BenchmarkOpen1M opens (read-write, as `sendlater serve` does) and closes
// the store holding 1,000,000 messages.
func BenchmarkOpen1M(b *testing.B) {
	path := fixture(b)
	for b.Loop() {
		db, err := bolt.Open(path, bolt.Options{Key: testKey})
		if err != nil {
			b.Fatal(err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

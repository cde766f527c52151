package bolt_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/storetest"
)

// The 1M fixture (storetest.FixtureMessage), encrypted as in production.
// Building it takes minutes, so it is built once, on the first benchmark
// that needs it, into a file under os.TempDir() that later runs reuse.
// Plain `go test` runs no benchmark and never builds it.
const fixtureName = "sendlater-bench-1M-v2.db" // bump when the format changes

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
		fmt.Fprintf(os.Stderr, "built %s (%d messages) in %v\n", path, storetest.FixtureTotal, time.Since(start).Round(time.Second))
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
	for i := range storetest.FixtureOwners {
		if err := db.CreateUser(ctx, storetest.FixtureOwner(i)); err != nil {
			return err
		}
	}
	const perTx = 20000
	batch := make([]*core.Message, 0, perTx)
	for i := range storetest.FixtureTotal {
		batch = append(batch, storetest.FixtureMessage(i))
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

// openFixture opens the 1M store read-only, so no benchmark changes it.
func openFixture(b *testing.B) *bolt.DB {
	db, err := bolt.Open(fixture(b), bolt.Options{Key: testKey, ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkCreateMessageParallel creates messages from 64 concurrent
// writers, fsync on (storetest.BenchCreateParallel).
func BenchmarkCreateMessageParallel(b *testing.B) {
	db, err := bolt.Open(filepath.Join(b.TempDir(), "sendlater.db"), bolt.Options{Key: testKey})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	storetest.BenchCreateParallel(b, stores(db))
}

// BenchmarkListOwner20Of1M lists one author's 20 newest messages, decrypted,
// with their total, out of 1,000,000 stored (1,000 per author).
func BenchmarkListOwner20Of1M(b *testing.B) { storetest.BenchListOwner20(b, stores(openFixture(b))) }

// BenchmarkDueNoneOf1M asks for due messages when none of 1,000,000 is due.
func BenchmarkDueNoneOf1M(b *testing.B) { storetest.BenchDueNone(b, stores(openFixture(b))) }

// BenchmarkPassNoneDueOf1M is a whole delivery pass over the 1M fixture
// when nothing is due: what the server's scheduler pays every tick.
func BenchmarkPassNoneDueOf1M(b *testing.B) { storetest.BenchPassNoneDue(b, openFixture(b)) }

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

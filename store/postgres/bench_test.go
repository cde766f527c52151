package postgres_test

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/seal"
	"github.com/sendlater/sendlater/store/storetest"
	"github.com/sendlater/sendlater/store/transfer"
)

// The 1M fixture (storetest.FixtureMessage), sealed as in production. It is
// built once, on the first benchmark that needs it, into the schema
// fixtureSchema of the test database, which later runs reuse (drop the
// schema to rebuild). Plain `go test` runs no benchmark and never builds it.
const fixtureSchema = "sendlater_bench_1m_v1" // bump when the schema changes

var fixtureOnce struct {
	sync.Once
	url string
	err error
}

// fixture returns the URL of the 1M store, building it when absent.
func fixture(b *testing.B) string {
	url := pgtest.KeptURL(b, fixtureSchema)
	fixtureOnce.Do(func() {
		fixtureOnce.url = url
		db, err := postgres.Open(ctx, url, postgres.Options{Key: pgtest.Key})
		if err != nil {
			fixtureOnce.err = err
			return
		}
		defer db.Close()
		c, err := db.Counts(ctx)
		if err != nil || c.Messages == storetest.FixtureTotal {
			fixtureOnce.err = err
			return
		}
		if c.Messages != 0 {
			fixtureOnce.err = fmt.Errorf("schema %s holds %d messages, not %d: drop it to rebuild", fixtureSchema, c.Messages, storetest.FixtureTotal)
			return
		}
		start := time.Now()
		fixtureOnce.err = buildFixture(db)
		fmt.Fprintf(os.Stderr, "built schema %s (%d messages) in %v\n", fixtureSchema, storetest.FixtureTotal, time.Since(start).Round(time.Second))
	})
	if fixtureOnce.err != nil {
		b.Fatalf("the fixture: %v", fixtureOnce.err)
	}
	return fixtureOnce.url
}

// buildFixture writes the fixture through the store's import, 1,000
// records a transaction.
func buildFixture(db *postgres.DB) error {
	sealer, err := seal.New(pgtest.Key)
	if err != nil {
		return err
	}
	var batch transfer.Records
	for i := range storetest.FixtureOwners {
		su := sealer.SealUser(storetest.FixtureOwner(i))
		batch.Users = append(batch.Users, &su)
	}
	if _, err := db.Import(ctx, &batch); err != nil {
		return err
	}
	batch.Users = nil
	reminders := core.DefaultReminders
	for i := range storetest.FixtureTotal {
		m := storetest.FixtureMessage(i)
		m.Reschedule(reminders)
		sm := sealer.SealMessage(m)
		batch.Messages = append(batch.Messages, &sm)
		if len(batch.Messages) == 1000 || i == storetest.FixtureTotal-1 {
			if _, err := db.Import(ctx, &batch); err != nil {
				return err
			}
			batch.Messages = batch.Messages[:0]
		}
	}
	return nil
}

func openFixture(b *testing.B) *postgres.DB {
	db, err := postgres.Open(ctx, fixture(b), postgres.Options{Key: pgtest.Key})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkCreateMessageParallel creates messages from 64 concurrent
// writers, synchronous commit on, one transaction each
// (storetest.BenchCreateParallel).
func BenchmarkCreateMessageParallel(b *testing.B) {
	db, err := postgres.Open(ctx, pgtest.URL(b), postgres.Options{Key: pgtest.Key})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	storetest.BenchCreateParallel(b, stores(db))
}

// BenchmarkListOwner20Of1M lists one author's 20 newest messages, opened,
// with their total, out of 1,000,000 stored (1,000 per author).
func BenchmarkListOwner20Of1M(b *testing.B) { storetest.BenchListOwner20(b, stores(openFixture(b))) }

// BenchmarkDueNoneOf1M asks for due messages when none of 1,000,000 is due.
func BenchmarkDueNoneOf1M(b *testing.B) { storetest.BenchDueNone(b, stores(openFixture(b))) }

// BenchmarkPassNoneDueOf1M is a whole delivery pass over the 1M fixture
// when nothing is due: what every replica's scheduler pays every tick.
func BenchmarkPassNoneDueOf1M(b *testing.B) { storetest.BenchPassNoneDue(b, openFixture(b)) }

package postgres_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer/mailertest"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/seal"
	"github.com/sendlater/sendlater/store/storetest"
	"github.com/sendlater/sendlater/store/transfer"
)

// The 1M fixture, as store/bolt's: fixtureOwners authors with fixtureEach
// messages each, ~1 KB bodies, sealed as in production. It is built once,
// on the first benchmark that needs it, into the schema fixtureSchema of the
// test database, which later runs reuse (drop the schema to rebuild). Plain
// `go test` runs no benchmark and never builds it.
const (
	fixtureOwners = 1000
	fixtureEach   = 1000
	fixtureTotal  = fixtureOwners * fixtureEach
	fixtureSchema = "sendlater_bench_1m_v1" // bump when the schema changes
)

var fixtureStart = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

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
		if err != nil || c.Messages == fixtureTotal {
			fixtureOnce.err = err
			return
		}
		if c.Messages != 0 {
			fixtureOnce.err = fmt.Errorf("schema %s holds %d messages, not %d: drop it to rebuild", fixtureSchema, c.Messages, fixtureTotal)
			return
		}
		start := time.Now()
		fixtureOnce.err = buildFixture(db)
		fmt.Fprintf(os.Stderr, "built schema %s (%d messages) in %v\n", fixtureSchema, fixtureTotal, time.Since(start).Round(time.Second))
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
	var users transfer.Records
	for i := range fixtureOwners {
		users.Users = append(users.Users, &core.User{ID: fixtureOwnerID(i), Email: fmt.Sprintf("author%04d@example.com", i), CreatedAt: fixtureStart})
	}
	if _, err := db.Import(ctx, &users); err != nil {
		return err
	}
	reminders := []time.Duration{core.ReminderLeadTime}
	filler := strings.Repeat("Dear you, this was written long ago so that it reaches you today. ", 16)[:1000]
	var batch transfer.Records
	for i := range fixtureTotal {
		now := fixtureStart.Add(time.Duration(i) * time.Second)
		m := core.NewMessage(fixtureOwnerID(i%fixtureOwners), core.MessageInput{
			Title:     fmt.Sprintf("Letter %d", i),
			Name:      "Grace Hopper",
			Recipient: fmt.Sprintf("grace%d@example.com", i),
			Body:      fmt.Sprintf("%08d ", i) + filler,
			Interval:  []core.Interval{core.Interval1M, core.Interval6M, core.Interval12M}[i%3],
		}, now, time.UTC)
		m.Reschedule(reminders)
		sm := sealer.SealMessage(m)
		batch.Messages = append(batch.Messages, &sm)
		if len(batch.Messages) == 1000 || i == fixtureTotal-1 {
			if _, err := db.Import(ctx, &batch); err != nil {
				return err
			}
			batch.Messages = batch.Messages[:0]
		}
	}
	return nil
}

func fixtureOwnerID(i int) string { return fmt.Sprintf("owner%015d", i) }

func openFixture(b *testing.B) *postgres.DB {
	db, err := postgres.Open(ctx, fixture(b), postgres.Options{Key: pgtest.Key})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkCreateMessageParallel creates messages from 64 concurrent
// writers (as concurrent requests would), synchronous commit on, the plan
// check run: one transaction each.
func BenchmarkCreateMessageParallel(b *testing.B) {
	db, err := postgres.Open(ctx, pgtest.URL(b), postgres.Options{Key: pgtest.Key})
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

// BenchmarkListOwner20Of1M lists one author's 20 newest messages, opened,
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

// BenchmarkPassNoneDueOf1M is a whole delivery pass (deliveries, reminders,
// webhooks) over the 1M fixture when nothing is due: what every replica's
// scheduler pays every tick.
func BenchmarkPassNoneDueOf1M(b *testing.B) {
	db := openFixture(b)
	sent := &mailertest.Mailer{}
	d := &core.Delivery{
		Messages: db, Users: db, Store: db, Mailer: sent, Clock: core.NewManualClock(fixtureStart),
		Reminders: []time.Duration{core.ReminderLeadTime}, Logger: slog.New(slog.DiscardHandler),
	}
	for b.Loop() {
		res, err := d.Run(context.Background())
		if err != nil || res.Delivered+res.Reminded+res.Skipped != 0 {
			b.Fatalf("pass: %v %v", res, err)
		}
	}
	if len(sent.Sent()) != 0 {
		b.Fatal("the pass sent email")
	}
}

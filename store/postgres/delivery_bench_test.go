package postgres_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer/smtptest"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/seal"
	"github.com/sendlater/sendlater/store/storetest"
	"github.com/sendlater/sendlater/store/transfer"
)

// BenchmarkDeliveryThroughput is the bbolt store's benchmark of the same
// name (core) on PostgreSQL: one pass of one process delivers 2,000 due
// messages into the test SMTP server (8 pooled connections, 16 workers).
func BenchmarkDeliveryThroughput(b *testing.B) {
	const n = 2000
	db, err := postgres.Open(ctx, pgtest.URL(b), postgres.Options{Key: pgtest.Key, PoolSize: 16}) // store.pool_size's default
	must(b, err)
	b.Cleanup(func() { db.Close() })
	srv := smtptest.Start(b)
	d := newDelivery(b, db, srv, core.SystemClock{})
	d.Concurrency = 16
	owner := &core.User{ID: core.NewID(), Email: "ada@example.com", CreatedAt: time.Now()}
	must(b, db.CreateUser(ctx, owner))
	sealer, err := seal.New(pgtest.Key)
	must(b, err)
	var total time.Duration
	round := 0
	for b.Loop() {
		b.StopTimer()
		srv.Reset()
		round++
		recs := &transfer.Records{}
		for _, m := range storetest.DueMessages(owner.ID, n, func(i int) string { return fmt.Sprintf("r%d-%d@example.com", round, i) }, time.Now()) {
			sm := sealer.SealMessage(m)
			recs.Messages = append(recs.Messages, &sm)
		}
		_, err := db.Import(ctx, recs)
		must(b, err)
		b.StartTimer()
		start := time.Now()
		res, err := d.Run(ctx)
		total += time.Since(start)
		if err != nil || res.Delivered != n {
			b.Fatalf("pass: %v %v", res, err)
		}
	}
	b.ReportMetric(float64(n*b.N)/total.Seconds(), "msgs/s")
}

package inbound_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/inbound"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/internal/wiring"
	"github.com/sendlater/sendlater/mailer/smtptest"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
)

// benchEnv: the Go runtime as `serve` sets it, the backend (bbolt with
// fsync, or a schema of the PostgreSQL test server), the real SMTP
// transport (8 pooled connections) into the test SMTP server, which keeps
// none of the emails (a real one's heap is not the server's), the wall
// clock, the listener on loopback without a rate limit; paths are the
// return paths of n messages due in a year (the bounces' targets, which
// no pass takes).
func benchEnv(b *testing.B, backend string, n int) (e *testenv.Env, u *core.User, addr string, paths []string, pgURL string) {
	b.Helper()
	b.Cleanup(wiring.ServerRuntime()) // GOGC and the memory limit as `serve` sets them
	c := testenv.Config{Sync: true, PoolSize: 8, BounceDomain: bounceDomain, Backend: backend,
		SMTP: smtptest.Start(b, smtptest.Discarding())}
	if backend == testenv.Postgres {
		c.PostgresURL = pgtest.URL(b)
	}
	e = testenv.New(b, c)
	e.Delivery.Clock, e.Graph.BounceReports.Clock = core.SystemClock{}, core.SystemClock{}
	e.Delivery.Concurrency = 16
	u = e.MustUser(b, "ada@example.com", "", core.PlanPro)
	addr = start(b, e, inbound.Config{RatePerMinute: 1 << 30})
	return e, u, addr, targets(b, e, u, n), c.PostgresURL
}

// targets seeds n messages of u due in a year and returns their return
// paths: the DSNs' targets, one each, which no delivery pass takes.
func targets(b testing.TB, e *testenv.Env, u *core.User, n int) []string {
	b.Helper()
	paths := make([]string, n)
	for i, m := range seed(b, e, u, n, time.Now().AddDate(1, 0, 0)) {
		paths[i] = e.Graph.Bounces.Address(core.BounceRef{MessageID: m.ID, Email: core.BounceDelivery, Address: m.Recipient})
	}
	return paths
}

// seed stores n messages of u due at sendAt.
func seed(b testing.TB, e *testenv.Env, u *core.User, n int, sendAt time.Time) []*core.Message {
	b.Helper()
	ms := make([]*core.Message, n)
	var wg sync.WaitGroup
	for w := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 32 {
				m := core.NewMessage(u.ID, core.MessageInput{Title: "t", Name: "Bob", Recipient: fmt.Sprintf("bob%d@example.org", i),
					Body: "A letter of a few lines, as most are.\nWith a second line."}, time.Now(), time.UTC)
				m.SendDate = sendAt
				if err := e.Store.CreateMessage(context.Background(), m, nil); err != nil {
					b.Error(err)
					return
				}
				ms[i] = m
			}
		}()
	}
	wg.Wait()
	return ms
}

// benchBackends runs fn on bbolt, then on PostgreSQL (skipped with one
// line when no server answers, as pgtest does).
func benchBackends(b *testing.B, fn func(b *testing.B, backend string)) {
	for _, backend := range []string{testenv.Bolt, testenv.Postgres} {
		b.Run(backend, func(b *testing.B) { fn(b, backend) })
	}
}

// BenchmarkBounceProcessing sends hard-bounce DSNs (Postfix's shape) over
// SMTP to the listener from 8 connections of a sender process as fast as
// they go: each is read, parsed, and marks its recipient (fsync; the mark
// is a small record beside the message). Reports DSNs per second and the
// CPU per DSN of the server's process, of the sender's and, on
// PostgreSQL, of the database server's processes.
func BenchmarkBounceProcessing(b *testing.B) {
	benchBackends(b, func(b *testing.B, backend string) {
		const n = 4000
		_, _, addr, paths, _ := benchEnv(b, backend, n)
		var total, serverCPU, senderCPU, dbCPU time.Duration
		for b.Loop() {
			b.StopTimer()
			s := startSender(b, addr, paths, 8, 0)
			runtime.GC()
			b.StartTimer()
			cpu, db, start := cpuNow(), dbCPUNow(), time.Now()
			s.begin(b)
			got, scpu := s.finish(b, true)
			total += time.Since(start)
			serverCPU += cpuNow() - cpu
			dbCPU += dbCPUNow() - db
			senderCPU += scpu
			if got != n {
				b.Fatalf("%d of %d", got, n)
			}
		}
		dsns := float64(n * b.N)
		b.ReportMetric(dsns/total.Seconds(), "dsns/s")
		b.ReportMetric(float64(serverCPU.Microseconds())/dsns, "server-cpu-us/dsn")
		b.ReportMetric(float64(senderCPU.Microseconds())/dsns, "sender-cpu-us/dsn")
		if backend == testenv.Postgres {
			b.ReportMetric(float64(dbCPU.Microseconds())/dsns, "db-cpu-us/dsn")
		}
	})
}

// BenchmarkDeliveryBesideBounces is issue 31's side by side: deliveries
// slowed by at most 10% while DSNs arrive at 500 a second. Each iteration
// is a pair of delivery passes of 6,000 due messages, one alone and one
// while a sender process sends DSNs at 500 a second from 16 connections
// (to the return paths of other messages, each marked once), the order
// alternating from pair to pair (alone first, then beside first), with a
// garbage collection before each pass. Each pair's line gives both
// passes' msgs/s, the DSNs' rate and the ratio; the metrics are the
// median ratio, the totals' msgs/s, the DSNs/s, the server process's CPU
// per DSN (its CPU beside the DSNs less its CPU alone, over the DSNs) and
// the sender's. Run it with -benchtime 3x or more: 3 pairs.
func BenchmarkDeliveryBesideBounces(b *testing.B) { besideDSNs(b, false) }

// BenchmarkDeliveryBesideSink is BenchmarkDeliveryBesideBounces with the
// DSNs sent to a sink in the sender's process (read and dropped, never
// reaching the server): the cost of the harness alone to the deliveries,
// the sender and an SMTP server's reading included; "server-cpu-us/dsn"
// is then what the server's process spends beside a process sending DSNs
// elsewhere (noise, ideally 0).
func BenchmarkDeliveryBesideSink(b *testing.B) { besideDSNs(b, true) }

func besideDSNs(b *testing.B, toSink bool) {
	benchBackends(b, func(b *testing.B, backend string) {
		const n, rate = 6000, 500
		e, u, addr, pool, pgURL := benchEnv(b, backend, 4000)
		if toSink {
			addr = sinkAddr
		}
		var ratios []float64
		var alone, beside, extraCPU, senderCPU, extraDBCPU time.Duration
		var dsns int
		var slowest time.Duration // of the passes so far
		pair := 0
		for b.Loop() {
			b.StopTimer()
			var r [2]passResult // alone, beside
			for _, withDSNs := range []bool{pair%2 == 1, pair%2 == 0} {
				var paths []string
				if withDSNs {
					// Enough targets for 3 times the slowest pass so far
					// and 2 s more (a pass beside the DSNs has taken 3
					// times one alone, on a loaded machine).
					need := rate * int(3*max(slowest, time.Second).Seconds()+2)
					if len(pool) < need {
						pool = append(pool, targets(b, e, u, need-len(pool))...)
					}
					paths, pool = pool[:need], pool[need:]
				}
				p := deliveryPass(b, e, u, addr, n, paths, rate, pgURL)
				slowest = max(slowest, p.took)
				if withDSNs {
					r[1] = p
				} else {
					r[0] = p
				}
			}
			b.StartTimer()
			a, w := r[0], r[1]
			ratio := a.took.Seconds() / w.took.Seconds()
			ratios = append(ratios, ratio)
			alone += a.took
			beside += w.took
			extraCPU += w.cpu - a.cpu
			extraDBCPU += w.dbCPU - a.dbCPU
			senderCPU += w.senderCPU
			dsns += w.sent
			first := "alone"
			if pair%2 == 1 {
				first = "beside"
			}
			b.Logf("pair %d (%s first): alone %.0f msgs/s (cpu %v%s) | beside %.0f msgs/s (cpu %v%s), %d DSNs = %.0f/s (sender cpu %v) | beside/alone %.1f%%%s",
				pair+1, first, float64(n)/a.took.Seconds(), a.cpu.Round(time.Millisecond), dbNote(a.dbCPU),
				float64(n)/w.took.Seconds(), w.cpu.Round(time.Millisecond), dbNote(w.dbCPU), w.sent, float64(w.sent)/w.took.Seconds(),
				w.senderCPU.Round(time.Millisecond), 100*ratio, w.note)
			pair++
		}
		slices.Sort(ratios)
		median := ratios[len(ratios)/2]
		if len(ratios)%2 == 0 {
			median = (ratios[len(ratios)/2-1] + median) / 2
		}
		b.ReportMetric(100*median, "median-%-of-alone")
		b.ReportMetric(float64(n*b.N)/alone.Seconds(), "alone-msgs/s")
		b.ReportMetric(float64(n*b.N)/beside.Seconds(), "beside-msgs/s")
		b.ReportMetric(float64(dsns)/beside.Seconds(), "dsns/s")
		if dsns > 0 {
			b.ReportMetric(float64(extraCPU.Microseconds())/float64(dsns), "server-cpu-us/dsn")
			b.ReportMetric(float64(senderCPU.Microseconds())/float64(dsns), "sender-cpu-us/dsn")
			if backend == testenv.Postgres {
				b.ReportMetric(float64(extraDBCPU.Microseconds())/float64(dsns), "db-cpu-us/dsn")
			}
		}
	})
}

// dbNote is a pass's database CPU for its line: none on bbolt.
func dbNote(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return fmt.Sprintf(", db %v", d.Round(time.Millisecond))
}

type passResult struct {
	took, cpu, senderCPU time.Duration
	dbCPU                time.Duration // the local PostgreSQL server's processes' (0 on bbolt)
	sent                 int
	note                 string
}

// deliveryPass seeds n due messages and delivers them in one pass, while
// a sender sends a DSN to each of paths at rate a second (none: alone);
// pgURL (PostgreSQL; "" on bbolt): a checkpoint first, and the
// database's CPU measured too.
func deliveryPass(b *testing.B, e *testenv.Env, u *core.User, addr string, n int, paths []string, rate int, pgURL string) passResult {
	b.Helper()
	e.SMTP.Reset()
	seed(b, e, u, n, time.Now().Add(-time.Minute))
	var s *sender
	if len(paths) > 0 {
		s = startSender(b, addr, paths, 16, rate)
	}
	if pgURL != "" {
		// Every pass starts right after a checkpoint: one that started
		// inside a pass (the seeding writes ~1 GB of WAL every few pairs,
		// past max_wal_size) charged it the full-page writes of every page
		// it first touched, which the other pass of its pair did not pay.
		pgtest.Exec(b, pgURL, "checkpoint")
	}
	runtime.GC()
	cpu, db, start := cpuNow(), dbCPUNow(), time.Now()
	if s != nil {
		s.begin(b)
	}
	res, err := e.Delivery.Run(context.Background())
	var p passResult
	p.took, p.cpu = time.Since(start), cpuNow()-cpu
	if pgURL != "" {
		p.dbCPU = dbCPUNow() - db
	}
	if s != nil {
		p.sent, p.senderCPU = s.finish(b, false)
		if p.sent == len(paths) {
			p.note = " (the DSNs' targets ran out)"
		}
	}
	if err != nil || res.Delivered != n {
		b.Fatalf("pass: %v %v", res, err)
	}
	return p
}

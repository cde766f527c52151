package inbound_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/inbound"
	"github.com/sendlater/sendlater/internal/testenv"
)

// benchEnv: the backend (bbolt with fsync, or a schema of the PostgreSQL
// test server), the real SMTP transport (8 pooled connections) into the
// test SMTP server, the wall clock, the listener on loopback without a
// rate limit; paths are the return paths of n messages due in a year (the
// bounces' targets, which no pass takes).
func benchEnv(b *testing.B, backend string, n int) (*testenv.Env, *core.User, string, []string) {
	b.Helper()
	e := testenv.New(b, testenv.Config{Sync: true, PoolSize: 8, BounceDomain: bounceDomain, Backend: backend})
	e.Delivery.Clock, e.Graph.BounceReports.Clock = core.SystemClock{}, core.SystemClock{}
	e.Delivery.Concurrency = 16
	u := e.MustUser(b, "ada@example.com", "", core.PlanPro)
	addr := start(b, e, inbound.Config{RatePerMinute: 1 << 30})
	paths := make([]string, n)
	ms := seed(b, e, u, n, time.Now().AddDate(1, 0, 0))
	for i, m := range ms {
		paths[i] = e.Graph.Bounces.Address(core.BounceRef{MessageID: m.ID, Email: core.BounceDelivery, Address: m.Recipient})
	}
	return e, u, addr, paths
}

// seed stores n messages of u due at sendAt.
func seed(b *testing.B, e *testenv.Env, u *core.User, n int, sendAt time.Time) []*core.Message {
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

// sendBounces sends the DSN to each path over clients connections, each
// one SMTP session of many emails; every gap waits so that the whole runs
// at most at rate a second (0: as fast as it goes). It returns how many
// went through.
func sendBounces(b *testing.B, addr string, raw []byte, paths []string, clients, rate int, stop <-chan struct{}) int64 {
	var sent atomic.Int64
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl, err := smtp.Dial(addr)
			if err != nil {
				b.Error(err)
				return
			}
			defer cl.Close()
			var tick <-chan time.Time
			if rate > 0 {
				t := time.NewTicker(time.Second * time.Duration(clients) / time.Duration(rate))
				defer t.Stop()
				tick = t.C
			}
			for i := c; i < len(paths); i += clients {
				if tick != nil {
					select {
					case <-tick:
					case <-stop:
						return
					}
				}
				if err := cl.SendMail("", []string{paths[i]}, bytesReader(raw)); err != nil {
					b.Error(err)
					return
				}
				sent.Add(1)
			}
		}()
	}
	wg.Wait()
	return sent.Load()
}

// benchBackends runs fn on bbolt, then on PostgreSQL (skipped with one
// line when no server answers, as pgtest does).
func benchBackends(b *testing.B, fn func(b *testing.B, backend string)) {
	for _, backend := range []string{testenv.Bolt, testenv.Postgres} {
		b.Run(backend, func(b *testing.B) { fn(b, backend) })
	}
}

// BenchmarkBounceProcessing sends hard-bounce DSNs (Postfix's shape) over
// SMTP to the listener from 8 connections as fast as they go: each is read,
// parsed, and marks its recipient in a write of its own (fsync; the mark
// is a small record beside the message). Reports DSNs per second.
func BenchmarkBounceProcessing(b *testing.B) {
	benchBackends(b, func(b *testing.B, backend string) {
		const n = 2000
		_, _, addr, paths := benchEnv(b, backend, n)
		raw := fixture(b, "postfix-hard.eml")
		var total time.Duration
		for b.Loop() {
			start := time.Now()
			if got := sendBounces(b, addr, raw, paths, 8, 0, nil); got != n {
				b.Fatalf("%d of %d", got, n)
			}
			total += time.Since(start)
		}
		b.ReportMetric(float64(n*b.N)/total.Seconds(), "dsns/s")
	})
}

// BenchmarkDeliveryBesideBounces delivers 2,000 due messages in one pass,
// alone and while DSNs arrive at 500 a second: the side by side of issue
// 31's bound (deliveries slowed by at most 10%), on each backend.
func BenchmarkDeliveryBesideBounces(b *testing.B) {
	benchBackends(b, func(b *testing.B, backend string) {
		for _, withBounces := range []bool{false, true} {
			name := "alone"
			if withBounces {
				name = "with-500-dsns-per-second"
			}
			b.Run(name, func(b *testing.B) { deliverBesideBounces(b, backend, withBounces) })
		}
	})
}

func deliverBesideBounces(b *testing.B, backend string, withBounces bool) {
	const n = 2000
	e, u, addr, paths := benchEnv(b, backend, 4000)
	raw := fixture(b, "postfix-hard.eml")
	var total time.Duration
	var bounced int64
	var bounceTime time.Duration
	for b.Loop() {
		b.StopTimer()
		e.SMTP.Reset()
		seed(b, e, u, n, time.Now().Add(-time.Minute))
		stop := make(chan struct{})
		done := make(chan int64, 1)
		b.StartTimer()
		start := time.Now()
		if withBounces {
			go func() { done <- sendBounces(b, addr, raw, paths, 16, 500, stop) }()
		}
		res, err := e.Delivery.Run(context.Background())
		took := time.Since(start)
		total += took
		if err != nil || res.Delivered != n {
			b.Fatalf("pass: %v %v", res, err)
		}
		if withBounces {
			close(stop)
			bounced += <-done
			bounceTime += took
		}
	}
	b.ReportMetric(float64(n*b.N)/total.Seconds(), "msgs/s")
	if withBounces {
		b.ReportMetric(float64(bounced)/bounceTime.Seconds(), "dsns/s")
	}
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

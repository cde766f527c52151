package core_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/mailer/smtptest"
	"github.com/sendlater/sendlater/store/bolt"
)

// benchDelivery is the test environment with fsync on, one pro author, the
// real SMTP transport (8 pooled connections) and the test SMTP server on
// loopback, delivering on the wall clock.
func benchDelivery(b *testing.B) (*core.Delivery, *bolt.DB, *core.User, *smtptest.Server) {
	b.Helper()
	e := testenv.New(b, testenv.Config{Sync: true, PoolSize: 8})
	e.Delivery.Clock = core.SystemClock{}
	e.Delivery.Concurrency = 16
	return e.Delivery, e.DB, e.MustUser(b, "ada@example.com", "", core.PlanPro), e.SMTP
}

// seedAt stores n messages of u due at the times sendAt gives.
func seedAt(b *testing.B, db *bolt.DB, u *core.User, n int, sendAt func(i int) time.Time) {
	b.Helper()
	var wg sync.WaitGroup
	for w := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 32 {
				m := core.NewMessage(u.ID, core.MessageInput{Title: "t", Name: "Charles", Recipient: fmt.Sprintf("c%d@example.com", i),
					Body: "A letter of a few lines, as most are.\nWith a second line."}, time.Now(), time.UTC)
				m.SendDate = sendAt(i)
				if err := db.CreateMessage(context.Background(), m, nil); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkDeliveryThroughput delivers 2,000 due messages in one pass into the
// test SMTP server and reports messages per second.
func BenchmarkDeliveryThroughput(b *testing.B) {
	const n = 2000
	d, db, u, srv := benchDelivery(b)
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		srv.Reset()
		seedAt(b, db, u, n, func(int) time.Time { return time.Now().Add(-time.Minute) })
		b.StartTimer()
		start := time.Now()
		res, err := d.Run(context.Background())
		total += time.Since(start)
		if err != nil || res.Delivered != n {
			b.Fatalf("pass: %v %v", res, err)
		}
	}
	b.ReportMetric(float64(n*b.N)/total.Seconds(), "msgs/s")
}

// BenchmarkRecipientThroughput delivers 200 due messages of 10 recipients
// each (2,000 emails, one per recipient) in one pass into the test SMTP
// server and reports recipient emails per second.
func BenchmarkRecipientThroughput(b *testing.B) {
	const n, perMessage = 200, core.MaxRecipients
	d, db, u, srv := benchDelivery(b)
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		srv.Reset()
		var wg sync.WaitGroup
		for w := range 16 {
			wg.Go(func() {
				for i := w; i < n; i += 16 {
					in := core.MessageInput{Title: "t", Body: "A letter of a few lines, as most are.\nWith a second line."}
					for r := range perMessage {
						in.Recipients = append(in.Recipients, core.RecipientInput{Name: "Reader", Address: fmt.Sprintf("r%d.%d@example.com", r, i)})
					}
					m := core.NewMessage(u.ID, in, time.Now(), time.UTC)
					m.SendDate = time.Now().Add(-time.Minute)
					if err := db.CreateMessage(context.Background(), m, nil); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		b.StartTimer()
		start := time.Now()
		res, err := d.Run(context.Background())
		total += time.Since(start)
		if err != nil || res.Delivered != n*perMessage {
			b.Fatalf("pass: %v %v", res, err)
		}
	}
	b.ReportMetric(float64(n*perMessage*b.N)/total.Seconds(), "emails/s")
}

// BenchmarkSchedulerLateness runs the in-process scheduler (1 s tick) over
// messages due at spread times and reports the p99 of send time minus
// sendDate.
func BenchmarkSchedulerLateness(b *testing.B) {
	const n, spread, tick = 1000, 10 * time.Second, time.Second
	d, db, u, _ := benchDelivery(b)
	sends := &timedMailer{Mailer: d.Mailer, at: map[string]time.Time{}}
	d.Mailer = sends
	var lateness []time.Duration
	for b.Loop() {
		start := time.Now().Add(2 * time.Second)
		due := map[string]time.Time{}
		seedAt(b, db, u, n, func(i int) time.Time { return start.Add(spread * time.Duration(i) / n) })
		ms, _, err := db.ListMessages(context.Background(), core.MessageFilter{Owner: u.ID})
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range ms {
			if m.Status == core.StatusScheduled {
				due[m.ID] = m.SendDate
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		s := &core.Scheduler{Delivery: d, Interval: tick, Logger: slog.New(slog.DiscardHandler)}
		go s.Run(ctx)
		time.Sleep(time.Until(start.Add(spread + tick + 2*time.Second)))
		cancel()
		for id, sendDate := range due {
			m, err := db.FindMessageByID(context.Background(), id)
			if err != nil {
				b.Fatal(err)
			}
			at, ok := sends.sentAt(m.EmailMessageID)
			if !ok {
				b.Fatalf("message %s was not sent", id)
			}
			lateness = append(lateness, at.Sub(sendDate))
		}
	}
	slices.Sort(lateness)
	p := func(q float64) float64 { return lateness[int(q*float64(len(lateness)-1))].Seconds() * 1000 }
	b.ReportMetric(p(0.5), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
	b.ReportMetric(p(1), "max-ms")
}

// timedMailer remembers when each delivery email was accepted, by message.
type timedMailer struct {
	core.Mailer
	mu sync.Mutex
	at map[string]time.Time
}

func (t *timedMailer) Send(ctx context.Context, e *core.Email) error {
	err := t.Mailer.Send(ctx, e)
	if err == nil {
		t.mu.Lock()
		t.at[e.MessageID] = time.Now()
		t.mu.Unlock()
	}
	return err
}

func (t *timedMailer) sentAt(emailMessageID string) (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	at, ok := t.at[emailMessageID]
	return at, ok
}

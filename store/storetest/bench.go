package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/wiring"
	"github.com/sendlater/sendlater/mailer/mailertest"
)

// The benchmarks every backend runs the same way, so their figures compare
// (docs/benchmarks.md): a backend's Benchmark functions call these with its
// stores. The 1M fixture is FixtureOwners authors with FixtureEach messages
// each, made by FixtureMessage.

const (
	FixtureOwners = 1000
	FixtureEach   = 1000
	FixtureTotal  = FixtureOwners * FixtureEach
)

// FixtureStart is the createdAt of the first fixture message; every
// sendDate is at least a month later, so nothing is due at FixtureStart.
var FixtureStart = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// FixtureOwnerID is the id of the i-th fixture author.
func FixtureOwnerID(i int) string { return fmt.Sprintf("owner%015d", i) }

// FixtureOwner is the i-th fixture author.
func FixtureOwner(i int) *core.User {
	return &core.User{ID: FixtureOwnerID(i), Email: fmt.Sprintf("author%04d@example.com", i), CreatedAt: FixtureStart}
}

var filler = strings.Repeat("Dear you, this was written long ago so that it reaches you today. ", 16)[:1000]

// FixtureMessage is the i-th fixture message: ~1 KB body, owners
// interleaved as in a real store, one second apart.
func FixtureMessage(i int) *core.Message {
	return core.NewMessage(FixtureOwnerID(i%FixtureOwners), core.MessageInput{
		Title:     fmt.Sprintf("Letter %d", i),
		Name:      "Grace Hopper",
		Recipient: fmt.Sprintf("grace%d@example.com", i),
		Body:      fmt.Sprintf("%08d ", i) + filler,
		Interval:  []core.Interval{core.Interval1M, core.Interval6M, core.Interval12M}[i%3],
	}, FixtureStart.Add(time.Duration(i)*time.Second), time.UTC)
}

// BenchCreateParallel creates messages in an empty store from 64 concurrent
// writers (as concurrent requests would), the plan check run, ~1 KB bodies.
func BenchCreateParallel(b *testing.B, s Stores) {
	if s.Clock == nil {
		s.Clock = core.NewManualClock(Epoch)
	}
	const authors = 256
	owners := make([]string, authors)
	for i := range owners {
		owners[i] = MustCreateUser(b, s, fmt.Sprintf("author%d@example.com", i)).ID
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
			m := NewMessage(s, owner, core.Interval1M)
			m.Body = body
			if err := s.Messages.CreateMessage(ctx, m, check); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
}

// BenchListOwner20 lists one fixture author's 20 newest messages, opened,
// with their total.
func BenchListOwner20(b *testing.B, s Stores) {
	i := 0
	for b.Loop() {
		ms, total, err := s.Messages.ListMessages(ctx, core.MessageFilter{Owner: FixtureOwnerID(i % FixtureOwners), Limit: 20})
		if err != nil || len(ms) != 20 || total != FixtureEach || ms[0].Body == "" {
			b.Fatalf("ListMessages = %d messages, total %d, %v", len(ms), total, err)
		}
		i += 7
	}
}

// BenchDueNone asks the fixture for due messages when none is.
func BenchDueNone(b *testing.B, s Stores) {
	for b.Loop() {
		ms, err := s.Messages.DueMessages(ctx, FixtureStart, 100)
		if err != nil || len(ms) != 0 {
			b.Fatalf("DueMessages = %d, %v", len(ms), err)
		}
	}
}

// BenchPassNoneDue is a whole delivery pass (deliveries, reminders,
// webhooks) over the fixture st when nothing is due: what a scheduler pays
// every tick. The pass is the one internal/wiring builds, as the binary
// runs it.
func BenchPassNoneDue(b *testing.B, st core.Store) {
	sent := &mailertest.Mailer{}
	d := Graph(b, st, wiring.Options{Mailer: sent, Clock: core.NewManualClock(FixtureStart),
		Reminders: core.DefaultReminders, Webhooks: noWebhooks{}}).Delivery
	for b.Loop() {
		res, err := d.Run(ctx)
		if err != nil || res.Delivered+res.Reminded+res.Skipped != 0 {
			b.Fatalf("pass: %v %v", res, err)
		}
	}
	if len(sent.Sent()) != 0 {
		b.Fatal("the pass sent email")
	}
}

type noWebhooks struct{}

func (noWebhooks) Post(_ context.Context, url string, body []byte, headers map[string]string) error {
	panic("no webhook is due")
}

// DueMessages builds (without storing) n messages of owner due at now, to
// recipient(i), their reminders past: what a delivery benchmark makes due
// at once through a store's import.
func DueMessages(owner string, n int, recipient func(i int) string, now time.Time) []*core.Message {
	ms := make([]*core.Message, n)
	for i := range ms {
		m := core.NewMessage(owner, core.MessageInput{
			Title: fmt.Sprintf("Letter %d", i), Name: "Grace", Recipient: recipient(i),
			Body: "Delivered once, whatever happens.", Interval: core.Interval1M,
		}, now.AddDate(0, -1, 0), time.UTC)
		m.RemindersSent = len(core.DefaultReminders.Steps())
		m.Reschedule(core.DefaultReminders)
		ms[i] = m
	}
	return ms
}

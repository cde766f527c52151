package postgres_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/wiring"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/mailer/smtptest"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/storetest"
)

// newDelivery is one process's delivery pass over db, sending to srv.
func newDelivery(tb testing.TB, db *postgres.DB, srv *smtptest.Server, clock core.Clock) *core.Delivery {
	tb.Helper()
	m, err := mailer.NewSMTP(mailer.SMTPConfig{
		Host: srv.Host(), Port: srv.Port(), TLS: mailer.TLSNone, PoolSize: 8,
		From: core.Address{Name: "Sendlater", Address: "noreply@sendlater.test"}, Timeout: 5 * time.Second,
	})
	must(tb, err)
	// The graph of internal/wiring, as the binary builds it: each process
	// its own health record.
	return storetest.Graph(tb, db, wiring.Options{Mailer: m, Clock: clock, Reminders: core.DefaultReminders,
		Concurrency: 4, Process: fmt.Sprintf("process %p", db)}).Delivery
}

// Three processes run passes at the same moment over one database: each due
// message is claimed by exactly one of them and sent once.
func TestPassesAcrossProcesses(t *testing.T) {
	url := pgtest.URL(t)
	srv := smtptest.Start(t)
	var dbs []*postgres.DB
	for range 3 {
		dbs = append(dbs, mustOpen(t, url))
	}
	s := stores(dbs[0])
	s.Clock = core.NewManualClock(storetest.Epoch)
	const n = 240
	recipients := map[string]bool{}
	var due time.Time
	for i := range n {
		u := storetest.MustCreateUser(t, s, fmt.Sprintf("author%d@example.com", i))
		m := storetest.NewMessage(s, u.ID, core.Interval1M)
		m.Recipient = fmt.Sprintf("grace%d@example.com", i)
		must(t, dbs[0].CreateMessage(ctx, m, nil))
		recipients[m.Recipient] = true
		due = m.SendDate
	}
	clock := core.NewManualClock(due.Add(time.Hour))
	var wg sync.WaitGroup
	for _, db := range dbs {
		d := newDelivery(t, db, srv, clock)
		wg.Go(func() {
			for {
				res, err := d.Run(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				if res.Delivered == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	_, err := srv.WaitFor(n, 10*time.Second)
	must(t, err)
	time.Sleep(200 * time.Millisecond) // a duplicate would arrive by now
	got := srv.Messages()
	if len(got) != n {
		t.Fatalf("%d emails for %d messages", len(got), n)
	}
	for _, e := range got {
		if !recipients[e.To[0]] {
			t.Fatalf("an email to %v, twice or unknown", e.To)
		}
		delete(recipients, e.To[0])
	}
	msgs, total, err := dbs[1].ListMessages(ctx, core.MessageFilter{})
	must(t, err)
	for _, m := range msgs {
		if m.Status != core.StatusDelivered {
			t.Fatalf("message %s is %s", m.ID, m.Status)
		}
	}
	if total != n {
		t.Fatalf("%d messages stored", total)
	}
}

// A process that claimed a message and died leaves a lease; once it has
// run out, another process sends the message, with the Message-ID the dead
// one fixed.
func TestExpiredLeaseTakenOver(t *testing.T) {
	url := pgtest.URL(t)
	srv := smtptest.Start(t)
	dead, alive := mustOpen(t, url), mustOpen(t, url)
	s := stores(dead)
	s.Clock = core.NewManualClock(storetest.Epoch)
	u := storetest.MustCreateUser(t, s, "ada@example.com")
	m := storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)
	lease := m.SendDate.Add(core.DefaultLeaseDuration)
	claimed, err := dead.ClaimDeliveries(ctx, m.SendDate, 10, func(m *core.Message) bool {
		m.Status, m.LeaseUntil, m.EmailMessageID = core.StatusSending, lease, "fixed-id@sendlater.test"
		return true
	})
	must(t, err)
	if len(claimed) != 1 {
		t.Fatalf("claimed %d", len(claimed))
	}

	clock := core.NewManualClock(lease.Add(-time.Second))
	d := newDelivery(t, alive, srv, clock)
	res, err := d.Run(ctx)
	must(t, err)
	if res.Delivered != 0 || len(srv.Messages()) != 0 {
		t.Fatalf("a leased message was sent: %+v", res)
	}
	clock.Set(lease)
	res, err = d.Run(ctx)
	must(t, err)
	if res.Delivered != 1 {
		t.Fatalf("after the lease: %+v", res)
	}
	got, err := srv.WaitFor(1, 5*time.Second)
	must(t, err)
	if id := got[0].Header.Get("Message-Id"); id != "<fixed-id@sendlater.test>" {
		t.Fatalf("Message-Id = %q, want the one fixed at the first claim", id)
	}
}

package postgres_test

import (
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/storetest"
)

// Bounces waiting for a group of their own ride the next settlement
// group instead (a delivery pass's): recorded in its transaction, they
// wait neither their own gathering nor a commit of their own.
func TestBouncesRideASettlementGroup(t *testing.T) {
	db := mustOpen(t, pgtest.URL(t))
	s := stores(db)
	s.Clock = core.NewManualClock(storetest.Epoch)
	u := storetest.MustCreateUser(t, s, "ada@example.com")
	settled := []*core.Message{storetest.MustCreateMessage(t, s, u.ID, core.Interval1M), storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)}
	bounced := storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)
	postgres.SetBounceGather(db, time.Hour, time.Hour)
	postgres.SetRideAfter(db, -1)           // a lone bounce rides at once
	postgres.SetSettleGather(db, time.Hour) // a lone settlement waits for the second
	start := time.Now()
	bounceErr := make(chan error, 1)
	go func() {
		bounceErr <- db.RecordBounce(ctx, bounced.ID, func(m *core.Message) (*core.BounceWrite, error) { return softBounce(m, 0), nil })
	}()
	for postgres.PendingBounces(db) == 0 {
		if time.Since(start) > time.Minute {
			t.Fatal("the bounce never waited for a group")
		}
		time.Sleep(time.Millisecond)
	}
	settleAtOnce(t, db, settled)
	select {
	case err := <-bounceErr:
		must(t, err)
	case <-time.After(time.Minute):
		t.Fatal("the bounce still waits for its own group a minute after the settlements")
	}
	checkBounces(t, db, bounced, 1, []int{0}, 1)
	var xmins []string
	for _, row := range [][3]string{{"messages", "id", settled[0].ID}, {"messages", "id", settled[1].ID}, {"bounce_marks", "message_id", bounced.ID}} {
		x, err := postgres.Xmin(db, row[0], row[1], row[2])
		must(t, err)
		xmins = append(xmins, x)
	}
	if xmins[0] != xmins[1] || xmins[1] != xmins[2] {
		t.Errorf("written by transactions %v: want one for the settlements and the bounce", xmins)
	}
}

// settleAtOnce settles ms as delivered, at the same moment (one group when
// a lone settlement waits for company), and returns once all are.
func settleAtOnce(t *testing.T, db *postgres.DB, ms []*core.Message) {
	t.Helper()
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := db.SettleMessage(ctx, m.ID, func(m *core.Message) ([]*core.OutboxItem, error) {
				m.Status = core.StatusDelivered
				m.Events = append(m.Events, core.MessageEvent{At: storetest.Epoch, Kind: core.EventSent, Recipient: m.Recipient})
				return nil, nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

// Bounces ride a settlement group in company: a lone young bounce is left
// pending (it would put its statements into a transaction deliveries wait
// for, for one DSN), and a settlement group takes the pending bounces
// once RideCompany of them wait, all in its transaction.
func TestBouncesRideInCompany(t *testing.T) {
	db := mustOpen(t, pgtest.URL(t))
	s := stores(db)
	s.Clock = core.NewManualClock(storetest.Epoch)
	u := storetest.MustCreateUser(t, s, "ada@example.com")
	postgres.SetBounceGather(db, time.Hour, time.Hour)
	postgres.SetRideAfter(db, time.Hour)
	postgres.SetSettleGather(db, time.Hour) // a lone settlement waits for the second
	newMessages := func(n int) []*core.Message {
		ms := make([]*core.Message, n)
		for i := range ms {
			ms[i] = storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)
		}
		return ms
	}
	bounced := newMessages(postgres.RideCompany)
	errs := make(chan error, len(bounced))
	bounce := func(ms []*core.Message) {
		for _, m := range ms {
			go func() {
				errs <- db.RecordBounce(ctx, m.ID, func(m *core.Message) (*core.BounceWrite, error) { return softBounce(m, 0), nil })
			}()
		}
	}
	waitPending := func(n int) {
		t.Helper()
		for start := time.Now(); postgres.PendingBounces(db) != n; time.Sleep(time.Millisecond) {
			if time.Since(start) > time.Minute {
				t.Fatalf("%d bounces pending, want %d", postgres.PendingBounces(db), n)
			}
		}
	}
	bounce(bounced[:1])
	waitPending(1)
	settleAtOnce(t, db, newMessages(2))
	if n := postgres.PendingBounces(db); n != 1 {
		t.Fatalf("after a settlement group %d bounces pending, want the lone one", n)
	}
	bounce(bounced[1:])
	waitPending(len(bounced))
	settled := newMessages(2)
	settleAtOnce(t, db, settled)
	for range bounced {
		select {
		case err := <-errs:
			must(t, err)
		case <-time.After(time.Minute):
			t.Fatal("the bounces still wait a minute after the settlements")
		}
	}
	want, err := postgres.Xmin(db, "messages", "id", settled[0].ID)
	must(t, err)
	for _, m := range bounced {
		checkBounces(t, db, m, 1, []int{0}, 1)
		if x, err := postgres.Xmin(db, "bounce_marks", "message_id", m.ID); err != nil || x != want {
			t.Errorf("the mark of %s written by transaction %s (%v), want the settlements' %s", m.ID, x, err, want)
		}
	}
}

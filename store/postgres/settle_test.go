package postgres_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/storetest"
)

// Outcomes settled at the same moment are committed together, and each
// keeps its own result: a callback that fails, a message that is gone and a
// write the database refuses (which fails the group's transaction, so every
// call of it is settled again alone) fail alone; the others are written.
func TestSettlesAtOnceKeepTheirOwnOutcomes(t *testing.T) {
	db := mustOpen(t, pgtest.URL(t))
	s := stores(db)
	s.Clock = core.NewManualClock(storetest.Epoch)
	u := storetest.MustCreateUser(t, s, "ada@example.com")
	errAbort := errors.New("abort")
	for round, bad := range []bool{false, true} {
		t.Run(fmt.Sprintf("round %d", round), func(t *testing.T) {
			const n = 40
			ms := make([]*core.Message, n)
			for i := range ms {
				ms[i] = storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)
			}
			const aborts, refused, gone = 3, 7, 11 // indexes of the calls that fail when bad
			var calls atomic.Int64
			errs := make([]error, n)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i, m := range ms {
				id := m.ID
				if bad && i == gone {
					id = "gone-" + m.ID
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					_, errs[i] = db.SettleMessage(ctx, id, func(x *core.Message) ([]*core.OutboxItem, error) {
						calls.Add(1)
						x.Status, x.DeliveredAt = core.StatusDelivered, x.SendDate
						switch {
						case bad && i == aborts:
							return nil, errAbort
						case bad && i == refused: // an outbox item without an id
							return []*core.OutboxItem{{MessageID: x.ID, Owner: x.Owner, NextAttemptAt: x.SendDate}}, nil
						}
						return nil, nil
					})
				}()
			}
			close(start)
			wg.Wait()
			for i, m := range ms {
				got, err := db.FindMessageByID(ctx, m.ID)
				must(t, err)
				failed := bad && (i == aborts || i == refused || i == gone)
				switch {
				case bad && i == aborts && !errors.Is(errs[i], errAbort):
					t.Errorf("call %d: err = %v, want the callback's", i, errs[i])
				case bad && i == gone && core.ErrorCode(errs[i]) != core.EMessageNotFound:
					t.Errorf("call %d: err = %v, want %s", i, errs[i], core.EMessageNotFound)
				case bad && i == refused && errs[i] == nil:
					t.Errorf("call %d: a refused write succeeded", i)
				case !failed && errs[i] != nil:
					t.Errorf("call %d: %v", i, errs[i])
				}
				if delivered := got.Status == core.StatusDelivered; delivered == failed {
					t.Errorf("message %d: status %s after a call that failed = %v", i, got.Status, failed)
				}
			}
			t.Logf("%d callbacks for %d calls", calls.Load(), n)
		})
	}
}

// A lone outcome waits a moment for another to share its transaction: an
// outcome that comes while it waits is settled with it, in the same
// transaction (the first one's write is not yet committed when the second
// one's callback runs), and wakes it at once; one that no other joins is
// settled alone once the wait is over.
func TestALoneSettlementWaitsForCompany(t *testing.T) {
	db := mustOpen(t, pgtest.URL(t))
	s := stores(db)
	s.Clock = core.NewManualClock(storetest.Epoch)
	u := storetest.MustCreateUser(t, s, "ada@example.com")
	deliver := func(x *core.Message) ([]*core.OutboxItem, error) {
		x.Status, x.DeliveredAt = core.StatusDelivered, x.SendDate
		return nil, nil
	}

	const wait = 20 * time.Second
	postgres.SetSettleGather(db, wait)
	first, second := storetest.MustCreateMessage(t, s, u.ID, core.Interval1M), storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := db.SettleMessage(ctx, first.ID, deliver)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond) // the first call is waiting by now
	var firstSeen core.MessageStatus
	_, err := db.SettleMessage(ctx, second.ID, func(x *core.Message) ([]*core.OutboxItem, error) {
		m, err := db.FindMessageByID(ctx, first.ID) // from another connection
		if err != nil {
			return nil, err
		}
		firstSeen = m.Status
		return deliver(x)
	})
	must(t, err)
	must(t, <-done)
	if took := time.Since(start); took > wait/2 {
		t.Errorf("the two outcomes took %s: the second did not end the first one's wait", took)
	}
	if firstSeen == core.StatusDelivered {
		t.Error("the first outcome was committed before the second was settled: they were not settled together")
	}

	postgres.SetSettleGather(db, 50*time.Millisecond)
	alone := storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)
	start = time.Now()
	_, err = db.SettleMessage(ctx, alone.ID, deliver)
	must(t, err)
	if took := time.Since(start); took < 50*time.Millisecond {
		t.Errorf("a lone outcome was settled after %s, before its wait of 50ms was over", took)
	}
	for _, m := range []*core.Message{first, second, alone} {
		got, err := db.FindMessageByID(ctx, m.ID)
		must(t, err)
		if got.Status != core.StatusDelivered {
			t.Errorf("message %s: status %s, want delivered", m.ID, got.Status)
		}
	}
}

package core

import (
	"context"
	"log/slog"
	"time"
)

// Leases are as short as a send can take (DefaultLeaseDuration) and renewed
// while a send is in flight, so that a pass that died (a SIGKILL, a lost
// machine) leaves work that another pass takes over within the lease,
// while a slow send is never taken over by a living pass's neighbour.

// renewWhile calls renew with the next lease's end every third of the
// lease until stop is called; stop waits for a renewal in progress.
func (d *Delivery) renewWhile(renew func(until time.Time)) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(d.lease() / 3)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				renew(d.Clock.Now().Add(d.lease()))
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// keepClaim renews the lease of a claimed message while its send runs,
// as long as owns says the claim is still this pass's, and moves the
// LeaseUntil of every copy the worker holds to the last renewal when
// stopped.
func (d *Delivery) keepClaim(owns func(cur, claimed *Message) bool, copies ...*Message) (stop func()) {
	id, lease := copies[0].ID, copies[0].LeaseUntil
	stopRenewing := d.renewWhile(func(until time.Time) {
		if renewed, _ := d.renewClaim(owns, id, lease, until); renewed {
			lease = until
		}
	})
	return func() {
		stopRenewing()
		for _, m := range copies {
			m.LeaseUntil = lease
		}
	}
}

// renewClaim moves the lease of message id from lease to until, in a write
// that checks with owns that the claim is still this pass's, and reports
// whether it was.
func (d *Delivery) renewClaim(owns func(cur, claimed *Message) bool, id string, lease, until time.Time) (bool, error) {
	renewed := false
	_, err := d.settle(id, func(m *Message) ([]*OutboxItem, error) {
		renewed = owns(m, &Message{LeaseUntil: lease})
		if renewed {
			m.LeaseUntil = until
		}
		return nil, nil
	})
	return err == nil && renewed, err
}

// confirmClaim makes sure a claim that waited in its batch still has most
// of its lease before the send starts: when less than two thirds are left
// it renews the lease, in a write that checks the claim is still this
// pass's. Without it a claim read just before its lease ran out could be
// taken over by another pass before keepClaim's first renewal, and both
// would send. It reports false when the claim was lost or could not be
// confirmed (the claim then runs out on its own).
func (d *Delivery) confirmClaim(owns func(cur, claimed *Message) bool, claimed, cur *Message, now time.Time, log *slog.Logger) bool {
	if claimed.LeaseUntil.Sub(now) >= d.lease()*2/3 {
		return true
	}
	until := now.Add(d.lease())
	renewed, err := d.renewClaim(owns, claimed.ID, claimed.LeaseUntil, until)
	if err != nil {
		if ErrorCode(err) != EMessageNotFound {
			log.Warn("confirming a claim failed; it expires on its own", "err", err)
		}
		return false
	}
	if renewed {
		claimed.LeaseUntil, cur.LeaseUntil = until, until
	}
	return renewed
}

// keepOutboxLease renews the lease of an outbox item while it is worked.
// The item as claimed is written with the new lease; the worker's own
// outcome replaces it after.
func (d *Delivery) keepOutboxLease(it *OutboxItem) (stop func()) {
	claimed := *it
	return d.renewWhile(func(until time.Time) {
		claimed.NextAttemptAt = until
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		d.Store.SettleOutbox(ctx, &claimed, false) // a failure: the lease runs out as it would have
	})
}

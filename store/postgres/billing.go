package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

var _ core.BillingStore = (*DB)(nil)

// FindUserByStripeCustomer finds the user holding the customer id (a unique
// partial index), or EUserNotFound.
func (s *DB) FindUserByStripeCustomer(ctx context.Context, customerID string) (*core.User, error) {
	if customerID == "" {
		return nil, core.ErrUserNotFound()
	}
	u, err := s.scanUser(s.pool.QueryRow(ctx, "select "+userColumns+" from users where stripe_customer_id = $1", customerID))
	return u, wrapErr(err)
}

func (s *DB) BillingEventSeen(ctx context.Context, id string) (bool, error) {
	var seen bool
	err := s.pool.QueryRow(ctx, "select exists (select 1 from billing_events where id = $1)", id).Scan(&seen)
	return seen, wrapErr(err)
}

// RecordBillingEvent records id at now (recording it again keeps the first
// time) and forgets the ids recorded more than core.BillingEventRetention
// before now: one batch, one implicit transaction.
func (s *DB) RecordBillingEvent(ctx context.Context, id string, now time.Time) error {
	if err := core.ValidID("billing event", id); err != nil {
		return err
	}
	b := &pgx.Batch{}
	b.Queue("delete from billing_events where recorded_at <= $1", now.Add(-core.BillingEventRetention).UnixNano())
	b.Queue("insert into billing_events (id, recorded_at) values ($1, $2) on conflict (id) do nothing", id, now.UnixNano())
	return wrapErr(s.pool.SendBatch(ctx, b).Close())
}

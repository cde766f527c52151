package bolt

import (
	"context"
	"time"

	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

// Billing's buckets (schema version 4).
var (
	bucketUsersByCustomer = []byte("users_by_customer")      // Stripe customer id -> user id
	bucketBillingEvents   = []byte("billing_events")         // event id -> time(recorded)
	bucketBillingByTime   = []byte("billing_events_by_time") // time(recorded)|event id
)

var _ core.BillingStore = (*DB)(nil)

// createBillingBuckets is version 4: it also indexes the customers users
// already hold.
func createBillingBuckets(tx *bbolt.Tx) error {
	for _, name := range [][]byte{bucketUsersByCustomer, bucketBillingEvents, bucketBillingByTime} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	return tx.Bucket(bucketUsers).ForEach(func(k, v []byte) error {
		r, err := decodeUserRecord(v)
		if err != nil {
			return err
		}
		return indexCustomer(tx, r.ID, "", r.StripeCustomerID)
	})
}

// indexCustomer moves user id's customer index entry from old to new (either
// may be empty), refusing a customer another user holds.
func indexCustomer(tx *bbolt.Tx, id, old, new string) error {
	if old == new {
		return nil
	}
	b := tx.Bucket(bucketUsersByCustomer)
	if new != "" {
		if holder := b.Get([]byte(new)); holder != nil && string(holder) != id {
			return core.ErrCustomerTaken()
		}
		if err := b.Put([]byte(new), []byte(id)); err != nil {
			return err
		}
	}
	if old != "" {
		return deleteRef(b, []byte(old), id)
	}
	return nil
}

func (s *DB) FindUserByStripeCustomer(ctx context.Context, customerID string) (*core.User, error) {
	var u *core.User
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		id := tx.Bucket(bucketUsersByCustomer).Get([]byte(customerID))
		if id == nil || customerID == "" {
			return core.ErrUserNotFound()
		}
		var err error
		u, err = s.findUser(tx, string(id))
		return err
	})
	return u, err
}

func (s *DB) BillingEventSeen(ctx context.Context, id string) (bool, error) {
	seen := false
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		seen = id != "" && tx.Bucket(bucketBillingEvents).Get([]byte(id)) != nil
		return nil
	})
	return seen, err
}

// RecordBillingEvent records id at now and forgets, in the same transaction,
// the ids recorded more than core.BillingEventRetention before now.
func (s *DB) RecordBillingEvent(ctx context.Context, id string, now time.Time) error {
	if err := core.ValidID("billing event", id); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bbolt.Tx) error {
		events, byTime := tx.Bucket(bucketBillingEvents), tx.Bucket(bucketBillingByTime)
		until := appendTime(nil, now.Add(-core.BillingEventRetention))
		var old [][]byte
		c := byTime.Cursor()
		for k, _ := c.First(); k != nil && beforeOrAt(k, until); k, _ = c.Next() {
			old = append(old, append([]byte(nil), k...))
		}
		for _, k := range old {
			if err := events.Delete(k[timeKeyLen:]); err != nil {
				return err
			}
			if err := byTime.Delete(k); err != nil {
				return err
			}
		}
		if events.Get([]byte(id)) != nil {
			return nil
		}
		if err := events.Put([]byte(id), appendTime(nil, now)); err != nil {
			return err
		}
		return byTime.Put(timeID(now, id), nil)
	})
}

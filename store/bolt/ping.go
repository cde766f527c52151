package bolt

import (
	"context"
	"errors"

	"go.etcd.io/bbolt"
)

// Ping reports whether the store answers: a read transaction that finds the
// schema. It is what /healthz calls; Check is the full (slow) consistency check.
func (s *DB) Ping(ctx context.Context) error {
	return s.db.View(func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketMeta) == nil {
			return errors.New("bolt: the meta bucket is missing")
		}
		return nil
	})
}

// Stats are bbolt's figures of the file: transactions open and done, free
// pages, the writes' time (the operator's metrics read them).
func (s *DB) Stats() bbolt.Stats { return s.db.Stats() }

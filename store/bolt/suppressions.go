package bolt

import (
	"context"
	"sort"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
	"go.etcd.io/bbolt"
)

// bucketSuppressions: keyed hash of core.EmailKey(address) ->
// suppressionRecord (schema version 16, issue 31).
var bucketSuppressions = []byte("suppressions")

// createSuppressionBucket is the migration that adds the suppression list.
func createSuppressionBucket(tx *bbolt.Tx) error {
	_, err := tx.CreateBucketIfNotExists(bucketSuppressions)
	return err
}

type suppressionRecord struct {
	header
	At      int64  `json:"at"`
	Address []byte `json:"address"` // sealed
	Reason  []byte `json:"reason"`  // sealed
}

func (s *DB) Suppress(ctx context.Context, sp *core.Suppression) error {
	ss := s.seal.SealSuppression(sp)
	return s.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketSuppressions)
		if b.Get(ss.Hash) != nil {
			return nil
		}
		v, err := encode(suppressionRecord{header: current, At: ss.At, Address: ss.Address, Reason: ss.Reason})
		if err != nil {
			return err
		}
		return b.Put(ss.Hash, v)
	})
}

func (s *DB) ListSuppressions(ctx context.Context) ([]*core.Suppression, error) {
	var out []*core.Suppression
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketSuppressions).ForEach(func(k, v []byte) error {
			var r suppressionRecord
			if err := decode("suppression", v, &r); err != nil {
				return err
			}
			sp, err := s.seal.OpenSuppression(&seal.Suppression{Hash: k, At: r.At, Address: r.Address, Reason: r.Reason})
			if err != nil {
				return err
			}
			out = append(out, sp)
			return nil
		})
	})
	if err != nil {
		return nil, wrapErr(err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.After(out[j].At) })
	return out, nil
}

func (s *DB) Unsuppress(ctx context.Context, email string) (bool, error) {
	key := s.seal.AddressHash(email)
	found := false
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketSuppressions)
		if found = b.Get(key) != nil; !found {
			return nil
		}
		return b.Delete(key)
	})
	return found, wrapErr(err)
}

// refusedOrSuppressed tells whether the address of keyed hash key refused
// every message or is suppressed.
func refusedOrSuppressed(tx *bbolt.Tx, key []byte) bool {
	return tx.Bucket(bucketRefusals).Get(key) != nil || tx.Bucket(bucketSuppressions).Get(key) != nil
}

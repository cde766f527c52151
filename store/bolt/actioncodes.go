package bolt

import (
	"context"
	"time"

	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

// CreateActionCode stores c under its hash. A zero ExpiresAt never expires.
func (s *DB) CreateActionCode(ctx context.Context, c *core.ActionCode) error {
	if err := c.CheckNew(); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketActionCodes).Get([]byte(c.Hash)) != nil {
			return core.ErrActionCodeExists()
		}
		if !c.ExpiresAt.IsZero() {
			if err := tx.Bucket(bucketActionCodesByExpiry).Put(timeID(c.ExpiresAt, c.Hash), nil); err != nil {
				return err
			}
		}
		return putActionCode(tx, c)
	})
}

// FindActionCode returns the code, used or not.
func (s *DB) FindActionCode(ctx context.Context, hash string) (*core.ActionCode, error) {
	var c *core.ActionCode
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		c, err = findActionCode(tx, hash)
		return err
	})
	return c, err
}

// UseActionCode marks the code used at now, once (core.ActionCode.Use).
func (s *DB) UseActionCode(ctx context.Context, hash string, now time.Time) (*core.ActionCode, error) {
	var c *core.ActionCode
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		var err error
		if c, err = findActionCode(tx, hash); err != nil {
			return err
		}
		if err := c.Use(now); err != nil {
			return err
		}
		return putActionCode(tx, c)
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// DeleteExpiredActionCodes removes the codes whose ExpiresAt is before now,
// reading the expiry index up to now only.
func (s *DB) DeleteExpiredActionCodes(ctx context.Context, now time.Time) (int, error) {
	n := 0
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		byExpiry, codes := tx.Bucket(bucketActionCodesByExpiry), tx.Bucket(bucketActionCodes)
		end := appendTime(nil, now.Add(-1))
		var expired [][]byte
		c := byExpiry.Cursor()
		for k, _ := c.First(); k != nil && beforeOrAt(k, end); k, _ = c.Next() {
			expired = append(expired, k)
		}
		for _, k := range expired {
			if err := codes.Delete(k[timeKeyLen:]); err != nil {
				return err
			}
			if err := byExpiry.Delete(k); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

func findActionCode(tx *bbolt.Tx, hash string) (*core.ActionCode, error) {
	if hash == "" {
		return nil, core.ErrInvalidActionCode()
	}
	v := tx.Bucket(bucketActionCodes).Get([]byte(hash))
	if v == nil {
		return nil, core.ErrInvalidActionCode()
	}
	return decodeActionCode(v)
}

func putActionCode(tx *bbolt.Tx, c *core.ActionCode) error {
	v, err := encodeActionCode(c)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketActionCodes).Put([]byte(c.Hash), v)
}

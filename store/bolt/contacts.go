package bolt

import (
	"context"

	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

// CreateContact stores a contact form submission, giving it a new id when it
// has none.
func (s *DB) CreateContact(ctx context.Context, c *core.ContactSubmission) error {
	if err := core.AssignID("contact", &c.ID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bbolt.Tx) error {
		v, err := s.encodeContact(c)
		if err != nil {
			return err
		}
		return tx.Bucket(bucketContacts).Put(timeID(c.CreatedAt, c.ID), v)
	})
}

// ListContacts returns up to limit submissions (0: all), newest first.
func (s *DB) ListContacts(ctx context.Context, limit int) ([]*core.ContactSubmission, error) {
	cs := []*core.ContactSubmission{}
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketContacts).Cursor()
		for k, v := c.Last(); k != nil && (limit <= 0 || len(cs) < limit); k, v = c.Prev() {
			x, err := s.decodeContact(v)
			if err != nil {
				return err
			}
			cs = append(cs, x)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return cs, nil
}

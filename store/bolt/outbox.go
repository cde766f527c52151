package bolt

import (
	"bytes"
	"context"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
	"go.etcd.io/bbolt"
)

// The outbox (core.OutboxItem): work that follows an event, queued with it
// and retried, in the buckets the webhook calls started in; and the users'
// webhook secrets.

// bucketOutboxFailed indexes the items that failed for good (schema
// version 6): time(FailedAt)|id.
var bucketOutboxFailed = []byte("outbox_failed")

// createOutboxBuckets is version 6.
func createOutboxBuckets(tx *bbolt.Tx) error {
	_, err := tx.CreateBucketIfNotExists(bucketOutboxFailed)
	return err
}

// outboxRecord is an item as it is stored, in bucketWebhooks under its id.
// Records of webhook calls written before the outbox have no ID: their
// message's id is theirs.
type outboxRecord struct {
	header
	ID            string `json:"id,omitempty"`
	Kind          string `json:"kind,omitempty"`
	MessageID     string `json:"messageId"`
	Owner         string `json:"owner"`
	URL           string `json:"url"`
	Recipient     []byte `json:"recipient"`
	DeliveredAt   int64  `json:"deliveredAt"`
	Email         []byte `json:"email,omitempty"`
	Attempts      int    `json:"attempts,omitempty"`
	NextAttemptAt int64  `json:"nextAttemptAt"`
	LastError     []byte `json:"lastError,omitempty"`
	FailedAt      int64  `json:"failedAt,omitempty"`
}

// indexKeys are where the item of r is indexed: due, or failed for good.
func (r *outboxRecord) indexKey() (bucket, key []byte) {
	if r.FailedAt != 0 {
		return bucketOutboxFailed, timeID(fromUnixNano(r.FailedAt), r.ID)
	}
	return bucketWebhooksDue, timeID(fromUnixNano(r.NextAttemptAt), r.ID)
}

func decodeOutboxRecord(v []byte) (*outboxRecord, error) {
	var r outboxRecord
	if err := decode("outbox", v, &r); err != nil {
		return nil, err
	}
	if r.ID == "" {
		r.ID = r.MessageID
	}
	return &r, nil
}

// putOutboxItem seals item and writes it.
func (s *DB) putOutboxItem(tx *bbolt.Tx, item *core.OutboxItem) error {
	si := s.seal.SealOutboxItem(item)
	return putSealedOutboxItem(tx, &si)
}

// putSealedOutboxItem writes a sealed item and moves its index entry.
func putSealedOutboxItem(tx *bbolt.Tx, si *seal.OutboxItem) error {
	if err := core.ValidID("outbox item", si.Plain.ID); err != nil {
		return err
	}
	if err := deleteOutboxIndex(tx, []byte(si.Plain.ID)); err != nil {
		return err
	}
	r := outboxRecordOf(si)
	v, err := encode(r)
	if err != nil {
		return err
	}
	if err := tx.Bucket(bucketWebhooks).Put([]byte(r.ID), v); err != nil {
		return err
	}
	bucket, key := r.indexKey()
	return tx.Bucket(bucket).Put(key, nil)
}

// deleteOutboxIndex removes the index entry of the item stored under id,
// if any.
func deleteOutboxIndex(tx *bbolt.Tx, id []byte) error {
	old := tx.Bucket(bucketWebhooks).Get(id)
	if old == nil {
		return nil
	}
	r, err := decodeOutboxRecord(old)
	if err != nil {
		return err
	}
	bucket, key := r.indexKey()
	return tx.Bucket(bucket).Delete(key)
}

// outboxRecordOf is the stored form of a sealed item.
func outboxRecordOf(si *seal.OutboxItem) outboxRecord {
	c := &si.Plain
	return outboxRecord{
		header: current, ID: c.ID, Kind: c.Kind, MessageID: c.MessageID, Owner: c.Owner, URL: c.URL,
		Recipient: si.Recipient, DeliveredAt: unixNano(c.DeliveredAt), Email: si.Email, Attempts: c.Attempts,
		NextAttemptAt: unixNano(c.NextAttemptAt), LastError: si.LastError, FailedAt: unixNano(c.FailedAt),
	}
}

// sealedItem is the sealed item r holds.
func (r *outboxRecord) sealedItem() seal.OutboxItem {
	return seal.OutboxItem{
		Plain: core.OutboxItem{
			ID: r.ID, Kind: r.Kind, MessageID: r.MessageID, Owner: r.Owner, URL: r.URL,
			DeliveredAt: fromUnixNano(r.DeliveredAt), Attempts: r.Attempts,
			NextAttemptAt: fromUnixNano(r.NextAttemptAt), FailedAt: fromUnixNano(r.FailedAt),
		},
		Recipient: r.Recipient, LastError: r.LastError, Email: r.Email,
	}
}

func (s *DB) decodeOutboxItem(v []byte) (*core.OutboxItem, error) {
	r, err := decodeOutboxRecord(v)
	if err != nil {
		return nil, err
	}
	si := r.sealedItem()
	return s.seal.OpenOutboxItem(&si)
}

// indexedOutboxItem reads the item an index key (time|id) points at.
func (s *DB) indexedOutboxItem(tx *bbolt.Tx, k []byte) (*core.OutboxItem, error) {
	v := tx.Bucket(bucketWebhooks).Get([]byte(idAfter(k, timeKeyLen)))
	if v == nil {
		return nil, core.Errorf(core.EInternal, "An outbox index entry points at no item.")
	}
	return s.decodeOutboxItem(v)
}

// AddOutboxItem stores a new item, replacing the item with its id.
func (s *DB) AddOutboxItem(ctx context.Context, item *core.OutboxItem) error {
	return s.update(ctx, func(tx *bbolt.Tx) error { return s.putOutboxItem(tx, item) })
}

// ClaimOutbox leases due items by moving their next attempt to leaseUntil,
// in one transaction; a crash lets the lease run out.
func (s *DB) ClaimOutbox(ctx context.Context, now, leaseUntil time.Time, limit int) ([]*core.OutboxItem, error) {
	end := appendTime(nil, now)
	due := false
	if err := s.view(ctx, func(tx *bbolt.Tx) error {
		k, _ := tx.Bucket(bucketWebhooksDue).Cursor().First()
		due = k != nil && beforeOrAt(k, end)
		return nil
	}); err != nil || !due {
		return nil, err
	}
	var items []*core.OutboxItem
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		items = nil
		var keys [][]byte
		c := tx.Bucket(bucketWebhooksDue).Cursor()
		for k, _ := c.First(); k != nil && beforeOrAt(k, end) && len(keys) < limit; k, _ = c.Next() {
			keys = append(keys, bytes.Clone(k))
		}
		for _, k := range keys {
			item, err := s.indexedOutboxItem(tx, k)
			if err != nil {
				return err
			}
			item.NextAttemptAt = leaseUntil
			if err := s.putOutboxItem(tx, item); err != nil {
				return err
			}
			items = append(items, item)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return items, nil
}

// SettleOutbox deletes a finished item or stores it as it is (its next
// attempt, or its failure for good). An item that is gone stays gone.
func (s *DB) SettleOutbox(ctx context.Context, item *core.OutboxItem, done bool) error {
	return s.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketWebhooks)
		if b.Get([]byte(item.ID)) == nil {
			return nil
		}
		if !done {
			return s.putOutboxItem(tx, item)
		}
		if err := deleteOutboxIndex(tx, []byte(item.ID)); err != nil {
			return err
		}
		return b.Delete([]byte(item.ID))
	})
}

func (s *DB) FindOutboxItem(ctx context.Context, id string) (*core.OutboxItem, error) {
	var item *core.OutboxItem
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		v := tx.Bucket(bucketWebhooks).Get([]byte(id))
		if v == nil {
			return core.ErrOutboxItemNotFound()
		}
		var err error
		item, err = s.decodeOutboxItem(v)
		return err
	})
	return item, err
}

// FailedOutbox walks the failure index back from its end.
func (s *DB) FailedOutbox(ctx context.Context, since time.Time, limit int) ([]*core.OutboxItem, error) {
	items := []*core.OutboxItem{}
	from := appendTime(nil, since)
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketOutboxFailed).Cursor()
		for k, _ := c.Last(); k != nil && bytes.Compare(k[:timeKeyLen], from) >= 0 && (limit <= 0 || len(items) < limit); k, _ = c.Prev() {
			item, err := s.indexedOutboxItem(tx, k)
			if err != nil {
				return err
			}
			items = append(items, item)
		}
		return nil
	})
	return items, err
}

// CountOutbox counts the two indexes' entries.
func (s *DB) CountOutbox(ctx context.Context) (pending, failed int, err error) {
	err = s.view(ctx, func(tx *bbolt.Tx) error {
		pending = countPrefix(tx.Bucket(bucketWebhooksDue), nil)
		failed = countPrefix(tx.Bucket(bucketOutboxFailed), nil)
		return nil
	})
	return pending, failed, err
}

func (s *DB) SetWebhookSecret(ctx context.Context, userID, secret string) error {
	if err := core.ValidID("user", userID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bbolt.Tx) error {
		if _, err := s.findUser(tx, userID); err != nil {
			return err
		}
		return tx.Bucket(bucketWebhookSecrets).Put([]byte(userID), s.seal.SealWebhookSecret(userID, secret))
	})
}

func (s *DB) WebhookSecret(ctx context.Context, userID string) (string, error) {
	var secret string
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		v := tx.Bucket(bucketWebhookSecrets).Get([]byte(userID))
		if v == nil {
			return nil
		}
		var err error
		secret, err = s.seal.OpenWebhookSecret(userID, v)
		return err
	})
	return secret, err
}

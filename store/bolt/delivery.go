package bolt

import (
	"bytes"
	"context"
	"time"

	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

// The delivery pass's buckets (schema version 2).
var (
	bucketRefusals       = []byte("refusals")        // keyed hash of core.EmailKey(address) -> refusalRecord
	bucketWebhooks       = []byte("webhooks")        // outbox item id -> outboxRecord (outbox.go)
	bucketWebhooksDue    = []byte("webhooks_due")    // time(NextAttemptAt)|outbox item id
	bucketWebhookSecrets = []byte("webhook_secrets") // user id -> sealed secret
)

var _ core.DeliveryStore = (*DB)(nil)

// createDeliveryBuckets is version 2.
func createDeliveryBuckets(tx *bbolt.Tx) error {
	for _, name := range [][]byte{bucketRefusals, bucketWebhooks, bucketWebhooksDue, bucketWebhookSecrets} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	return nil
}

// ClaimDeliveries claims due deliveries in one write transaction; see
// core.DeliveryStore.
func (s *DB) ClaimDeliveries(ctx context.Context, now time.Time, limit int, claim func(m *core.Message) bool) ([]*core.Message, error) {
	return s.claim(ctx, bucketDue, now, limit, claim)
}

// ClaimReminders claims due reminders in one write transaction.
func (s *DB) ClaimReminders(ctx context.Context, now time.Time, limit int, claim func(m *core.Message) bool) ([]*core.Message, error) {
	return s.claim(ctx, bucketRemind, now, limit, claim)
}

func (s *DB) claim(ctx context.Context, bucket []byte, now time.Time, limit int, claim func(m *core.Message) bool) ([]*core.Message, error) {
	end := appendTime(nil, now)
	// A pass with nothing due must not pay for a write transaction (and its
	// fsync): look first.
	due := false
	if err := s.view(ctx, func(tx *bbolt.Tx) error {
		k, _ := tx.Bucket(bucket).Cursor().First()
		due = k != nil && beforeOrAt(k, end)
		return nil
	}); err != nil || !due {
		return nil, err
	}
	var claimed []*core.Message
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		claimed = nil
		// Writing moves index entries, which would upset a live cursor:
		// collect a window of keys first.
		var keys [][]byte
		c := tx.Bucket(bucket).Cursor()
		for k, _ := c.First(); k != nil && beforeOrAt(k, end) && len(keys) < 2*limit+16; k, _ = c.Next() {
			keys = append(keys, bytes.Clone(k))
		}
		for _, k := range keys {
			if len(claimed) >= limit {
				break
			}
			m, err := s.findIndexedMessage(tx, idAfter(k, timeKeyLen))
			if err != nil {
				return err
			}
			old := indexOf(m)
			if !claim(m) {
				continue
			}
			if err := s.putMessage(tx, &old, m); err != nil {
				return err
			}
			claimed = append(claimed, m)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return claimed, nil
}

// SettleMessage records a send's outcome and the outbox items it starts in
// one transaction, committed together with concurrent settlements (see
// commitGroup): a pass's workers share fsyncs.
func (s *DB) SettleMessage(ctx context.Context, id string, fn func(m *core.Message) ([]*core.OutboxItem, error)) (*core.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var m *core.Message
	err := s.commits.update(s.db, settlePatience, func(tx *bbolt.Tx) error {
		var err error
		if m, err = s.findMessage(tx, id); err != nil {
			return err
		}
		old := indexOf(m)
		items, err := fn(m)
		if err != nil {
			return err
		}
		if err := m.CheckUpdate(id); err != nil {
			return err
		}
		if err := s.putMessage(tx, &old, m); err != nil {
			return err
		}
		for _, item := range items {
			if err := s.putOutboxItem(tx, item); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, wrapErr(err)
	}
	return m, nil
}

type refusalRecord struct {
	header
	At int64 `json:"at"`
}

// RefuseAddress records a refusal; refusing twice keeps the first time.
func (s *DB) RefuseAddress(ctx context.Context, email string, at time.Time) error {
	key := s.seal.AddressHash(email)
	return s.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketRefusals)
		if b.Get(key) != nil {
			return nil
		}
		v, err := encode(refusalRecord{header: current, At: unixNano(at)})
		if err != nil {
			return err
		}
		return b.Put(key, v)
	})
}

// ReadForSend reads the message, its author and the refusals of addresses
// in one read transaction.
func (s *DB) ReadForSend(ctx context.Context, id, authorID string, addresses []string) (*core.Message, *core.User, []bool, error) {
	var m *core.Message
	var u *core.User
	refused := make([]bool, len(addresses))
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		if m, err = s.findMessage(tx, id); err != nil {
			return err
		}
		if u, err = s.findUser(tx, authorID); err != nil {
			return err
		}
		for i, a := range addresses {
			refused[i] = refusedOrSuppressed(tx, s.seal.AddressHash(a))
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return m, u, refused, nil
}

func (s *DB) AddressRefused(ctx context.Context, email string) (bool, error) {
	key := s.seal.AddressHash(email)
	refused := false
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		refused = refusedOrSuppressed(tx, key)
		return nil
	})
	return refused, err
}

// maxDueCount bounds DueQueue's count: a backlog larger than that is
// told as that many, so that a scrape never walks a whole index.
const maxDueCount = 100_000

// DueQueue counts the deliveries due at now (at most maxDueCount) and
// tells the due time of the earliest; see core.DueQueue.
func (s *DB) DueQueue(ctx context.Context, now time.Time) (count int, oldest time.Time, err error) {
	end := appendTime(nil, now)
	err = s.view(ctx, func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketDue).Cursor()
		for k, _ := c.First(); k != nil && beforeOrAt(k, end) && count < maxDueCount; k, _ = c.Next() {
			if count == 0 {
				oldest = keyTime(k)
			}
			count++
		}
		return nil
	})
	return count, oldest, err
}

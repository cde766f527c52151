package bolt

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

// The delivery pass's buckets (schema version 2).
var (
	bucketRefusals       = []byte("refusals")        // keyed hash of core.EmailKey(address) -> refusalRecord
	bucketWebhooks       = []byte("webhooks")        // message id -> webhookRecord
	bucketWebhooksDue    = []byte("webhooks_due")    // time(NextAttemptAt)|message id
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

// Sealed fields outside messages; the id in their additional data is the
// record's key, the field name keeps them apart from message fields.
const (
	fieldWebhookRecipient = "webhookRecipient"
	fieldWebhookSecret    = "webhookSecret"
	fieldWebhookError     = "webhookError"
)

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

// SettleMessage records a send's outcome and the webhook call it starts in
// one transaction, committed together with concurrent settlements (see
// commitGroup): a pass's workers share fsyncs.
func (s *DB) SettleMessage(ctx context.Context, id string, fn func(m *core.Message) (*core.WebhookCall, error)) (*core.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var m *core.Message
	err := s.settles.update(s.db, func(tx *bbolt.Tx) error {
		var err error
		if m, err = s.findMessage(tx, id); err != nil {
			return err
		}
		old := indexOf(m)
		call, err := fn(m)
		if err != nil {
			return err
		}
		if m.ID != id {
			return core.Errorf(core.EInvalid, "A message's id cannot change.")
		}
		if err := s.putMessage(tx, &old, m); err != nil {
			return err
		}
		if call != nil {
			return s.putWebhookCall(tx, call)
		}
		return nil
	})
	if err != nil {
		return nil, wrapErr(err)
	}
	return m, nil
}

// refusalKey is the keyed hash under which an address's refusal is stored:
// the address itself is never written.
func (s *DB) refusalKey(email string) []byte {
	mac := hmac.New(sha256.New, s.hashKey)
	mac.Write([]byte(core.EmailKey(email)))
	return mac.Sum(nil)
}

type refusalRecord struct {
	header
	At int64 `json:"at"`
}

// RefuseAddress records a refusal; refusing twice keeps the first time.
func (s *DB) RefuseAddress(ctx context.Context, email string, at time.Time) error {
	key := s.refusalKey(email)
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

func (s *DB) AddressRefused(ctx context.Context, email string) (bool, error) {
	key := s.refusalKey(email)
	refused := false
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		refused = tx.Bucket(bucketRefusals).Get(key) != nil
		return nil
	})
	return refused, err
}

type webhookRecord struct {
	header
	Kind          string `json:"kind,omitempty"`
	MessageID     string `json:"messageId"`
	Owner         string `json:"owner"`
	URL           string `json:"url"`
	Recipient     []byte `json:"recipient"`
	DeliveredAt   int64  `json:"deliveredAt"`
	Attempts      int    `json:"attempts,omitempty"`
	NextAttemptAt int64  `json:"nextAttemptAt"`
	LastError     []byte `json:"lastError,omitempty"`
}

// putWebhookCall writes c and moves its due entry.
func (s *DB) putWebhookCall(tx *bbolt.Tx, c *core.WebhookCall) error {
	if err := validID("message", c.MessageID); err != nil {
		return err
	}
	b, due := tx.Bucket(bucketWebhooks), tx.Bucket(bucketWebhooksDue)
	if old := b.Get([]byte(c.MessageID)); old != nil {
		var r webhookRecord
		if err := decode("webhook", old, &r); err != nil {
			return err
		}
		if err := due.Delete(timeID(fromUnixNano(r.NextAttemptAt), r.MessageID)); err != nil {
			return err
		}
	}
	r := webhookRecord{
		header: current, Kind: c.Kind, MessageID: c.MessageID, Owner: c.Owner, URL: c.URL,
		Recipient:   s.sealField(c.MessageID, fieldWebhookRecipient, c.Recipient),
		DeliveredAt: unixNano(c.DeliveredAt), Attempts: c.Attempts, NextAttemptAt: unixNano(c.NextAttemptAt),
	}
	if c.LastError != "" {
		r.LastError = s.sealField(c.MessageID, fieldWebhookError, c.LastError)
	}
	v, err := encode(r)
	if err != nil {
		return err
	}
	if err := b.Put([]byte(c.MessageID), v); err != nil {
		return err
	}
	return due.Put(timeID(c.NextAttemptAt, c.MessageID), nil)
}

func (s *DB) decodeWebhookCall(v []byte) (*core.WebhookCall, error) {
	var r webhookRecord
	if err := decode("webhook", v, &r); err != nil {
		return nil, err
	}
	c := &core.WebhookCall{
		Kind: r.Kind, MessageID: r.MessageID, Owner: r.Owner, URL: r.URL, DeliveredAt: fromUnixNano(r.DeliveredAt),
		Attempts: r.Attempts, NextAttemptAt: fromUnixNano(r.NextAttemptAt),
	}
	var err error
	if c.Recipient, err = s.openField(r.MessageID, fieldWebhookRecipient, r.Recipient); err != nil {
		return nil, err
	}
	if r.LastError != nil {
		if c.LastError, err = s.openField(r.MessageID, fieldWebhookError, r.LastError); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// ClaimWebhooks leases due webhook calls by moving their next attempt to
// leaseUntil, in one transaction; a crash lets the lease run out.
func (s *DB) ClaimWebhooks(ctx context.Context, now, leaseUntil time.Time, limit int) ([]*core.WebhookCall, error) {
	end := appendTime(nil, now)
	due := false
	if err := s.view(ctx, func(tx *bbolt.Tx) error {
		k, _ := tx.Bucket(bucketWebhooksDue).Cursor().First()
		due = k != nil && beforeOrAt(k, end)
		return nil
	}); err != nil || !due {
		return nil, err
	}
	var calls []*core.WebhookCall
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		calls = nil
		var keys [][]byte
		c := tx.Bucket(bucketWebhooksDue).Cursor()
		for k, _ := c.First(); k != nil && beforeOrAt(k, end) && len(keys) < limit; k, _ = c.Next() {
			keys = append(keys, bytes.Clone(k))
		}
		for _, k := range keys {
			v := tx.Bucket(bucketWebhooks).Get([]byte(idAfter(k, timeKeyLen)))
			if v == nil {
				return core.Errorf(core.EInternal, "A webhook index entry points at no call.")
			}
			call, err := s.decodeWebhookCall(v)
			if err != nil {
				return err
			}
			call.NextAttemptAt = leaseUntil
			if err := s.putWebhookCall(tx, call); err != nil {
				return err
			}
			calls = append(calls, call)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return calls, nil
}

// SettleWebhook deletes a finished call or stores its next attempt. The
// stored call's lease is replaced whatever it was.
func (s *DB) SettleWebhook(ctx context.Context, c *core.WebhookCall, done bool) error {
	return s.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketWebhooks)
		v := b.Get([]byte(c.MessageID))
		if v == nil {
			return nil
		}
		if !done {
			return s.putWebhookCall(tx, c)
		}
		var r webhookRecord
		if err := decode("webhook", v, &r); err != nil {
			return err
		}
		if err := tx.Bucket(bucketWebhooksDue).Delete(timeID(fromUnixNano(r.NextAttemptAt), r.MessageID)); err != nil {
			return err
		}
		return b.Delete([]byte(c.MessageID))
	})
}

func (s *DB) SetWebhookSecret(ctx context.Context, userID, secret string) error {
	if err := validID("user", userID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bbolt.Tx) error {
		if _, err := findUser(tx, userID); err != nil {
			return err
		}
		return tx.Bucket(bucketWebhookSecrets).Put([]byte(userID), s.sealField(userID, fieldWebhookSecret, secret))
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
		secret, err = s.openField(userID, fieldWebhookSecret, v)
		return err
	})
	return secret, err
}

// commitGroup commits concurrent updates together without waiting: a call
// finding no commit in flight starts one at once; calls arriving meanwhile
// are committed together right after it. Unlike bbolt's Batch it adds no
// delay, so a pass's workers, each waiting for its outcome to be recorded,
// are not held up by a timer. A function that fails is retried alone, so
// its error is its own and the others commit; functions may therefore run
// more than once.
type commitGroup struct {
	mu      sync.Mutex
	pending []*groupCall
	running bool
}

type groupCall struct {
	fn   func(tx *bbolt.Tx) error
	done chan error
}

func (g *commitGroup) update(db *bbolt.DB, fn func(tx *bbolt.Tx) error) error {
	c := &groupCall{fn: fn, done: make(chan error, 1)}
	g.mu.Lock()
	g.pending = append(g.pending, c)
	if !g.running {
		g.running = true
		go g.run(db)
	}
	g.mu.Unlock()
	return <-c.done
}

func (g *commitGroup) run(db *bbolt.DB) {
	for {
		g.mu.Lock()
		calls := g.pending
		g.pending = nil
		if len(calls) == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		failed := -1
		err := db.Update(func(tx *bbolt.Tx) error {
			for i, c := range calls {
				if err := c.fn(tx); err != nil {
					failed = i
					return err
				}
			}
			return nil
		})
		if err == nil {
			for _, c := range calls {
				c.done <- nil
			}
			continue
		}
		if failed < 0 { // the commit itself failed
			for _, c := range calls {
				c.done <- err
			}
			continue
		}
		for _, c := range calls {
			c.done <- db.Update(c.fn)
		}
	}
}

package bolt

import (
	"bytes"
	"context"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
	"go.etcd.io/bbolt"
)

// The calls that follow a message's outcome (webhooks, failure notices),
// queued with the outcome and retried, and the users' webhook secrets.

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

// putWebhookCall seals c and writes it.
func (s *DB) putWebhookCall(tx *bbolt.Tx, c *core.WebhookCall) error {
	sc := s.seal.SealWebhookCall(c)
	return putSealedWebhookCall(tx, &sc)
}

// putSealedWebhookCall writes a sealed call and moves its due entry.
func putSealedWebhookCall(tx *bbolt.Tx, sc *seal.WebhookCall) error {
	c := &sc.Plain
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
	v, err := encode(webhookRecordOf(sc))
	if err != nil {
		return err
	}
	if err := b.Put([]byte(c.MessageID), v); err != nil {
		return err
	}
	return due.Put(timeID(c.NextAttemptAt, c.MessageID), nil)
}

// webhookRecordOf is the stored form of a sealed call.
func webhookRecordOf(sc *seal.WebhookCall) webhookRecord {
	c := &sc.Plain
	return webhookRecord{
		header: current, Kind: c.Kind, MessageID: c.MessageID, Owner: c.Owner, URL: c.URL,
		Recipient: sc.Recipient, DeliveredAt: unixNano(c.DeliveredAt), Attempts: c.Attempts,
		NextAttemptAt: unixNano(c.NextAttemptAt), LastError: sc.LastError,
	}
}

// sealedCall is the sealed call r holds.
func (r *webhookRecord) sealedCall() seal.WebhookCall {
	return seal.WebhookCall{
		Plain: core.WebhookCall{
			Kind: r.Kind, MessageID: r.MessageID, Owner: r.Owner, URL: r.URL, DeliveredAt: fromUnixNano(r.DeliveredAt),
			Attempts: r.Attempts, NextAttemptAt: fromUnixNano(r.NextAttemptAt),
		},
		Recipient: r.Recipient, LastError: r.LastError,
	}
}

func (s *DB) decodeWebhookCall(v []byte) (*core.WebhookCall, error) {
	var r webhookRecord
	if err := decode("webhook", v, &r); err != nil {
		return nil, err
	}
	sc := r.sealedCall()
	return s.seal.OpenWebhookCall(&sc)
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

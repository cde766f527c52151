package bolt

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

// bucketDurableLimits keeps the events of the limits a restart must not
// forget (schema version 19): the providers' webhook ids that refuse a
// replay (core.LimitWebhookSeen), whose window outlasts a restart. key ->
// JSON of the key's unexpired events, oldest first; the sweep
// (DeleteExpiredLimitEvents) drops the expired.
var bucketDurableLimits = []byte("limit_events")

// durableLimit reports whether key's events are kept in the file.
func durableLimit(key string) bool { return strings.HasPrefix(key, core.LimitWebhookSeen.Name+":") }

func readLimitEvents(b *bbolt.Bucket, key string) ([]core.LimitEvent, error) {
	v := b.Get([]byte(key))
	if v == nil {
		return nil, nil
	}
	var events []core.LimitEvent
	if err := json.Unmarshal(v, &events); err != nil {
		return nil, err
	}
	return events, nil
}

func writeLimitEvents(b *bbolt.Bucket, key string, events []core.LimitEvent) error {
	if len(events) == 0 {
		return b.Delete([]byte(key))
	}
	v, err := json.Marshal(events)
	if err != nil {
		return err
	}
	return b.Put([]byte(key), v)
}

// hitDurable is HitLimit for a durable key, committed with the concurrent
// bounces (commitGroup, with a bounce's patience): webhook ids arriving
// together share an fsync.
func (s *DB) hitDurable(key string, e core.LimitEvent, now time.Time) ([]core.LimitEvent, error) {
	var out []core.LimitEvent
	err := s.commits.update(s.db, bouncePatience, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketDurableLimits)
		events, err := readLimitEvents(b, key)
		if err != nil {
			return err
		}
		events = slices.DeleteFunc(live(events, now), func(x core.LimitEvent) bool { return x.ID == e.ID })
		i, _ := slices.BinarySearchFunc(events, e, compareEvents)
		events = slices.Insert(events, i, e)
		if n := len(events); n > maxLimitEventsPerKey {
			events = slices.Delete(events, 0, n-maxLimitEventsPerKey)
		}
		events = live(events, now)
		out = append([]core.LimitEvent{}, events...)
		return writeLimitEvents(b, key, events)
	})
	return out, wrapErr(err)
}

func (s *DB) durableEvents(ctx context.Context, key string, now time.Time) ([]core.LimitEvent, error) {
	var out []core.LimitEvent
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		events, err := readLimitEvents(tx.Bucket(bucketDurableLimits), key)
		out = append([]core.LimitEvent{}, live(events, now)...)
		return err
	})
	return out, err
}

func (s *DB) clearDurable(ctx context.Context, key string, ids []string) error {
	return s.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketDurableLimits)
		if len(ids) == 0 {
			return b.Delete([]byte(key))
		}
		events, err := readLimitEvents(b, key)
		if err != nil {
			return err
		}
		return writeLimitEvents(b, key, slices.DeleteFunc(events, func(e core.LimitEvent) bool { return slices.Contains(ids, e.ID) }))
	})
}

// sweepDurable drops the expired durable events: one pass over the bucket.
func (s *DB) sweepDurable(ctx context.Context, now time.Time) (int, error) {
	n := 0
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		n = 0
		b := tx.Bucket(bucketDurableLimits)
		type change struct {
			key    string
			events []core.LimitEvent
		}
		var changes []change
		err := b.ForEach(func(k, v []byte) error {
			var events []core.LimitEvent
			if err := json.Unmarshal(v, &events); err != nil {
				return err
			}
			kept := live(slices.Clone(events), now)
			if len(kept) != len(events) {
				n += len(events) - len(kept)
				changes = append(changes, change{string(k), kept})
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, c := range changes {
			if err := writeLimitEvents(b, c.key, c.events); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
	"go.etcd.io/bbolt"
)

// bucketEvents holds messages' timelines: id|"|"|seq (uint64 big-endian,
// the bucket's sequence) -> eventRecord, so a message's entries are one
// range in the order they were written (schema version 9).
var bucketEvents = []byte("message_events")

func createEventBucket(tx *bbolt.Tx) error {
	_, err := tx.CreateBucketIfNotExists(bucketEvents)
	return err
}

// eventRecord is a timeline entry: recipient and detail sealed.
type eventRecord struct {
	At            int64  `json:"at"`
	Kind          string `json:"kind"`
	Actor         string `json:"actor,omitempty"`
	Recipient     []byte `json:"recipient,omitempty"`
	Detail        []byte `json:"detail,omitempty"`
	NextAttemptAt int64  `json:"nextAttemptAt,omitempty"`
}

func eventPrefix(messageID string) []byte { return append([]byte(messageID), '|') }

// putEvents appends m's pending events and clears them.
func (s *DB) putEvents(tx *bbolt.Tx, m *core.Message) error {
	if len(m.Events) == 0 {
		return nil
	}
	b := tx.Bucket(bucketEvents)
	for i := range m.Events {
		e := m.Events[i]
		e.MessageID = m.ID
		if err := s.putEvent(b, s.seal.SealEvent(&e)); err != nil {
			return err
		}
	}
	m.Events = nil
	return nil
}

func (s *DB) putEvent(b *bbolt.Bucket, se seal.Event) error {
	seq, err := b.NextSequence()
	if err != nil {
		return err
	}
	se.Seq = int64(seq)
	key, v, err := encodeEvent(&se)
	if err != nil {
		return err
	}
	return b.Put(key, v)
}

// encodeEvent is a sealed event's key and stored record.
func encodeEvent(se *seal.Event) (key, v []byte, err error) {
	e := &se.Plain
	if err := core.ValidID("message", e.MessageID); err != nil {
		return nil, nil, err
	}
	v, err = json.Marshal(eventRecord{At: unixNano(e.At), Kind: string(e.Kind), Actor: e.Actor,
		Recipient: se.Recipient, Detail: se.Detail, NextAttemptAt: unixNano(e.NextAttemptAt)})
	return binary.BigEndian.AppendUint64(eventPrefix(e.MessageID), uint64(se.Seq)), v, err
}

// decodeEvent reads a stored event, its sealed fields copied out of the
// file.
func decodeEvent(k, v []byte) (*seal.Event, error) {
	var r eventRecord
	if err := json.Unmarshal(v, &r); err != nil || len(k) < 9 || k[len(k)-9] != '|' {
		return nil, fmt.Errorf("decode timeline event %x: %v", k, err)
	}
	return &seal.Event{
		Plain: core.MessageEvent{MessageID: string(k[:len(k)-9]), At: fromUnixNano(r.At), Kind: core.EventKind(r.Kind),
			Actor: r.Actor, NextAttemptAt: fromUnixNano(r.NextAttemptAt)},
		Recipient: bytes.Clone(r.Recipient), Detail: bytes.Clone(r.Detail), Seq: int64(binary.BigEndian.Uint64(k[len(k)-8:])),
	}, nil
}

// deleteEvents removes a message's timeline with it.
func deleteEvents(tx *bbolt.Tx, messageID string) error {
	c := tx.Bucket(bucketEvents).Cursor()
	prefix := eventPrefix(messageID)
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// sealedEvents reads a message's timeline, still sealed.
func sealedEvents(tx *bbolt.Tx, messageID string) ([]seal.Event, error) {
	var out []seal.Event
	c := tx.Bucket(bucketEvents).Cursor()
	prefix := eventPrefix(messageID)
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		se, err := decodeEvent(k, v)
		if err != nil {
			return nil, err
		}
		out = append(out, *se)
	}
	return out, nil
}

// ListMessageEvents reads the message's timeline, oldest first.
func (s *DB) ListMessageEvents(ctx context.Context, messageID string) ([]*core.MessageEvent, error) {
	var sealed []seal.Event
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		sealed, err = sealedEvents(tx, messageID)
		return err
	})
	if err != nil {
		return nil, wrapErr(err)
	}
	out := make([]*core.MessageEvent, 0, len(sealed))
	for i := range sealed {
		e, err := s.seal.OpenEvent(&sealed[i])
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

package bolt

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
	"go.etcd.io/bbolt"
)

// bucketBounceMarks holds the recipients' bounce marks (issue 31), beside
// their messages: id|"|"|AddressHash -> bounceMarkRecord (schema version
// 19), so a mark is one small write and a message's marks one range.
var bucketBounceMarks = []byte("bounce_marks")

// bounceMarkRecord is a mark: address, status and reason sealed.
type bounceMarkRecord struct {
	At          int64  `json:"at,omitempty"`
	Email       int    `json:"email,omitempty"`
	SoftBounces int    `json:"soft,omitempty"`
	Sealed      []byte `json:"sealed"`
}

func bounceMarkPrefix(messageID string) []byte { return append([]byte(messageID), '|') }

func encodeBounceMark(sk *seal.BounceMark) (key, v []byte, err error) {
	if err := core.ValidID("message", sk.MessageID); err != nil {
		return nil, nil, err
	}
	v, err = json.Marshal(bounceMarkRecord{At: sk.At, Email: sk.Email, SoftBounces: sk.SoftBounces, Sealed: sk.Sealed})
	return append(bounceMarkPrefix(sk.MessageID), sk.Hash...), v, err
}

func decodeBounceMark(k, v []byte) (*seal.BounceMark, error) {
	id, hash, ok := bytes.Cut(k, []byte{'|'})
	var r bounceMarkRecord
	if !ok || len(hash) == 0 {
		return nil, fmt.Errorf("bounce mark: a key of an unknown form")
	}
	if err := json.Unmarshal(v, &r); err != nil {
		return nil, fmt.Errorf("bounce mark: %w", err)
	}
	return &seal.BounceMark{MessageID: string(id), Hash: bytes.Clone(hash), At: r.At, Email: r.Email,
		SoftBounces: r.SoftBounces, Sealed: r.Sealed}, nil
}

// putBounceMark writes k over the mark of its message and address.
func (s *DB) putBounceMark(tx *bbolt.Tx, k *core.BounceMark) error {
	sk := s.seal.SealBounceMark(k)
	key, v, err := encodeBounceMark(&sk)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketBounceMarks).Put(key, v)
}

// createBounceMarks is version 19: the marks leave the messages' sealed
// recipient lists for records of their own. Every message is read once;
// only those holding marks are written again. The durable limit events
// (limits_durable.go) start here too.
func (s *DB) createBounceMarks(tx *bbolt.Tx) error {
	for _, name := range [][]byte{bucketBounceMarks, bucketDurableLimits} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	b := tx.Bucket(bucketMessages)
	var moved []*core.Message
	err := b.ForEach(func(k, v []byte) error {
		m, err := s.openMessage(string(k), v)
		if err != nil {
			return err
		}
		for _, mark := range core.MarksOf(m) {
			if err := s.putBounceMark(tx, mark); err != nil {
				return err
			}
		}
		if core.StripMarks(m) {
			moved = append(moved, m)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, m := range moved { // the record only: its index entries stay
		if err := b.Put([]byte(m.ID), s.encodeMessage(m)); err != nil {
			return err
		}
	}
	return nil
}

// bouncePatience: a bounce lets its commit group gather longer than a
// settlement: DSNs arrive one by one (500 a second is 2 ms apart), and a
// commit each would take bbolt's one writer, and an fsync, 500 times a
// second. Gathered until 2 ms pass without one, or 10 ms, several share
// a commit; a DSN's sender waits up to 10 ms longer for its reply, which
// SMTP does not notice. Beside a delivery pass the marks ride its
// settlements' commits, whose shorter patience then rules (commitGroup).
// A longer gap (4 ms, 20 ms) cut bbolt's BenchmarkBounceProcessing, whose
// 8 connections each wait for their reply (docs/benchmarks-history.md).
var bouncePatience = patience{gap: 2 * time.Millisecond, most: 10 * time.Millisecond}

// RecordBounce writes a bounce beside its message, committed with the
// concurrent bounces and settlements (commitGroup): the message is read,
// not written.
func (s *DB) RecordBounce(ctx context.Context, id string, fn func(m *core.Message) (*core.BounceWrite, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return wrapErr(s.commits.update(s.db, bouncePatience, func(tx *bbolt.Tx) error {
		m, err := s.findMessage(tx, id)
		if err != nil {
			return err
		}
		w, err := fn(m)
		if err != nil || w == nil {
			return err
		}
		if w.Marks() {
			var old *core.BounceMark
			key := append(bounceMarkPrefix(id), s.seal.AddressHash(w.Address)...)
			if v := tx.Bucket(bucketBounceMarks).Get(key); v != nil {
				if old, err = s.openBounceMark(key, v); err != nil {
					return err
				}
			}
			if err := s.putBounceMark(tx, core.ApplyBounceWrite(old, id, w)); err != nil {
				return err
			}
		}
		if w.Event != nil {
			e := *w.Event
			e.MessageID = id
			if err := s.putEvent(tx.Bucket(bucketEvents), s.seal.SealEvent(&e)); err != nil {
				return err
			}
		}
		for _, item := range w.Outbox {
			if err := s.putOutboxItem(tx, item); err != nil {
				return err
			}
		}
		s.changed(tx, m.Owner)
		return nil
	}))
}

func (s *DB) openBounceMark(k, v []byte) (*core.BounceMark, error) {
	sk, err := decodeBounceMark(k, v)
	if err != nil {
		return nil, err
	}
	return s.seal.OpenBounceMark(sk)
}

// ListBounceMarks reads the marks of the messages ids: a seek each.
func (s *DB) ListBounceMarks(ctx context.Context, ids []string) ([]*core.BounceMark, error) {
	var out []*core.BounceMark
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketBounceMarks).Cursor()
		for _, id := range ids {
			prefix := bounceMarkPrefix(id)
			for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
				mark, err := s.openBounceMark(k, v)
				if err != nil {
					return err
				}
				out = append(out, mark)
			}
		}
		return nil
	})
	return out, err
}

// deleteBounceMarks removes a message's marks whose address is not in
// keep (by keyed hash); nil keep: all of them.
func (s *DB) deleteBounceMarks(tx *bbolt.Tx, messageID string, keep [][]byte) error {
	b := tx.Bucket(bucketBounceMarks)
	prefix := bounceMarkPrefix(messageID)
	var gone [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if !containsBytes(keep, k[len(prefix):]) {
			gone = append(gone, bytes.Clone(k))
		}
	}
	for _, k := range gone {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

func containsBytes(list [][]byte, b []byte) bool {
	for _, x := range list {
		if bytes.Equal(x, b) {
			return true
		}
	}
	return false
}

// addressKeys is the set of a message's recipients' addresses as the
// marks are keyed (core.EmailKey), for an edit's comparison.
func addressKeys(m *core.Message) []string {
	rs := m.RecipientList()
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = core.EmailKey(r.Address)
	}
	return out
}

// pruneBounceMarks drops the marks of every address but those kept by an
// edit of m (before held the addresses before it): editing an address
// clears its mark. Nothing is read when the addresses did not change.
func (s *DB) pruneBounceMarks(tx *bbolt.Tx, before []string, m *core.Message) error {
	after := addressKeys(m)
	if strings.Join(before, "\n") == strings.Join(after, "\n") {
		return nil
	}
	// Only the addresses kept keep their marks: an address added is new
	// and starts clean (as on PostgreSQL, where a bounce may race an edit).
	keep := make([][]byte, 0, len(after))
	for _, a := range after {
		if slices.Contains(before, a) {
			keep = append(keep, s.seal.AddressHash(a))
		}
	}
	return s.deleteBounceMarks(tx, m.ID, keep)
}

package bolt

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

// CreateMessage stores m after check approved it with the owner and the
// number of messages they hold, in the same transaction. Concurrent creates
// are committed together (bbolt's Batch), so the function below may run more
// than once: it only reads the store and writes m's derived fields.
func (s *DB) CreateMessage(ctx context.Context, m *core.Message, check func(owner *core.User, hasMessages bool) error) error {
	if err := core.ValidID("message", m.ID); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	end := s.traces.Start(ctx, "write")
	err := s.createMessage(m, check)
	end(err)
	return err
}

// createMessage is CreateMessage in a batched write transaction.
func (s *DB) createMessage(m *core.Message, check func(owner *core.User, hasMessages bool) error) error {
	return wrapErr(s.db.Batch(func(tx *bbolt.Tx) error {
		owner, err := s.findUser(tx, m.Owner)
		if err != nil {
			return err
		}
		if tx.Bucket(bucketMessages).Get([]byte(m.ID)) != nil {
			return core.ErrMessageExists()
		}
		if m.IdempotencyKey != "" && idempotentMessageID(tx, m.Owner, m.IdempotencyKey) != "" {
			return core.ErrIdempotencyKeyUsed()
		}
		if check != nil {
			// One seek, whatever the owner holds: creates stay fast for
			// authors with many messages.
			prefix := ownerPrefix(m.Owner)
			k, _ := tx.Bucket(bucketMessagesByOwner).Cursor().Seek(prefix)
			if err := check(owner, k != nil && bytes.HasPrefix(k, prefix)); err != nil {
				return err
			}
		}
		return s.putMessage(tx, nil, m)
	}))
}

// idempotentMessageID is the id of the owner's message made with key, or "".
func idempotentMessageID(tx *bbolt.Tx, owner, key string) string {
	prefix := idempotencyPrefix(owner, key)
	k, _ := tx.Bucket(bucketMessagesByIdempotency).Cursor().Seek(prefix)
	if k == nil || !bytes.HasPrefix(k, prefix) {
		return ""
	}
	return idAfter(k, len(prefix))
}

// FindMessageByIdempotencyKey seeks the owner's key in its index.
func (s *DB) FindMessageByIdempotencyKey(ctx context.Context, owner, key string) (*core.Message, error) {
	var m *core.Message
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		id := ""
		if key != "" {
			id = idempotentMessageID(tx, owner, key)
		}
		if id == "" {
			return core.ErrMessageNotFound()
		}
		var err error
		m, err = s.findMessage(tx, id)
		return err
	})
	return m, err
}

func (s *DB) FindMessageByID(ctx context.Context, id string) (*core.Message, error) {
	var m *core.Message
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		m, err = s.findMessage(tx, id)
		return err
	})
	return m, err
}

// ListMessages lists one owner's messages, or everyone's when f.Owner is
// empty, newest first, from past f.After, with the total before paging. An owner's page reads
// only that owner's index entries and the page's records.
func (s *DB) ListMessages(ctx context.Context, f core.MessageFilter) ([]*core.Message, int, error) {
	msgs := []*core.Message{}
	total := 0
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		index, prefix := tx.Bucket(bucketMessagesByCreated), []byte(nil)
		if f.Owner != "" {
			index, prefix = tx.Bucket(bucketMessagesByOwner), ownerPrefix(f.Owner)
		}
		idAt := len(prefix) + timeKeyLen
		var after []byte // the cursor's key: the page starts past it
		if f.After != nil {
			after = append(appendNewestFirst(bytes.Clone(prefix), f.After.CreatedAt), f.After.ID...)
		}
		records := tx.Bucket(bucketMessages).Cursor()
		c := index.Cursor()
		past := 0 // entries past the cursor
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			total++
			if after != nil && bytes.Compare(k, after) <= 0 {
				continue
			}
			if inPage(past, f.Offset, f.Limit) {
				m, err := s.indexedMessage(records, idAfter(k, idAt))
				if err != nil {
					return err
				}
				msgs = append(msgs, m)
			}
			past++
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return msgs, total, nil
}

// CountMessages counts the owner's index entries; no record is read.
func (s *DB) CountMessages(ctx context.Context, owner string) (int, error) {
	n := 0
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		n = countPrefix(tx.Bucket(bucketMessagesByOwner), ownerPrefix(owner))
		return nil
	})
	return n, err
}

// UpdateMessage applies fn in one transaction, then reschedules the message
// and moves its index entries. The id cannot change.
func (s *DB) UpdateMessage(ctx context.Context, id string, fn func(m *core.Message) error) (*core.Message, error) {
	var m *core.Message
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		var err error
		if m, err = s.findMessage(tx, id); err != nil {
			return err
		}
		old, addresses := indexOf(m), addressKeys(m)
		if err := fn(m); err != nil {
			return err
		}
		if err := m.CheckUpdate(id); err != nil {
			return err
		}
		if err := s.pruneBounceMarks(tx, addresses, m); err != nil {
			return err
		}
		return s.putMessage(tx, &old, m)
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func (s *DB) DeleteMessage(ctx context.Context, id string) error {
	return s.update(ctx, func(tx *bbolt.Tx) error { return s.deleteMessage(tx, id) })
}

// DueMessages reads the due index from its start up to until: the cost is
// what is due, not what is stored. limit <= 0 means no limit.
func (s *DB) DueMessages(ctx context.Context, until time.Time, limit int) ([]*core.Message, error) {
	return s.due(ctx, bucketDue, until, limit)
}

// DueReminders is DueMessages over the reminder index.
func (s *DB) DueReminders(ctx context.Context, until time.Time, limit int) ([]*core.Message, error) {
	return s.due(ctx, bucketRemind, until, limit)
}

func (s *DB) due(ctx context.Context, bucket []byte, until time.Time, limit int) ([]*core.Message, error) {
	var msgs []*core.Message
	end := appendTime(nil, until)
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucket).Cursor()
		for k, _ := c.First(); k != nil && beforeOrAt(k, end) && (limit <= 0 || len(msgs) < limit); k, _ = c.Next() {
			m, err := s.findIndexedMessage(tx, idAfter(k, timeKeyLen))
			if err != nil {
				return err
			}
			msgs = append(msgs, m)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return msgs, nil
}

func (s *DB) findMessage(tx *bbolt.Tx, id string) (*core.Message, error) {
	v := tx.Bucket(bucketMessages).Get([]byte(id))
	if v == nil {
		return nil, core.ErrMessageNotFound()
	}
	return s.decodeMessage(id, v)
}

// findIndexedMessage reads a message an index points at; a missing record
// means the index is damaged, which is an internal error, not a not-found.
func (s *DB) findIndexedMessage(tx *bbolt.Tx, id string) (*core.Message, error) {
	return s.indexedMessage(tx.Bucket(bucketMessages).Cursor(), id)
}

// indexedMessage is findIndexedMessage with a cursor over the messages
// bucket, which a loop reuses.
func (s *DB) indexedMessage(records *bbolt.Cursor, id string) (*core.Message, error) {
	k, v := records.Seek([]byte(id))
	if k == nil || string(k) != id {
		return nil, fmt.Errorf("index entry for missing message %q", id)
	}
	return s.decodeMessage(id, v)
}

// putMessage reschedules m and writes it over old (nil for a new message).
func (s *DB) putMessage(tx *bbolt.Tx, old *messageIndex, m *core.Message) error {
	m.Reschedule(s.reminders)
	if err := s.putEvents(tx, m); err != nil {
		return err
	}
	return s.putMessageRecord(tx, old, indexOf(m), s.encodeMessage(m))
}

// putMessageRecord writes a message's stored record v and moves its index
// entries from old (nil for a new message) to next. Every message write goes
// through here, which tells the owner's watchers after the commit.
func (s *DB) putMessageRecord(tx *bbolt.Tx, old *messageIndex, next messageIndex, v []byte) error {
	s.changed(tx, next.owner)
	if err := tx.Bucket(bucketMessages).Put([]byte(next.id), v); err != nil {
		return err
	}
	entries := next.entries()
	if old != nil {
		for i, e := range old.entries() {
			if e.key != nil && !bytes.Equal(e.key, entries[i].key) {
				if err := tx.Bucket(e.bucket).Delete(e.key); err != nil {
					return err
				}
			}
		}
	}
	for _, e := range entries {
		if e.key != nil {
			if err := tx.Bucket(e.bucket).Put(e.key, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// deleteMessage removes the record and its index entries, and tells the
// owner's watchers after the commit. It reads the record's plain fields
// only: no decryption.
func (s *DB) deleteMessage(tx *bbolt.Tx, id string) error {
	b := tx.Bucket(bucketMessages)
	v := b.Get([]byte(id))
	if v == nil {
		return core.ErrMessageNotFound()
	}
	var r messageRecord
	if err := r.unmarshal(v); err != nil {
		return err
	}
	s.changed(tx, r.Owner)
	if err := deleteEvents(tx, id); err != nil {
		return err
	}
	if err := s.deleteBounceMarks(tx, id, nil); err != nil {
		return err
	}
	if err := tx.Bucket(bucketDrafts).Delete(ownerID(r.Owner, id)); err != nil {
		return err
	}
	if err := s.deleteMessageAttachments(tx, id); err != nil {
		return err
	}
	for _, e := range r.index().entries() {
		if e.key != nil {
			if err := tx.Bucket(e.bucket).Delete(e.key); err != nil {
				return err
			}
		}
	}
	return b.Delete([]byte(id))
}

// messageIndex is what a message's index entries are made of.
type messageIndex struct {
	id, owner                  string
	createdAt, dueAt, remindAt time.Time
	idempotencyKey             string
}

func indexOf(m *core.Message) messageIndex {
	return messageIndex{m.ID, m.Owner, m.CreatedAt, m.DueAt, m.RemindAt, m.IdempotencyKey}
}

func (r *messageRecord) index() messageIndex {
	return messageIndex{string(r.ID), r.Owner, fromUnixNano(r.CreatedAt), fromUnixNano(r.DueAt), fromUnixNano(r.RemindAt), r.IdempotencyKey}
}

// idempotencyPrefix is the start of the idempotency index keys of an
// owner's key: ownerPrefix|key|, then the message's id.
func idempotencyPrefix(owner, key string) []byte {
	return append(append(ownerPrefix(owner), key...), '|')
}

type indexEntry struct {
	bucket []byte
	key    []byte // nil: not indexed
}

// entries lists the message's keys in every index, always in the same order;
// a zero DueAt or RemindAt, or no idempotency key, keeps the message out of
// that index.
func (x messageIndex) entries() [5]indexEntry {
	e := [5]indexEntry{
		{bucketMessagesByOwner, ownerNewestFirstID(x.owner, x.createdAt, x.id)},
		{bucketMessagesByCreated, newestFirstID(x.createdAt, x.id)},
		{bucket: bucketDue},
		{bucket: bucketRemind},
		{bucket: bucketMessagesByIdempotency},
	}
	if x.idempotencyKey != "" {
		e[4].key = append(idempotencyPrefix(x.owner, x.idempotencyKey), x.id...)
	}
	if !x.dueAt.IsZero() {
		e[2].key = timeID(x.dueAt, x.id)
	}
	if !x.remindAt.IsZero() {
		e[3].key = timeID(x.remindAt, x.id)
	}
	return e
}

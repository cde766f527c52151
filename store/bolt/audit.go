package bolt

import (
	"context"
	"time"

	"go.etcd.io/bbolt"

	"github.com/sendlater/sendlater/core"
)

var bucketAudit = []byte("audit") // time(At)|id -> auditRecord

// createAuditBucket is version 11: the audit log.
func createAuditBucket(tx *bbolt.Tx) error {
	_, err := tx.CreateBucketIfNotExists(bucketAudit)
	return err
}

type auditRecord struct {
	header
	ID     string `json:"id"`
	At     int64  `json:"at"`
	Actor  string `json:"actor"`
	Action string `json:"action"`
	Target string `json:"target,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// encodeAudit is e's key and stored bytes.
func encodeAudit(e *core.AuditEntry) (key, v []byte, err error) {
	if err := core.ValidID("audit entry", e.ID); err != nil {
		return nil, nil, err
	}
	v, err = encode(auditRecord{header: current, ID: e.ID, At: unixNano(e.At), Actor: e.Actor,
		Action: e.Action, Target: e.Target, Detail: e.Detail})
	return timeID(e.At, e.ID), v, err
}

func decodeAudit(v []byte) (*core.AuditEntry, error) {
	var r auditRecord
	if err := decode("audit entry", v, &r); err != nil {
		return nil, err
	}
	return &core.AuditEntry{ID: r.ID, At: fromUnixNano(r.At), Actor: r.Actor,
		Action: r.Action, Target: r.Target, Detail: r.Detail}, nil
}

// AppendAudit adds an entry to the audit log, giving it a new id when it
// has none.
func (s *DB) AppendAudit(ctx context.Context, e *core.AuditEntry) error {
	if e.ID == "" {
		e.ID = core.NewID()
	}
	key, v, err := encodeAudit(e)
	if err != nil {
		return err
	}
	return s.update(ctx, func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketAudit).Put(key, v)
	})
}

// ListAudit returns the entries at or after since, oldest first, at most
// limit (0: all).
func (s *DB) ListAudit(ctx context.Context, since time.Time, limit int) ([]*core.AuditEntry, error) {
	es := []*core.AuditEntry{}
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketAudit).Cursor()
		k, v := c.First()
		if !since.IsZero() {
			k, v = c.Seek(appendTime(nil, since))
		}
		for ; k != nil && (limit <= 0 || len(es) < limit); k, v = c.Next() {
			e, err := decodeAudit(v)
			if err != nil {
				return err
			}
			es = append(es, e)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return es, nil
}

package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/transfer"
)

// bucketDrafts holds the authors' drafts (schema version 12):
// ownerPrefix|key -> updatedAt (int64 nanoseconds, big-endian)|sealed
// contents (seal.SealDraft). DeleteMessage deletes its message's draft,
// DeleteUser every draft of the user.
var bucketDrafts = []byte("drafts")

// createDraftBucket is version 12.
func createDraftBucket(tx *bbolt.Tx) error {
	_, err := tx.CreateBucketIfNotExists(bucketDrafts)
	return err
}

// PutDraft creates or replaces the draft of d.Owner and d.Key.
func (s *DB) PutDraft(ctx context.Context, d *core.Draft) error {
	if err := core.ValidID("user", d.Owner); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketUsers).Get([]byte(d.Owner)) == nil {
			return core.ErrUserNotFound()
		}
		return tx.Bucket(bucketDrafts).Put(ownerID(d.Owner, d.Key), draftValue(d.UpdatedAt, s.seal.SealDraft(d)))
	})
}

// Draft returns the draft of owner and key.
func (s *DB) Draft(ctx context.Context, owner, key string) (*core.Draft, error) {
	var d *core.Draft
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		v := tx.Bucket(bucketDrafts).Get(ownerID(owner, key))
		if len(v) < 8 {
			return core.ErrDraftNotFound()
		}
		d = &core.Draft{Owner: owner, Key: key, UpdatedAt: time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC()}
		return s.seal.OpenDraft(d, v[8:])
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// DeleteDraft deletes the draft of owner and key, if there is one.
func (s *DB) DeleteDraft(ctx context.Context, owner, key string) error {
	return s.update(ctx, func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketDrafts).Delete(ownerID(owner, key))
	})
}

// deleteUserDrafts deletes every draft of the user (DeleteUser).
func deleteUserDrafts(tx *bbolt.Tx, userID string) error {
	b := tx.Bucket(bucketDrafts)
	for _, k := range prefixKeys(b, ownerPrefix(userID)) {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// exportDraft is the draft stored as v under k (ownerPrefix|key), its
// contents still sealed.
func exportDraft(k, v []byte) (*transfer.Draft, error) {
	if len(k) < 2 || len(k) < 2+int(binary.BigEndian.Uint16(k)) || len(v) < 8 {
		return nil, fmt.Errorf("decode draft %q: not an owner, a key, a time and contents", k)
	}
	n := 2 + int(binary.BigEndian.Uint16(k))
	return &transfer.Draft{Owner: string(k[2:n]), Key: string(k[n:]),
		UpdatedAt: time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC(), Sealed: bytes.Clone(v[8:])}, nil
}

// draftValue is how a draft is stored: its time, then its sealed contents.
func draftValue(updatedAt time.Time, sealed []byte) []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(updatedAt.UnixNano())), sealed...)
}

package bolt

import (
	"context"
	"encoding/binary"
	"time"

	"go.etcd.io/bbolt"

	"github.com/sendlater/sendlater/core"
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
		v := binary.BigEndian.AppendUint64(nil, uint64(d.UpdatedAt.UnixNano()))
		return tx.Bucket(bucketDrafts).Put(ownerID(d.Owner, d.Key), append(v, s.seal.SealDraft(d)...))
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

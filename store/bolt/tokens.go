package bolt

import (
	"cmp"
	"context"
	"slices"

	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

// CreateAccessToken stores t, giving it a new id when it has none. Its user
// must exist and its hash must be new.
func (s *DB) CreateAccessToken(ctx context.Context, t *core.AccessToken) error {
	if err := t.CheckNew(); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketTokens).Get([]byte(t.ID)) != nil {
			return core.ErrTokenExists()
		}
		if _, err := s.findUser(tx, t.UserID); err != nil {
			return err
		}
		return putToken(tx, nil, t)
	})
}

func (s *DB) FindAccessTokenByHash(ctx context.Context, hash string) (*core.AccessToken, error) {
	var t *core.AccessToken
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		if hash == "" {
			return core.ErrTokenNotFound()
		}
		id := tx.Bucket(bucketTokensByHash).Get([]byte(hash))
		if id == nil {
			return core.ErrTokenNotFound()
		}
		var err error
		t, err = findToken(tx, string(id))
		return err
	})
	return t, err
}

// ListAccessTokens lists the user's tokens, oldest first.
func (s *DB) ListAccessTokens(ctx context.Context, userID string) ([]*core.AccessToken, error) {
	ts := []*core.AccessToken{}
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		prefix := ownerPrefix(userID)
		for _, k := range prefixKeys(tx.Bucket(bucketTokensByUser), prefix) {
			t, err := findToken(tx, idAfter(k, len(prefix)))
			if err != nil {
				return err
			}
			ts = append(ts, t)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(ts, func(a, b *core.AccessToken) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return ts, nil
}

// UpdateAccessToken applies fn in one transaction; a changed hash or user
// moves the index entries. The id cannot change.
func (s *DB) UpdateAccessToken(ctx context.Context, id string, fn func(t *core.AccessToken) error) (*core.AccessToken, error) {
	var t *core.AccessToken
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		var err error
		if t, err = findToken(tx, id); err != nil {
			return err
		}
		old := *t
		if err := fn(t); err != nil {
			return err
		}
		if err := t.CheckUpdate(id); err != nil {
			return err
		}
		return putToken(tx, &old, t)
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

func (s *DB) DeleteAccessToken(ctx context.Context, id string) error {
	return s.update(ctx, func(tx *bbolt.Tx) error { return deleteToken(tx, id) })
}

func findToken(tx *bbolt.Tx, id string) (*core.AccessToken, error) {
	v := tx.Bucket(bucketTokens).Get([]byte(id))
	if v == nil {
		return nil, core.ErrTokenNotFound()
	}
	return decodeToken(v)
}

// putToken writes t and moves its index entries from old (nil when new).
func putToken(tx *bbolt.Tx, old, t *core.AccessToken) error {
	byHash, byUser := tx.Bucket(bucketTokensByHash), tx.Bucket(bucketTokensByUser)
	if old == nil || old.Hash != t.Hash {
		if holder := byHash.Get([]byte(t.Hash)); holder != nil && string(holder) != t.ID {
			return core.ErrTokenHashTaken()
		}
	}
	v, err := encodeToken(t)
	if err != nil {
		return err
	}
	if err := tx.Bucket(bucketTokens).Put([]byte(t.ID), v); err != nil {
		return err
	}
	if old != nil {
		if old.Hash != t.Hash {
			if err := deleteRef(byHash, []byte(old.Hash), t.ID); err != nil {
				return err
			}
		}
		if old.UserID != t.UserID {
			if err := byUser.Delete(ownerID(old.UserID, t.ID)); err != nil {
				return err
			}
		}
	}
	if err := byHash.Put([]byte(t.Hash), []byte(t.ID)); err != nil {
		return err
	}
	return byUser.Put(ownerID(t.UserID, t.ID), nil)
}

func deleteToken(tx *bbolt.Tx, id string) error {
	t, err := findToken(tx, id)
	if err != nil {
		return err
	}
	if err := deleteRef(tx.Bucket(bucketTokensByHash), []byte(t.Hash), id); err != nil {
		return err
	}
	if err := tx.Bucket(bucketTokensByUser).Delete(ownerID(t.UserID, id)); err != nil {
		return err
	}
	return tx.Bucket(bucketTokens).Delete([]byte(id))
}

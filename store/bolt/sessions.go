package bolt

import (
	"context"
	"slices"
	"time"

	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

// CreateSession stores x, giving it a new id when it has none. Its user must
// exist, so a session never outlives DeleteUser.
func (s *DB) CreateSession(ctx context.Context, x *core.Session) error {
	if err := core.AssignID("session", &x.ID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketSessions).Get([]byte(x.ID)) != nil {
			return core.ErrSessionExists()
		}
		if _, err := s.findUser(tx, x.UserID); err != nil {
			return err
		}
		return s.putSession(tx, nil, x)
	})
}

func (s *DB) FindSessionByID(ctx context.Context, id string) (*core.Session, error) {
	var x *core.Session
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		x, err = s.findSession(tx, id)
		return err
	})
	return x, err
}

// FindSessionByRefreshHash finds the session by its current refresh hash, or
// by one it rotated away from (rotated is then true).
func (s *DB) FindSessionByRefreshHash(ctx context.Context, hash string) (*core.Session, bool, error) {
	var x *core.Session
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		if hash == "" {
			return core.ErrSessionNotFound()
		}
		id := tx.Bucket(bucketSessionsByRefresh).Get([]byte(hash))
		if id == nil {
			return core.ErrSessionNotFound()
		}
		var err error
		x, err = s.findSession(tx, string(id))
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return x, x.RefreshHash != hash, nil
}

// UpdateSession applies fn in one transaction and re-indexes the refresh
// hashes it added or dropped. The id cannot change.
func (s *DB) UpdateSession(ctx context.Context, id string, fn func(x *core.Session) error) (*core.Session, error) {
	var x *core.Session
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		var err error
		if x, err = s.findSession(tx, id); err != nil {
			return err
		}
		old := *x
		old.RotatedHashes = slices.Clone(x.RotatedHashes)
		if err := fn(x); err != nil {
			return err
		}
		if err := x.CheckUpdate(id); err != nil {
			return err
		}
		return s.putSession(tx, &old, x)
	})
	if err != nil {
		return nil, err
	}
	return x, nil
}

func (s *DB) DeleteSession(ctx context.Context, id string) error {
	return s.update(ctx, func(tx *bbolt.Tx) error { return s.deleteSession(tx, id) })
}

// DeleteUserSessions deletes every session of the user except the one with
// id except (which may be empty).
func (s *DB) DeleteUserSessions(ctx context.Context, userID, except string) error {
	return s.update(ctx, func(tx *bbolt.Tx) error {
		prefix := ownerPrefix(userID)
		for _, k := range prefixKeys(tx.Bucket(bucketSessionsByUser), prefix) {
			if id := idAfter(k, len(prefix)); id != except {
				if err := s.deleteSession(tx, id); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// ListUserSessions lists every session of the user, by id.
func (s *DB) ListUserSessions(ctx context.Context, userID string) ([]*core.Session, error) {
	var xs []*core.Session
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		prefix := ownerPrefix(userID)
		for _, k := range prefixKeys(tx.Bucket(bucketSessionsByUser), prefix) {
			x, err := s.findSession(tx, idAfter(k, len(prefix)))
			if err != nil {
				return err
			}
			xs = append(xs, x)
		}
		return nil
	})
	return xs, err
}

func (s *DB) findSession(tx *bbolt.Tx, id string) (*core.Session, error) {
	v := tx.Bucket(bucketSessions).Get([]byte(id))
	if v == nil {
		return nil, core.ErrSessionNotFound()
	}
	return s.cachedSession(id, v, func() (*core.Session, error) { return decodeSession(v) })
}

// refreshHashes are the hashes under which a session is found.
func refreshHashes(x *core.Session) []string {
	hs := make([]string, 0, 1+len(x.RotatedHashes))
	if x.RefreshHash != "" {
		hs = append(hs, x.RefreshHash)
	}
	for _, h := range x.RotatedHashes {
		if h != "" {
			hs = append(hs, h)
		}
	}
	return hs
}

// putSession writes x and moves its index entries from old (nil when new).
// Every session write goes through here or deleteSession, which move the
// user's generation: a session check kept under it is made again.
func (s *DB) putSession(tx *bbolt.Tx, old, x *core.Session) error {
	s.moved(tx, x.UserID)
	if old != nil && old.UserID != x.UserID {
		s.moved(tx, old.UserID)
	}
	v, err := encodeSession(x)
	if err != nil {
		return err
	}
	if err := tx.Bucket(bucketSessions).Put([]byte(x.ID), v); err != nil {
		return err
	}
	byRefresh, byUser, byExpiry := tx.Bucket(bucketSessionsByRefresh), tx.Bucket(bucketSessionsByUser), tx.Bucket(bucketSessionsByExpiry)
	next := refreshHashes(x)
	if old != nil {
		if err := byExpiry.Delete(timeID(old.ExpiresAt, x.ID)); err != nil {
			return err
		}
		for _, h := range refreshHashes(old) {
			if !slices.Contains(next, h) {
				if err := deleteRef(byRefresh, []byte(h), x.ID); err != nil {
					return err
				}
			}
		}
		if old.UserID != x.UserID {
			if err := byUser.Delete(ownerID(old.UserID, x.ID)); err != nil {
				return err
			}
		}
	}
	for _, h := range next {
		if err := byRefresh.Put([]byte(h), []byte(x.ID)); err != nil {
			return err
		}
	}
	if err := byExpiry.Put(timeID(x.ExpiresAt, x.ID), nil); err != nil {
		return err
	}
	return byUser.Put(ownerID(x.UserID, x.ID), nil)
}

func (s *DB) deleteSession(tx *bbolt.Tx, id string) error {
	v := tx.Bucket(bucketSessions).Get([]byte(id))
	if v == nil {
		return core.ErrSessionNotFound()
	}
	x, err := decodeSession(v)
	if err != nil {
		return err
	}
	s.moved(tx, x.UserID)
	byRefresh := tx.Bucket(bucketSessionsByRefresh)
	for _, h := range refreshHashes(x) {
		if err := deleteRef(byRefresh, []byte(h), id); err != nil {
			return err
		}
	}
	if err := tx.Bucket(bucketSessionsByUser).Delete(ownerID(x.UserID, id)); err != nil {
		return err
	}
	if err := tx.Bucket(bucketSessionsByExpiry).Delete(timeID(x.ExpiresAt, id)); err != nil {
		return err
	}
	return tx.Bucket(bucketSessions).Delete([]byte(id))
}

// DeleteExpiredSessions removes the sessions whose ExpiresAt is before now,
// reading the expiry index up to now only.
func (s *DB) DeleteExpiredSessions(ctx context.Context, now time.Time) (int, error) {
	n := 0
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		end := appendTime(nil, now.Add(-1))
		var expired []string
		c := tx.Bucket(bucketSessionsByExpiry).Cursor()
		for k, _ := c.First(); k != nil && beforeOrAt(k, end); k, _ = c.Next() {
			expired = append(expired, idAfter(k, timeKeyLen))
		}
		for _, id := range expired {
			if err := s.deleteSession(tx, id); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// indexSessionExpiry is version 3: the expiry index of sessions, filled
// from the sessions stored so far.
func indexSessionExpiry(tx *bbolt.Tx) error {
	byExpiry, err := tx.CreateBucketIfNotExists(bucketSessionsByExpiry)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketSessions).ForEach(func(k, v []byte) error {
		x, err := decodeSession(v)
		if err != nil {
			return err
		}
		return byExpiry.Put(timeID(x.ExpiresAt, x.ID), nil)
	})
}

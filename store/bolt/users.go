package bolt

import (
	"context"

	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

// CreateUser stores u, giving it a new id when it has none. The email must
// not be in use by another user, whatever its case.
func (s *DB) CreateUser(ctx context.Context, u *core.User) error {
	if err := core.AssignID("user", &u.ID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bbolt.Tx) error { return s.createUser(tx, u) })
}

func (s *DB) createUser(tx *bbolt.Tx, u *core.User) error {
	if tx.Bucket(bucketUsers).Get([]byte(u.ID)) != nil {
		return core.ErrUserExists()
	}
	if err := indexEmail(tx, u.ID, "", u.Email); err != nil {
		return err
	}
	if err := indexCustomer(tx, u.ID, "", u.StripeCustomerID); err != nil {
		return err
	}
	return s.putUser(tx, u)
}

func (s *DB) FindUserByID(ctx context.Context, id string) (*core.User, error) {
	var u *core.User
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		u, err = s.findUser(tx, id)
		return err
	})
	return u, err
}

// FindUserByEmail finds the user whose email matches, whatever its case.
func (s *DB) FindUserByEmail(ctx context.Context, email string) (*core.User, error) {
	var u *core.User
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		id := userIDByEmail(tx, email)
		if id == "" {
			return core.ErrUserNotFound()
		}
		var err error
		u, err = s.findUser(tx, id)
		return err
	})
	return u, err
}

// UpdateUser applies fn in one transaction. A changed email moves its index
// entry and fails with EEmailInUse when another user holds it; the id cannot
// change.
func (s *DB) UpdateUser(ctx context.Context, id string, fn func(u *core.User) error) (*core.User, error) {
	var u *core.User
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		var err error
		u, err = s.updateUser(tx, id, fn)
		return err
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// updateUser applies fn to the user and writes it. Every change of a user
// goes through here, which tells their watchers (the live list shows the
// plan) after the commit.
func (s *DB) updateUser(tx *bbolt.Tx, id string, fn func(u *core.User) error) (*core.User, error) {
	u, err := s.findUser(tx, id)
	if err != nil {
		return nil, err
	}
	oldEmail, oldCustomer := u.Email, u.StripeCustomerID
	if err := fn(u); err != nil {
		return nil, err
	}
	if err := u.CheckUpdate(id); err != nil {
		return nil, err
	}
	if err := indexEmail(tx, id, oldEmail, u.Email); err != nil {
		return nil, err
	}
	if err := indexCustomer(tx, id, oldCustomer, u.StripeCustomerID); err != nil {
		return nil, err
	}
	return u, s.putUser(tx, u)
}

// DeleteUser deletes the user with their messages, sessions and access
// tokens, in one transaction.
func (s *DB) DeleteUser(ctx context.Context, id string) error {
	return s.update(ctx, func(tx *bbolt.Tx) error {
		u, err := s.findUser(tx, id)
		if err != nil {
			return err
		}
		s.changed(tx, id)
		prefix := ownerPrefix(id)
		for _, k := range prefixKeys(tx.Bucket(bucketMessagesByOwner), prefix) {
			if err := s.deleteMessage(tx, idAfter(k, len(prefix)+timeKeyLen)); err != nil {
				return err
			}
		}
		for _, k := range prefixKeys(tx.Bucket(bucketSessionsByUser), prefix) {
			if err := s.deleteSession(tx, idAfter(k, len(prefix))); err != nil {
				return err
			}
		}
		for _, k := range prefixKeys(tx.Bucket(bucketTokensByUser), prefix) {
			if err := deleteToken(tx, idAfter(k, len(prefix))); err != nil {
				return err
			}
		}
		if err := indexEmail(tx, id, u.Email, ""); err != nil {
			return err
		}
		if err := indexCustomer(tx, id, u.StripeCustomerID, ""); err != nil {
			return err
		}
		if err := deleteUserLinks(tx, id); err != nil {
			return err
		}
		if err := deleteUserDrafts(tx, id); err != nil {
			return err
		}
		if err := s.deleteUserAttachments(tx, id); err != nil {
			return err
		}
		if err := tx.Bucket(bucketWebhookSecrets).Delete([]byte(id)); err != nil {
			return err
		}
		if err := tx.Bucket(bucketDeviceBooks).Delete([]byte(id)); err != nil {
			return err
		}
		if _, err := deleteUserPasskeys(tx, id); err != nil {
			return err
		}
		return tx.Bucket(bucketUsers).Delete([]byte(id))
	})
}

// ListUsers lists users in id order, or the one user with f.Email, with the
// total before paging.
func (s *DB) ListUsers(ctx context.Context, f core.UserFilter) ([]*core.User, int, error) {
	var users []*core.User
	total := 0
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		if f.Email != "" {
			id := userIDByEmail(tx, f.Email)
			if id == "" {
				return nil
			}
			total = 1
			if f.Offset > 0 {
				return nil
			}
			u, err := s.findUser(tx, id)
			users = append(users, u)
			return err
		}
		c := tx.Bucket(bucketUsers).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if inPage(total, f.Offset, f.Limit) {
				u, err := s.decodeUser(v)
				if err != nil {
					return err
				}
				users = append(users, u)
			}
			total++
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return users, total, nil
}

// inPage reports whether the i-th item (from 0) falls in the page starting
// at offset with at most limit items (0: all).
func inPage(i, offset, limit int) bool {
	offset = max(offset, 0)
	return i >= offset && (limit <= 0 || i < offset+limit)
}

func (s *DB) findUser(tx *bbolt.Tx, id string) (*core.User, error) {
	v := tx.Bucket(bucketUsers).Get([]byte(id))
	if v == nil {
		return nil, core.ErrUserNotFound()
	}
	return s.cachedUser(id, v, func() (*core.User, error) { return s.decodeUser(v) })
}

// putUser writes u. Every user write goes through here or DeleteUser,
// which tell the user's watchers and move its generation after the commit.
func (s *DB) putUser(tx *bbolt.Tx, u *core.User) error {
	s.changed(tx, u.ID)
	v, err := s.encodeUser(u)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketUsers).Put([]byte(u.ID), v)
}

// userIDByEmail returns the id of the user with email, or "".
func userIDByEmail(tx *bbolt.Tx, email string) string {
	key := core.EmailKey(email)
	if key == "" {
		return ""
	}
	return string(tx.Bucket(bucketUsersByEmail).Get([]byte(key)))
}

// indexEmail moves user id's email index entry from oldEmail to newEmail
// (either may be empty), refusing an address another user holds.
func indexEmail(tx *bbolt.Tx, id, oldEmail, newEmail string) error {
	oldKey, newKey := core.EmailKey(oldEmail), core.EmailKey(newEmail)
	if oldKey == newKey {
		return nil
	}
	b := tx.Bucket(bucketUsersByEmail)
	if newKey != "" {
		if holder := b.Get([]byte(newKey)); holder != nil && string(holder) != id {
			return core.ErrEmailInUse()
		}
		if err := b.Put([]byte(newKey), []byte(id)); err != nil {
			return err
		}
	}
	if oldKey != "" {
		return b.Delete([]byte(oldKey))
	}
	return nil
}

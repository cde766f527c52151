package bolt

import (
	"context"
	"slices"
	"time"

	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

// Social sign-in's buckets (schema version 5).
var (
	bucketLinks       = []byte("provider_links")         // provider|0|subject -> linkRecord
	bucketLinksByUser = []byte("provider_links_by_user") // userPrefix|provider -> provider|0|subject
)

var _ core.ProviderLinkStore = (*DB)(nil)

// createLinkBuckets is version 5.
func createLinkBuckets(tx *bbolt.Tx) error {
	for _, name := range [][]byte{bucketLinks, bucketLinksByUser} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	return nil
}

type linkRecord struct {
	header
	Provider        string `json:"provider"`
	Subject         string `json:"subject"`
	UserID          string `json:"userId"`
	Email           string `json:"email,omitempty"`
	PendingCodeHash string `json:"pendingCodeHash,omitempty"`
	CreatedAt       int64  `json:"createdAt"`
}

// linkKey is provider|0|subject: no provider name holds a zero byte.
func linkKey(provider, subject string) []byte {
	return append(append([]byte(provider), 0), subject...)
}

func findLink(tx *bbolt.Tx, key []byte) (*core.ProviderLink, error) {
	v := tx.Bucket(bucketLinks).Get(key)
	if v == nil {
		return nil, core.ErrLinkNotFound()
	}
	var r linkRecord
	if err := decode("provider link", v, &r); err != nil {
		return nil, err
	}
	return &core.ProviderLink{
		Provider: r.Provider, Subject: r.Subject, UserID: r.UserID, Email: r.Email,
		PendingCodeHash: r.PendingCodeHash, CreatedAt: fromUnixNano(r.CreatedAt),
	}, nil
}

func putLink(tx *bbolt.Tx, l *core.ProviderLink) error {
	v, err := encodeLink(l)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketLinks).Put(linkKey(l.Provider, l.Subject), v)
}

func encodeLink(l *core.ProviderLink) ([]byte, error) {
	return encode(linkRecord{
		header: current, Provider: l.Provider, Subject: l.Subject, UserID: l.UserID, Email: l.Email,
		PendingCodeHash: l.PendingCodeHash, CreatedAt: unixNano(l.CreatedAt),
	})
}

// addLink stores a new link, refusing a provider account linked already and
// a second link of one provider for one user.
func addLink(tx *bbolt.Tx, l *core.ProviderLink) error {
	if err := l.CheckNew(); err != nil {
		return err
	}
	key := linkKey(l.Provider, l.Subject)
	if tx.Bucket(bucketLinks).Get(key) != nil {
		return core.ErrProviderAccountLinked(l.Provider)
	}
	byUser := tx.Bucket(bucketLinksByUser)
	userKey := ownerID(l.UserID, l.Provider)
	if byUser.Get(userKey) != nil {
		return core.ErrProviderLinkedAlready(l.Provider)
	}
	if err := byUser.Put(userKey, key); err != nil {
		return err
	}
	return putLink(tx, l)
}

// userLinks returns the user's links, oldest first.
func userLinks(tx *bbolt.Tx, userID string) ([]*core.ProviderLink, error) {
	var links []*core.ProviderLink
	prefix := ownerPrefix(userID)
	for _, k := range prefixKeys(tx.Bucket(bucketLinksByUser), prefix) {
		l, err := findLink(tx, tx.Bucket(bucketLinksByUser).Get(k))
		if err != nil {
			return nil, err
		}
		links = append(links, l)
	}
	slices.SortStableFunc(links, func(a, b *core.ProviderLink) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return links, nil
}

// deleteUserLinks deletes every link of the user (DeleteUser).
func deleteUserLinks(tx *bbolt.Tx, userID string) error {
	byUser := tx.Bucket(bucketLinksByUser)
	for _, k := range prefixKeys(byUser, ownerPrefix(userID)) {
		if err := tx.Bucket(bucketLinks).Delete(byUser.Get(k)); err != nil {
			return err
		}
		if err := byUser.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

func (s *DB) FindProviderLink(ctx context.Context, provider, subject string) (*core.ProviderLink, error) {
	var l *core.ProviderLink
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		l, err = findLink(tx, linkKey(provider, subject))
		return err
	})
	return l, err
}

func (s *DB) ListProviderLinks(ctx context.Context, userID string) ([]*core.ProviderLink, error) {
	var links []*core.ProviderLink
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		links, err = userLinks(tx, userID)
		return err
	})
	return links, err
}

// CreateUserWithLink creates u as CreateUser does, and its link l.
func (s *DB) CreateUserWithLink(ctx context.Context, u *core.User, l *core.ProviderLink) error {
	if err := core.AssignID("user", &u.ID); err != nil {
		return err
	}
	l.UserID = u.ID
	return s.update(ctx, func(tx *bbolt.Tx) error {
		if err := s.createUser(tx, u); err != nil {
			return err
		}
		return addLink(tx, l)
	})
}

func (s *DB) LinkProvider(ctx context.Context, l *core.ProviderLink, fn func(u *core.User, links []*core.ProviderLink) error) (*core.User, error) {
	var u *core.User
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		links, err := userLinks(tx, l.UserID)
		if err != nil {
			return err
		}
		u, err = s.updateUser(tx, l.UserID, func(u *core.User) error { return fn(u, links) })
		if err != nil {
			return err
		}
		return addLink(tx, l)
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

func (s *DB) UnlinkProvider(ctx context.Context, userID, provider string, fn func(u *core.User, links []*core.ProviderLink) error) (*core.User, error) {
	var u *core.User
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		links, err := userLinks(tx, userID)
		if err != nil {
			return err
		}
		u, err = s.updateUser(tx, userID, func(u *core.User) error { return fn(u, links) })
		if err != nil {
			return err
		}
		byUser := tx.Bucket(bucketLinksByUser)
		userKey := ownerID(userID, provider)
		key := byUser.Get(userKey)
		if key == nil {
			return core.ErrLinkNotFound()
		}
		if err := tx.Bucket(bucketLinks).Delete(key); err != nil {
			return err
		}
		return byUser.Delete(userKey)
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// UpdateProviderLink applies fn to the link (core.ProviderLink.Update)
// and writes it back.
func (s *DB) UpdateProviderLink(ctx context.Context, provider, subject string, fn func(l *core.ProviderLink) error) (*core.ProviderLink, error) {
	var l *core.ProviderLink
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		var err error
		if l, err = findLink(tx, linkKey(provider, subject)); err != nil {
			return err
		}
		if err := l.Update(fn); err != nil {
			return err
		}
		return putLink(tx, l)
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// ClaimAccount is the claim of core.ProviderLinkStore, in one bbolt
// transaction. The action codes have no index by user: they are read
// whole, which they are few enough for (each expires within days, and the
// sweeper deletes it) at an event this rare.
func (s *DB) ClaimAccount(ctx context.Context, userID string, l *core.ProviderLink, now time.Time,
	fn func(u *core.User, links []*core.ProviderLink) error) (*core.User, core.Claimed, error) {
	var u *core.User
	var c core.Claimed
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		c = core.Claimed{}
		links, err := userLinks(tx, userID)
		if err != nil {
			return err
		}
		if u, err = s.updateUser(tx, userID, func(u *core.User) error { return fn(u, links) }); err != nil {
			return err
		}
		s.changed(tx, userID)
		prefix := ownerPrefix(userID)
		for _, k := range prefixKeys(tx.Bucket(bucketSessionsByUser), prefix) {
			if err := s.deleteSession(tx, idAfter(k, len(prefix))); err != nil {
				return err
			}
			c.Sessions++
		}
		for _, k := range prefixKeys(tx.Bucket(bucketTokensByUser), prefix) {
			if err := deleteToken(tx, idAfter(k, len(prefix))); err != nil {
				return err
			}
			c.AccessTokens++
		}
		if err := deleteUserLinks(tx, userID); err != nil {
			return err
		}
		c.Links = len(links)
		if err := tx.Bucket(bucketWebhookSecrets).Delete([]byte(userID)); err != nil {
			return err
		}
		if c.Codes, err = useUserCodes(tx, userID, now); err != nil {
			return err
		}
		// The maker's passkeys and the devices they signed in from go too.
		if c.Passkeys, err = deleteUserPasskeys(tx, userID); err != nil {
			return err
		}
		if err := tx.Bucket(bucketDeviceBooks).Delete([]byte(userID)); err != nil {
			return err
		}
		if l != nil {
			l.UserID = userID
			return addLink(tx, l)
		}
		return nil
	})
	if err != nil {
		return nil, core.Claimed{}, err
	}
	return u, c, nil
}

// useUserCodes marks every unused code of the user used at now.
func useUserCodes(tx *bbolt.Tx, userID string, now time.Time) (int, error) {
	var mine []*core.ActionCode
	err := tx.Bucket(bucketActionCodes).ForEach(func(_, v []byte) error {
		ac, err := decodeActionCode(v)
		if err == nil && ac.UserID == userID && ac.UsedAt.IsZero() {
			mine = append(mine, ac)
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	for _, ac := range mine {
		ac.UsedAt = now
		if err := putActionCode(tx, ac); err != nil {
			return 0, err
		}
	}
	return len(mine), nil
}

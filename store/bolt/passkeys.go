package bolt

import (
	"context"
	"encoding/base64"

	"go.etcd.io/bbolt"

	"github.com/sendlater/sendlater/core"
)

var _ core.PasskeyStore = (*DB)(nil)

var (
	bucketPasskeys             = []byte("passkeys")               // id -> passkeyRecord
	bucketPasskeysByCredential = []byte("passkeys_by_credential") // base64url(credential id) -> id
	bucketPasskeysByUser       = []byte("passkeys_by_user")       // userPrefix|id
)

// createPasskeyBuckets is version 13: users' passkeys.
func createPasskeyBuckets(tx *bbolt.Tx) error {
	for _, b := range [][]byte{bucketPasskeys, bucketPasskeysByCredential, bucketPasskeysByUser} {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return err
		}
	}
	return nil
}

type passkeyRecord struct {
	header
	ID              string   `json:"id"`
	UserID          string   `json:"userId"`
	Name            string   `json:"name"`
	CredentialID    []byte   `json:"credentialId"`
	PublicKey       []byte   `json:"publicKey"`
	AttestationType string   `json:"attestationType,omitempty"`
	AAGUID          []byte   `json:"aaguid,omitempty"`
	Transports      []string `json:"transports,omitempty"`
	SignCount       uint32   `json:"signCount,omitempty"`
	BackupEligible  bool     `json:"backupEligible,omitempty"`
	BackupState     bool     `json:"backupState,omitempty"`
	CreatedAt       int64    `json:"createdAt,omitempty"`
	LastUsedAt      int64    `json:"lastUsedAt,omitempty"`
}

func encodePasskey(p *core.Passkey) ([]byte, error) {
	return encode(passkeyRecord{
		header: current, ID: p.ID, UserID: p.UserID, Name: p.Name, CredentialID: p.CredentialID,
		PublicKey: p.PublicKey, AttestationType: p.AttestationType, AAGUID: p.AAGUID, Transports: p.Transports,
		SignCount: p.SignCount, BackupEligible: p.BackupEligible, BackupState: p.BackupState,
		CreatedAt: unixNano(p.CreatedAt), LastUsedAt: unixNano(p.LastUsedAt),
	})
}

func decodePasskey(v []byte) (*core.Passkey, error) {
	var r passkeyRecord
	if err := decode("passkey", v, &r); err != nil {
		return nil, err
	}
	return &core.Passkey{
		ID: r.ID, UserID: r.UserID, Name: r.Name, CredentialID: r.CredentialID, PublicKey: r.PublicKey,
		AttestationType: r.AttestationType, AAGUID: r.AAGUID, Transports: r.Transports, SignCount: r.SignCount,
		BackupEligible: r.BackupEligible, BackupState: r.BackupState,
		CreatedAt: fromUnixNano(r.CreatedAt), LastUsedAt: fromUnixNano(r.LastUsedAt),
	}, nil
}

func credentialKey(id []byte) []byte { return []byte(base64.RawURLEncoding.EncodeToString(id)) }

func errPasskeyNotFound() error {
	return core.Errorf(core.ENotFound, "The passkey could not be found.")
}

// CreatePasskey stores p: its credential id once across users, its user
// existing, at most core.MaxPasskeys per user.
func (s *DB) CreatePasskey(ctx context.Context, p *core.Passkey) error {
	if p.ID == "" {
		p.ID = core.NewID()
	}
	if err := core.ValidID("passkey", p.ID); err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bbolt.Tx) error {
		if _, err := s.findUser(tx, p.UserID); err != nil {
			return err
		}
		if tx.Bucket(bucketPasskeys).Get([]byte(p.ID)) != nil || tx.Bucket(bucketPasskeysByCredential).Get(credentialKey(p.CredentialID)) != nil {
			return core.ErrPasskeyExists()
		}
		if len(prefixKeys(tx.Bucket(bucketPasskeysByUser), ownerPrefix(p.UserID))) >= core.MaxPasskeys {
			return core.Errorf(core.EInvalid, "An account may have at most %d passkeys: remove one first.", core.MaxPasskeys)
		}
		return putPasskey(tx, p)
	})
}

func putPasskey(tx *bbolt.Tx, p *core.Passkey) error {
	v, err := encodePasskey(p)
	if err != nil {
		return err
	}
	if err := tx.Bucket(bucketPasskeys).Put([]byte(p.ID), v); err != nil {
		return err
	}
	if err := tx.Bucket(bucketPasskeysByCredential).Put(credentialKey(p.CredentialID), []byte(p.ID)); err != nil {
		return err
	}
	return tx.Bucket(bucketPasskeysByUser).Put(ownerID(p.UserID, p.ID), nil)
}

func findPasskey(tx *bbolt.Tx, id string) (*core.Passkey, error) {
	v := tx.Bucket(bucketPasskeys).Get([]byte(id))
	if v == nil {
		return nil, errPasskeyNotFound()
	}
	return decodePasskey(v)
}

// ListUserPasskeys lists the user's passkeys, oldest first.
func (s *DB) ListUserPasskeys(ctx context.Context, userID string) ([]*core.Passkey, error) {
	var ps []*core.Passkey
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		prefix := ownerPrefix(userID)
		for _, k := range prefixKeys(tx.Bucket(bucketPasskeysByUser), prefix) {
			p, err := findPasskey(tx, idAfter(k, len(prefix)))
			if err != nil {
				return err
			}
			ps = append(ps, p)
		}
		return nil
	})
	core.SortPasskeys(ps)
	return ps, err
}

// FindPasskeyByCredential finds a passkey by its credential id.
func (s *DB) FindPasskeyByCredential(ctx context.Context, credentialID []byte) (*core.Passkey, error) {
	var p *core.Passkey
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		id := tx.Bucket(bucketPasskeysByCredential).Get(credentialKey(credentialID))
		if id == nil || len(credentialID) == 0 {
			return errPasskeyNotFound()
		}
		var err error
		p, err = findPasskey(tx, string(id))
		return err
	})
	return p, err
}

// UpdatePasskey applies fn in one transaction.
func (s *DB) UpdatePasskey(ctx context.Context, id string, fn func(p *core.Passkey) error) (*core.Passkey, error) {
	var p *core.Passkey
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		var err error
		if p, err = findPasskey(tx, id); err != nil {
			return err
		}
		if err := p.Update(fn); err != nil {
			return err
		}
		return putPasskey(tx, p)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// DeletePasskey deletes the user's passkey id.
func (s *DB) DeletePasskey(ctx context.Context, userID, id string) error {
	return s.update(ctx, func(tx *bbolt.Tx) error {
		p, err := findPasskey(tx, id)
		if err != nil {
			return err
		}
		if p.UserID != userID {
			return errPasskeyNotFound()
		}
		return deletePasskey(tx, p)
	})
}

func deletePasskey(tx *bbolt.Tx, p *core.Passkey) error {
	if err := tx.Bucket(bucketPasskeysByCredential).Delete(credentialKey(p.CredentialID)); err != nil {
		return err
	}
	if err := tx.Bucket(bucketPasskeysByUser).Delete(ownerID(p.UserID, p.ID)); err != nil {
		return err
	}
	return tx.Bucket(bucketPasskeys).Delete([]byte(p.ID))
}

// deleteUserPasskeys deletes a user's passkeys (with the user, or when the
// account is claimed) and says how many went.
func deleteUserPasskeys(tx *bbolt.Tx, userID string) (int, error) {
	prefix := ownerPrefix(userID)
	keys := prefixKeys(tx.Bucket(bucketPasskeysByUser), prefix)
	for _, k := range keys {
		p, err := findPasskey(tx, idAfter(k, len(prefix)))
		if err != nil {
			return 0, err
		}
		if err := deletePasskey(tx, p); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}

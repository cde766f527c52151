package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

var _ core.PasskeyStore = (*DB)(nil)

const passkeyColumns = `id, user_id, name, credential_id, public_key, attestation_type, aaguid, transports,
	sign_count, backup_eligible, backup_state, created_at, last_used_at`

func errPasskeyNotFound() error {
	return core.Errorf(core.ENotFound, "The passkey could not be found.")
}

func scanPasskey(row pgx.Row) (*core.Passkey, error) {
	p := new(core.Passkey)
	var count int64
	err := row.Scan(&p.ID, &p.UserID, &p.Name, &p.CredentialID, &p.PublicKey, &p.AttestationType, &p.AAGUID,
		&p.Transports, &count, &p.BackupEligible, &p.BackupState, at(&p.CreatedAt), at(&p.LastUsedAt))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errPasskeyNotFound()
	}
	if err != nil {
		return nil, err
	}
	p.SignCount = uint32(count)
	return p, nil
}

func passkeyArgs(p *core.Passkey) []any {
	return []any{p.ID, p.UserID, p.Name, p.CredentialID, p.PublicKey, p.AttestationType, p.AAGUID,
		list(p.Transports), int64(p.SignCount), p.BackupEligible, p.BackupState, nanos(p.CreatedAt), nanos(p.LastUsedAt)}
}

const passkeyValues = `($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`

// CreatePasskey stores p: its credential id once across users (a unique
// constraint), its user existing (a foreign key), at most
// core.MaxPasskeys per user (counted with the user's row locked).
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
	err := s.update(ctx, func(tx pgx.Tx) error {
		var one, n int
		err := tx.QueryRow(ctx, "select 1 from users where id = $1 for update", p.UserID).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return core.ErrUserNotFound()
		}
		if err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, "select count(*) from passkeys where user_id = $1", p.UserID).Scan(&n); err != nil {
			return err
		}
		if n >= core.MaxPasskeys {
			return core.Errorf(core.EInvalid, "An account may have at most %d passkeys: remove one first.", core.MaxPasskeys)
		}
		_, err = tx.Exec(ctx, "insert into passkeys ("+passkeyColumns+") values "+passkeyValues, passkeyArgs(p)...)
		return err
	})
	return wrapErr(err)
}

// ListUserPasskeys lists the user's passkeys, oldest first.
func (s *DB) ListUserPasskeys(ctx context.Context, userID string) ([]*core.Passkey, error) {
	rows, err := s.pool.Query(ctx, "select "+passkeyColumns+" from passkeys where user_id = $1", userID)
	if err != nil {
		return nil, wrapErr(err)
	}
	defer rows.Close()
	var ps []*core.Passkey
	for rows.Next() {
		p, err := scanPasskey(rows)
		if err != nil {
			return nil, wrapErr(err)
		}
		ps = append(ps, p)
	}
	core.SortPasskeys(ps)
	return ps, wrapErr(rows.Err())
}

// FindPasskeyByCredential finds a passkey by its credential id.
func (s *DB) FindPasskeyByCredential(ctx context.Context, credentialID []byte) (*core.Passkey, error) {
	if len(credentialID) == 0 {
		return nil, errPasskeyNotFound()
	}
	p, err := scanPasskey(s.pool.QueryRow(ctx, "select "+passkeyColumns+" from passkeys where credential_id = $1", credentialID))
	return p, wrapErr(err)
}

// UpdatePasskey applies fn in one transaction, the row locked.
func (s *DB) UpdatePasskey(ctx context.Context, id string, fn func(p *core.Passkey) error) (*core.Passkey, error) {
	var p *core.Passkey
	err := s.update(ctx, func(tx pgx.Tx) error {
		var err error
		if p, err = scanPasskey(tx.QueryRow(ctx, "select "+passkeyColumns+" from passkeys where id = $1 for update", id)); err != nil {
			return err
		}
		if err := p.Update(fn); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "update passkeys set ("+passkeyColumns+") = "+passkeyValues+" where id = $1", passkeyArgs(p)...)
		return err
	})
	if err != nil {
		return nil, wrapErr(err)
	}
	return p, nil
}

// DeletePasskey deletes the user's passkey id.
func (s *DB) DeletePasskey(ctx context.Context, userID, id string) error {
	tag, err := s.exec(ctx, "delete from passkeys where id = $1 and user_id = $2", id, userID)
	if err != nil {
		return wrapErr(err)
	}
	if tag.RowsAffected() == 0 {
		return errPasskeyNotFound()
	}
	return nil
}

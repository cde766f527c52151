package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

// scopes is NULL for a token made before tokens had scopes
// (migrations/0018_token_scopes.sql): it reads back as nil, every scope.
const tokenColumns = `id, user_id, name, hash, created_at, last_used_at, scopes`

func scanToken(row pgx.Row) (*core.AccessToken, error) {
	t := new(core.AccessToken)
	err := row.Scan(&t.ID, &t.UserID, &t.Name, &t.Hash, at(&t.CreatedAt), at(&t.LastUsedAt), &t.Scopes)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, core.ErrTokenNotFound()
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

func tokenArgs(t *core.AccessToken) []any {
	return []any{t.ID, t.UserID, t.Name, t.Hash, nanos(t.CreatedAt), nanos(t.LastUsedAt), list(t.Scopes)}
}

const insertToken = `insert into access_tokens (` + tokenColumns + `) values ($1, $2, $3, $4, $5, $6, $7)`

// CreateAccessToken stores t, giving it a new id when it has none. Its user
// must exist and its hash must be new.
func (s *DB) CreateAccessToken(ctx context.Context, t *core.AccessToken) error {
	if err := t.CheckNew(); err != nil {
		return err
	}
	_, err := s.exec(ctx, insertToken, tokenArgs(t)...)
	return wrapErr(err)
}

func (s *DB) FindAccessTokenByHash(ctx context.Context, hash string) (*core.AccessToken, error) {
	if hash == "" {
		return nil, core.ErrTokenNotFound()
	}
	t, err := scanToken(s.pool.QueryRow(ctx, "select "+tokenColumns+" from access_tokens where hash = $1", hash))
	return t, wrapErr(err)
}

// ListAccessTokens lists the user's tokens, oldest first.
func (s *DB) ListAccessTokens(ctx context.Context, userID string) ([]*core.AccessToken, error) {
	rows, err := s.pool.Query(ctx, "select "+tokenColumns+
		" from access_tokens where user_id = $1 order by created_at nulls first, id", userID)
	if err != nil {
		return nil, wrapErr(err)
	}
	ts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*core.AccessToken, error) { return scanToken(row) })
	if err != nil {
		return nil, wrapErr(err)
	}
	if ts == nil {
		ts = []*core.AccessToken{}
	}
	return ts, nil
}

// UpdateAccessToken applies fn in one transaction, the token's row locked.
// The id cannot change; a changed hash must be new.
func (s *DB) UpdateAccessToken(ctx context.Context, id string, fn func(t *core.AccessToken) error) (*core.AccessToken, error) {
	var t *core.AccessToken
	err := s.update(ctx, func(tx pgx.Tx) error {
		var err error
		t, err = scanToken(tx.QueryRow(ctx, "select "+tokenColumns+" from access_tokens where id = $1 for update", id))
		if err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return err
		}
		if err := t.CheckUpdate(id); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "update access_tokens set ("+tokenColumns+") = ($1, $2, $3, $4, $5, $6, $7) where id = $1",
			tokenArgs(t)...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

func (s *DB) DeleteAccessToken(ctx context.Context, id string) error {
	tag, err := s.exec(ctx, "delete from access_tokens where id = $1", id)
	if err != nil {
		return wrapErr(err)
	}
	if tag.RowsAffected() == 0 {
		return core.ErrTokenNotFound()
	}
	return nil
}

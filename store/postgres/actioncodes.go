package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

const actionCodeColumns = `hash, mode, user_id, email, old_email, created_at, expires_at, used_at`

func scanActionCode(row pgx.Row) (*core.ActionCode, error) {
	c := new(core.ActionCode)
	err := row.Scan(&c.Hash, &c.Mode, &c.UserID, &c.Email, &c.OldEmail, at(&c.CreatedAt), at(&c.ExpiresAt), at(&c.UsedAt))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, core.ErrInvalidActionCode()
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

func actionCodeArgs(c *core.ActionCode) []any {
	return []any{c.Hash, c.Mode, c.UserID, c.Email, c.OldEmail, nanos(c.CreatedAt), nanos(c.ExpiresAt), nanos(c.UsedAt)}
}

const insertActionCode = `insert into action_codes (` + actionCodeColumns + `) values ($1, $2, $3, $4, $5, $6, $7, $8)`

// CreateActionCode stores c under its hash. A zero ExpiresAt never expires.
func (s *DB) CreateActionCode(ctx context.Context, c *core.ActionCode) error {
	if err := c.CheckNew(); err != nil {
		return err
	}
	_, err := s.exec(ctx, insertActionCode, actionCodeArgs(c)...)
	return wrapErr(err)
}

// FindActionCode returns the code, used or not.
func (s *DB) FindActionCode(ctx context.Context, hash string) (*core.ActionCode, error) {
	c, err := findActionCode(ctx, s.pool, hash, "")
	return c, wrapErr(err)
}

// UseActionCode marks the code used at now, once (core.ActionCode.Use),
// its row locked.
func (s *DB) UseActionCode(ctx context.Context, hash string, now time.Time) (*core.ActionCode, error) {
	var c *core.ActionCode
	err := s.update(ctx, func(tx pgx.Tx) error {
		var err error
		if c, err = findActionCode(ctx, tx, hash, "for update"); err != nil {
			return err
		}
		if err := c.Use(now); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "update action_codes set used_at = $2 where hash = $1", hash, nanos(now))
		return err
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// DeleteExpiredActionCodes removes the codes whose ExpiresAt is before now,
// seeking the expiry index up to now.
func (s *DB) DeleteExpiredActionCodes(ctx context.Context, now time.Time) (int, error) {
	tag, err := s.exec(ctx, "delete from action_codes where expires_at < $1", now.UnixNano())
	if err != nil {
		return 0, wrapErr(err)
	}
	return int(tag.RowsAffected()), nil
}

func findActionCode(ctx context.Context, q querier, hash, lock string) (*core.ActionCode, error) {
	if hash == "" {
		return nil, core.ErrInvalidActionCode()
	}
	return scanActionCode(q.QueryRow(ctx, "select "+actionCodeColumns+" from action_codes where hash = $1 "+lock, hash))
}

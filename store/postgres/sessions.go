package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

const sessionColumns = `id, user_id, refresh_hash, rotated_hashes, auth_time, created_at, last_used_at, expires_at,
	user_agent, refreshed_at, network`

func scanSession(row pgx.Row) (*core.Session, error) {
	x := new(core.Session)
	err := row.Scan(&x.ID, &x.UserID, &x.RefreshHash, &x.RotatedHashes, at(&x.AuthTime), at(&x.CreatedAt),
		at(&x.LastUsedAt), at(&x.ExpiresAt), &x.UserAgent, at(&x.RefreshedAt), &x.Network)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, core.ErrSessionNotFound()
	}
	if err != nil {
		return nil, err
	}
	return x, nil
}

func sessionArgs(x *core.Session) []any {
	return []any{x.ID, x.UserID, x.RefreshHash, list(x.RotatedHashes), nanos(x.AuthTime), nanos(x.CreatedAt),
		nanos(x.LastUsedAt), nanos(x.ExpiresAt), x.UserAgent, nanos(x.RefreshedAt), x.Network}
}

const insertSession = `insert into sessions (` + sessionColumns + `) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`

// CreateSession stores x, giving it a new id when it has none. Its user must
// exist (a foreign key), so a session never outlives DeleteUser.
func (s *DB) CreateSession(ctx context.Context, x *core.Session) error {
	if err := core.AssignID("session", &x.ID); err != nil {
		return err
	}
	_, err := s.exec(ctx, insertSession, sessionArgs(x)...)
	return wrapErr(err)
}

func (s *DB) FindSessionByID(ctx context.Context, id string) (*core.Session, error) {
	x, err := findSession(ctx, s.pool, id, "")
	return x, wrapErr(err)
}

// FindSessionByRefreshHash finds the session by its current refresh hash, or
// by one it rotated away from (rotated is then true): two index seeks.
func (s *DB) FindSessionByRefreshHash(ctx context.Context, hash string) (*core.Session, bool, error) {
	if hash == "" {
		return nil, false, core.ErrSessionNotFound()
	}
	x, err := scanSession(s.pool.QueryRow(ctx, "select "+sessionColumns+
		" from sessions where refresh_hash = $1 or rotated_hashes @> array[$1] limit 1", hash))
	if err != nil {
		return nil, false, wrapErr(err)
	}
	return x, x.RefreshHash != hash, nil
}

// UpdateSession applies fn in one transaction, the session's row locked.
// The id cannot change.
func (s *DB) UpdateSession(ctx context.Context, id string, fn func(x *core.Session) error) (*core.Session, error) {
	var x *core.Session
	err := s.update(ctx, func(tx pgx.Tx) error {
		var err error
		if x, err = findSession(ctx, tx, id, "for update"); err != nil {
			return err
		}
		if err := fn(x); err != nil {
			return err
		}
		if err := x.CheckUpdate(id); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "update sessions set ("+sessionColumns+") = ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) where id = $1",
			sessionArgs(x)...)
		return err
	})
	if err != nil {
		if x != nil {
			s.unsure(err, false, x.UserID)
		}
		return nil, err
	}
	s.moved(ctx, false, x.UserID) // a rotation, a reuse's revocation
	return x, nil
}

// DeleteSession ends a session: once it returns, no replica accepts it
// (moved).
func (s *DB) DeleteSession(ctx context.Context, id string) error {
	var userID string
	err := s.pool.QueryRow(ctx, "delete from sessions where id = $1 returning user_id", id).Scan(&userID)
	if errors.Is(err, pgx.ErrNoRows) {
		return core.ErrSessionNotFound()
	}
	if err != nil {
		// The user whose session it was is not known: a lost answer is
		// the database's, and a retry finds the session gone or deletes it.
		return wrapCommitErr(err)
	}
	s.moved(ctx, false, userID)
	return nil
}

// DeleteUserSessions deletes every session of the user except the one with
// id except (which may be empty).
func (s *DB) DeleteUserSessions(ctx context.Context, userID, except string) error {
	if _, err := s.exec(ctx, "delete from sessions where user_id = $1 and id <> $2", userID, except); err != nil {
		s.unsure(err, false, userID)
		return err
	}
	s.moved(ctx, false, userID)
	return nil
}

// DeleteExpiredSessions removes the sessions whose ExpiresAt is before now,
// seeking the expiry index up to now.
func (s *DB) DeleteExpiredSessions(ctx context.Context, now time.Time) (int, error) {
	tag, err := s.exec(ctx, "delete from sessions where expires_at < $1", now.UnixNano())
	if err != nil {
		return 0, wrapErr(err)
	}
	return int(tag.RowsAffected()), nil
}

// ListUserSessions lists every session of the user: one index seek.
func (s *DB) ListUserSessions(ctx context.Context, userID string) ([]*core.Session, error) {
	rows, err := s.pool.Query(ctx, "select "+sessionColumns+" from sessions where user_id = $1 order by id", userID)
	if err != nil {
		return nil, wrapErr(err)
	}
	defer rows.Close()
	var xs []*core.Session
	for rows.Next() {
		x, err := scanSession(rows)
		if err != nil {
			return nil, wrapErr(err)
		}
		xs = append(xs, x)
	}
	return xs, wrapErr(rows.Err())
}

func findSession(ctx context.Context, q querier, id, lock string) (*core.Session, error) {
	return scanSession(q.QueryRow(ctx, "select "+sessionColumns+" from sessions where id = $1 "+lock, id))
}

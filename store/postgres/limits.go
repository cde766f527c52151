package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

// The events the limits count live in the table limit_events, shared by
// every replica (migrations/0002_limits.sql).

var _ core.LimitStore = (*DB)(nil)

const selectLimitEvents = `select id, at, expires_at from limit_events
	where key = $1 and expires_at > $2 order by at, id`

func limitEvents(ctx context.Context, q querier, key string, now time.Time) ([]core.LimitEvent, error) {
	rows, err := q.Query(ctx, selectLimitEvents, key, now.UnixNano())
	if err != nil {
		return nil, err
	}
	events, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (core.LimitEvent, error) {
		var e core.LimitEvent
		err := row.Scan(&e.ID, at(&e.At), at(&e.Expires))
		return e, err
	})
	if events == nil {
		events = []core.LimitEvent{}
	}
	return events, err
}

// HitLimit records e (an upsert on key and id) and reads key's events in
// one transaction.
func (s *DB) HitLimit(ctx context.Context, key string, e core.LimitEvent, now time.Time) ([]core.LimitEvent, error) {
	var events []core.LimitEvent
	err := s.update(ctx, func(tx pgx.Tx) error {
		// Hits of one key take turns, so each sees every hit before it
		// (core.LimitStore): concurrent sign-ins cannot pass a limit
		// together.
		if _, err := tx.Exec(ctx, "select pg_advisory_xact_lock(hashtextextended($1, 7))", key); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `insert into limit_events (key, id, at, expires_at) values ($1, $2, $3, $4)
			on conflict (key, id) do update set at = excluded.at, expires_at = excluded.expires_at`,
			key, e.ID, e.At.UnixNano(), e.Expires.UnixNano())
		if err != nil {
			return err
		}
		events, err = limitEvents(ctx, tx, key, now)
		return err
	})
	return events, err
}

func (s *DB) LimitEvents(ctx context.Context, key string, now time.Time) ([]core.LimitEvent, error) {
	events, err := limitEvents(ctx, s.pool, key, now)
	return events, wrapErr(err)
}

func (s *DB) ClearLimit(ctx context.Context, key string, ids ...string) error {
	var err error
	if len(ids) == 0 {
		_, err = s.exec(ctx, "delete from limit_events where key = $1", key)
	} else {
		_, err = s.exec(ctx, "delete from limit_events where key = $1 and id = any($2)", key, ids)
	}
	return wrapErr(err)
}

func (s *DB) DeleteExpiredLimitEvents(ctx context.Context, now time.Time) (int, error) {
	tag, err := s.exec(ctx, "delete from limit_events where expires_at <= $1", now.UnixNano())
	if err != nil {
		return 0, wrapErr(err)
	}
	return int(tag.RowsAffected()), nil
}

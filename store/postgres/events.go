package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
)

const (
	eventColumns = `message_id, at, kind, actor, recipient, detail, next_attempt_at`
	insertEvent  = `insert into message_events (` + eventColumns + `) values ($1, $2, $3, $4, $5, $6, $7)`
)

func sealedEventArgs(se *seal.Event) []any {
	e := &se.Plain
	return []any{e.MessageID, e.At.UnixNano(), string(e.Kind), e.Actor, nullIfEmpty(se.Recipient), nullIfEmpty(se.Detail),
		nanos(e.NextAttemptAt)}
}

// putEvents appends m's pending events in tx, after its row, and clears
// them.
func (s *DB) putEvents(ctx context.Context, tx execer, m *core.Message) error {
	for i := range m.Events {
		e := m.Events[i]
		e.MessageID = m.ID
		se := s.seal.SealEvent(&e)
		if _, err := tx.Exec(ctx, insertEvent, sealedEventArgs(&se)...); err != nil {
			return err
		}
	}
	m.Events = nil
	return nil
}

func scanSealedEvent(row pgx.Row, se *seal.Event) error {
	e := &se.Plain
	return row.Scan(&e.MessageID, at(&e.At), &e.Kind, &e.Actor, &se.Recipient, &se.Detail, at(&e.NextAttemptAt))
}

// ListMessageEvents reads the message's timeline, oldest first.
func (s *DB) ListMessageEvents(ctx context.Context, messageID string) ([]*core.MessageEvent, error) {
	rows, err := s.pool.Query(ctx, "select "+eventColumns+" from message_events where message_id = $1 order by seq", messageID)
	if err != nil {
		return nil, wrapErr(err)
	}
	events, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*core.MessageEvent, error) {
		var se seal.Event
		if err := scanSealedEvent(row, &se); err != nil {
			return nil, err
		}
		return s.seal.OpenEvent(&se)
	})
	return events, wrapErr(err)
}

package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

const healthColumns = `process, scheduler, started_at, seen_at, last_ok, pass_started, pass_finished,
	delivered, reminded, retried, failed, skipped, webhooks, errors, error`

var _ core.HealthStore = (*DB)(nil)

// PutProcessHealth inserts h or replaces the record of h.Process.
func (s *DB) PutProcessHealth(ctx context.Context, h *core.ProcessHealth) error {
	if err := h.CheckNew(); err != nil {
		return err
	}
	p := &h.LastPass
	_, err := s.exec(ctx, `insert into process_health (`+healthColumns+`)
		values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
		on conflict (process) do update set (`+healthColumns+`) = (`+excluded(healthColumns)+`)`,
		h.Process, h.Scheduler, nanos(h.StartedAt), nanos(h.SeenAt), nanos(h.LastOK), nanos(p.Started), nanos(p.Finished),
		p.Delivered, p.Reminded, p.Retried, p.Failed, p.Skipped, p.Webhooks, list(p.Errors), p.Error)
	return wrapErr(err)
}

// DeleteProcessHealth deletes the record of process, if any.
func (s *DB) DeleteProcessHealth(ctx context.Context, process string) error {
	_, err := s.exec(ctx, "delete from process_health where process = $1", process)
	return wrapErr(err)
}

// ProcessHealths lists every record, ordered by process.
func (s *DB) ProcessHealths(ctx context.Context) ([]*core.ProcessHealth, error) {
	rows, err := s.pool.Query(ctx, "select "+healthColumns+" from process_health order by process")
	if err != nil {
		return nil, wrapErr(err)
	}
	hs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*core.ProcessHealth, error) {
		h := new(core.ProcessHealth)
		p := &h.LastPass
		err := row.Scan(&h.Process, &h.Scheduler, at(&h.StartedAt), at(&h.SeenAt), at(&h.LastOK), at(&p.Started), at(&p.Finished),
			&p.Delivered, &p.Reminded, &p.Retried, &p.Failed, &p.Skipped, &p.Webhooks, &p.Errors, &p.Error)
		return h, err
	})
	if err != nil {
		return nil, wrapErr(err)
	}
	if hs == nil {
		hs = []*core.ProcessHealth{}
	}
	return hs, nil
}

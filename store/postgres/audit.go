package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

const auditColumns = "id, at, actor, action, target, detail"

func auditArgs(e *core.AuditEntry) []any {
	return []any{e.ID, e.At.UnixNano(), e.Actor, e.Action, e.Target, e.Detail}
}

func scanAudit(row pgx.Row) (*core.AuditEntry, error) {
	e := new(core.AuditEntry)
	err := row.Scan(&e.ID, at(&e.At), &e.Actor, &e.Action, &e.Target, &e.Detail)
	return e, err
}

// AppendAudit adds an entry to the audit log, giving it a new id when it
// has none.
func (s *DB) AppendAudit(ctx context.Context, e *core.AuditEntry) error {
	if err := core.AssignID("audit entry", &e.ID); err != nil {
		return err
	}
	_, err := s.exec(ctx, `insert into audit_log (`+auditColumns+`)
		values ($1, $2, $3, $4, $5, $6)`, auditArgs(e)...)
	return wrapErr(err)
}

// ListAudit returns the entries at or after since, oldest first, at most
// limit (0: all).
func (s *DB) ListAudit(ctx context.Context, since time.Time, limit int) ([]*core.AuditEntry, error) {
	from := int64(0)
	if !since.IsZero() {
		from = since.UnixNano()
	}
	rows, err := s.pool.Query(ctx, `select `+auditColumns+` from audit_log
		where at >= $1 order by at, id limit $2`, from, limitArg(limit))
	if err != nil {
		return nil, wrapErr(err)
	}
	es, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*core.AuditEntry, error) { return scanAudit(row) })
	if err != nil {
		return nil, wrapErr(err)
	}
	if es == nil {
		es = []*core.AuditEntry{}
	}
	return es, nil
}

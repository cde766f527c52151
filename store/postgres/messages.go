package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
)

// A message row: its plain columns, then its sealed ones.
const (
	plainMessageColumns = `owner, send_interval, send_date, is_active, postpone_code, featured, webhook_url,
	created_at, updated_at, status, reminders_sent, reminder_sent_at, delivered_at, attempts,
	next_attempt_at, lease_until, email_message_id, due_at, remind_at, idempotency_key`
	sealedMessageColumns = `title, name, recipient, body, last_error, recipients`
	messageColumns       = `id, ` + plainMessageColumns + `, ` + sealedMessageColumns
)

// scanSealedMessage reads a row of messageColumns, then of more columns into
// more, without opening it.
func scanSealedMessage(row pgx.Row, sm *seal.Message, more ...any) error {
	m := &sm.Plain
	return row.Scan(append([]any{&m.ID, &m.Owner, &m.Interval, at(&m.SendDate), &m.IsActive, &m.PostponeCode, &m.Featured,
		&m.WebhookURL, at(&m.CreatedAt), at(&m.UpdatedAt), &m.Status, &m.RemindersSent, at(&m.ReminderSentAt),
		at(&m.DeliveredAt), &m.Attempts, at(&m.NextAttemptAt), at(&m.LeaseUntil), &m.EmailMessageID,
		at(&m.DueAt), at(&m.RemindAt), &m.IdempotencyKey,
		&sm.Title, &sm.Name, &sm.Recipient, &sm.Body, &sm.LastError, &sm.Recipients}, more...)...)
}

// scanMessage reads and opens a row of messageColumns (and more).
func (s *DB) scanMessage(row pgx.Row, more ...any) (*core.Message, error) {
	var sm seal.Message
	err := scanSealedMessage(row, &sm, more...)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, core.ErrMessageNotFound()
	}
	if err != nil {
		return nil, err
	}
	return s.seal.OpenMessage(&sm)
}

func (s *DB) collectMessages(rows pgx.Rows, err error) ([]*core.Message, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (*core.Message, error) { return s.scanMessage(row) })
}

// plainMessageArgs are m's plain columns in the order of plainMessageColumns.
func plainMessageArgs(m *core.Message) []any {
	return []any{m.Owner, m.Interval, nanos(m.SendDate), m.IsActive, m.PostponeCode, m.Featured, m.WebhookURL,
		nanos(m.CreatedAt), nanos(m.UpdatedAt), m.Status, m.RemindersSent, nanos(m.ReminderSentAt),
		nanos(m.DeliveredAt), m.Attempts, nanos(m.NextAttemptAt), nanos(m.LeaseUntil), m.EmailMessageID,
		nanos(m.DueAt), nanos(m.RemindAt), m.IdempotencyKey}
}

// sealedMessageArgs are messageColumns' values of a sealed message.
func sealedMessageArgs(sm *seal.Message) []any {
	return append(append([]any{sm.Plain.ID}, plainMessageArgs(&sm.Plain)...),
		sm.Title, sm.Name, sm.Recipient, sm.Body, nullIfEmpty(sm.LastError), nullIfEmpty(sm.Recipients))
}

const (
	insertMessage = `insert into messages (` + messageColumns + `) values ($1, $2, $3, $4, $5, $6, $7, $8, $9,
		$10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27)`
	updateMessage = `update messages set (` + plainMessageColumns + `, ` + sealedMessageColumns + `)
		= ($2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20,
		$21, $22, $23, $24, $25, $26, $27) where id = $1`
	updatePlainMessage = `update messages set (` + plainMessageColumns + `)
		= ($2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21) where id = $1`
)

// CreateMessage stores m after check approved it with the owner and whether
// they hold any message. The owner's row stays locked until the commit, so
// concurrent creates of one author run one after the other and a plan limit
// cannot be raced; other authors' creates go on in parallel. Two round
// trips: BEGIN, the owner's row locked and then (a statement of its own,
// so that it sees what a create that held the lock before committed)
// whether they hold a message; then the writes and COMMIT.
func (s *DB) CreateMessage(ctx context.Context, m *core.Message, check func(owner *core.User, hasMessages bool) error) error {
	if err := core.ValidID("message", m.ID); err != nil {
		return err
	}
	var owner *core.User
	var has bool
	err := s.readThenWrite(ctx, func(q *queued) {
		q.Queue("select "+userColumns+" from users where id = $1 for no key update", m.Owner)
		if check != nil {
			q.Queue("select exists (select 1 from messages where owner = $1)", m.Owner)
		}
	}, func(r pgx.BatchResults) error {
		var err error
		if owner, err = s.scanUser(r.QueryRow()); err != nil || check == nil {
			return err
		}
		return r.QueryRow().Scan(&has)
	}, func(q *queued) error {
		if check != nil {
			if err := check(owner, has); err != nil {
				return err
			}
		}
		return s.putMessage(ctx, q, nil, m)
	})
	if err == nil {
		s.moved(ctx, true, m.Owner)
	}
	s.unsure(err, true, m.Owner)
	return err
}

// FindMessageByIdempotencyKey seeks the owner's key in its unique index.
func (s *DB) FindMessageByIdempotencyKey(ctx context.Context, owner, key string) (*core.Message, error) {
	if key == "" {
		return nil, core.ErrMessageNotFound()
	}
	m, err := s.scanMessage(s.pool.QueryRow(ctx, "select "+messageColumns+
		" from messages where owner = $1 and idempotency_key = $2 and idempotency_key <> ''", owner, key))
	return m, wrapErr(err)
}

func (s *DB) FindMessageByID(ctx context.Context, id string) (*core.Message, error) {
	m, err := s.scanMessage(s.pool.QueryRow(ctx, "select "+messageColumns+" from messages where id = $1", id))
	return m, wrapErr(err)
}

// ListMessages lists one owner's messages, or everyone's when f.Owner is
// empty, newest first, with the total before paging: one statement (one
// snapshot, one round trip) that seeks the index for the page and counts
// the owner's index entries once.
func (s *DB) ListMessages(ctx context.Context, f core.MessageFilter) ([]*core.Message, int, error) {
	var where, page []string // the list's conditions; the page's beyond them
	var args []any
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	if f.Owner != "" {
		where = append(where, "owner = "+arg(f.Owner))
	}
	if a := f.After; a != nil {
		at, id := arg(a.CreatedAt.UnixNano()), arg(a.ID)
		page = append(page, "(created_at < "+at+" or (created_at = "+at+" and id > "+id+"))")
	}
	paging := " limit " + arg(limitArg(f.Limit)) + " offset " + arg(max(f.Offset, 0))
	rows, err := s.pool.Query(ctx, "select "+messageColumns+", (select count(*) from messages"+whereOf(where)+") from messages"+
		whereOf(append(where, page...))+" order by created_at desc, id"+paging, args...)
	if err != nil {
		return nil, 0, wrapErr(err)
	}
	total := 0
	msgs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*core.Message, error) { return s.scanMessage(row, &total) })
	if err != nil {
		return nil, 0, wrapErr(err)
	}
	if len(msgs) == 0 {
		msgs = []*core.Message{}
		if f.Offset > 0 || f.After != nil { // a page past the end: the total is not in a row
			var owner []any
			if f.Owner != "" {
				owner = args[:1]
			}
			err = s.pool.QueryRow(ctx, "select count(*) from messages"+whereOf(where), owner...).Scan(&total)
		}
	}
	return msgs, total, wrapErr(err)
}

// whereOf is a where clause of the conditions, "" when none.
func whereOf(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " where " + strings.Join(conds, " and ")
}

// CountMessages counts the owner's messages (an index-only scan).
func (s *DB) CountMessages(ctx context.Context, owner string) (int, error) {
	n := 0
	err := s.pool.QueryRow(ctx, "select count(*) from messages where owner = $1", owner).Scan(&n)
	return n, wrapErr(err)
}

// UpdateMessage applies fn to the message, its row locked, and writes it back
// rescheduled, in one transaction of two round trips (rewriteMessage). The
// id cannot change.
func (s *DB) UpdateMessage(ctx context.Context, id string, fn func(m *core.Message) error) (*core.Message, error) {
	m, err := s.rewriteMessage(ctx, id, func(m *core.Message) ([]*core.OutboxItem, error) { return nil, fn(m) })
	if err != nil {
		return nil, err
	}
	s.moved(ctx, true, m.Owner)
	return m, nil
}

func (s *DB) DeleteMessage(ctx context.Context, id string) error {
	var owner string
	err := s.pool.QueryRow(ctx, "delete from messages where id = $1 returning owner", id).Scan(&owner)
	if errors.Is(err, pgx.ErrNoRows) {
		return core.ErrMessageNotFound()
	}
	if err != nil {
		// A lost answer leaves the owner unknown: a retry finds the
		// message gone (and tells nobody), or deletes it.
		return wrapCommitErr(err)
	}
	s.moved(ctx, true, owner)
	return nil
}

// DueMessages seeks the due index up to until: the cost is what is due, not
// what is stored. limit <= 0 means no limit.
func (s *DB) DueMessages(ctx context.Context, until time.Time, limit int) ([]*core.Message, error) {
	return s.due(ctx, "due_at", until, limit)
}

// DueReminders is DueMessages over the reminder index.
func (s *DB) DueReminders(ctx context.Context, until time.Time, limit int) ([]*core.Message, error) {
	return s.due(ctx, "remind_at", until, limit)
}

// due reads the index on column (due_at or remind_at) up to until.
func (s *DB) due(ctx context.Context, column string, until time.Time, limit int) ([]*core.Message, error) {
	msgs, err := s.collectMessages(s.pool.Query(ctx, "select "+messageColumns+" from messages where "+column+
		" <= $1 order by "+column+", id limit $2", until.UnixNano(), limitArg(limit)))
	return msgs, wrapErr(err)
}

// putMessage reschedules m and writes it: a new row when old is nil, else
// over old (as read in this transaction). The caller tells the watchers
// (changed) once the transaction committed.
func (s *DB) putMessage(ctx context.Context, tx execer, old, m *core.Message) error {
	sql, args := s.messageWrite(old, m)
	if _, err := tx.Exec(ctx, sql, args...); err != nil {
		return err
	}
	if old != nil {
		if err := s.pruneBounceMarks(ctx, tx, old, m); err != nil {
			return err
		}
	}
	return s.putEvents(ctx, tx, m)
}

// messageWrite reschedules m and returns the statement that writes it, as
// putMessage does. Contents are sealed again only when they changed, so a
// delivery's state changes leave the sealed columns (and their storage)
// alone.
func (s *DB) messageWrite(old, m *core.Message) (string, []any) {
	m.Reschedule(s.reminders)
	if old != nil && sameContents(old, m) {
		return updatePlainMessage, append([]any{m.ID}, plainMessageArgs(m)...)
	}
	sm := s.seal.SealMessage(m)
	if old != nil {
		return updateMessage, sealedMessageArgs(&sm)
	}
	return insertMessage, sealedMessageArgs(&sm)
}

// sameContents reports whether a and b have the same sealed fields.
func sameContents(a, b *core.Message) bool {
	return a.Title == b.Title && a.Name == b.Name && a.Recipient == b.Recipient && a.Body == b.Body &&
		a.LastError == b.LastError && core.SameRecipients(a.Recipients, b.Recipients)
}

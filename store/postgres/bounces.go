package postgres

import (
	"context"
	"errors"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
)

// Bounce marks (issue 31): bounce_marks, migration 0027.
const (
	bounceMarkColumns = `message_id, hash, bounced_at, email, soft_bounces, sealed`
	// A hard bounce replaces the mark's bounce and sealed fields and
	// keeps its count; a soft one counts, keeping the rest.
	insertHardBounce = `insert into bounce_marks (` + bounceMarkColumns + `) values ($1, $2, $3, $4, $5, $6)
		on conflict (message_id, hash) do update set bounced_at = excluded.bounced_at, email = excluded.email,
		sealed = excluded.sealed`
	insertSoftBounce = `insert into bounce_marks (` + bounceMarkColumns + `) values ($1, $2, $3, $4, $5, $6)
		on conflict (message_id, hash) do update set soft_bounces = bounce_marks.soft_bounces + 1`
	// Both at once: never from core, kept exact anyway.
	insertHardSoftBounce = insertHardBounce + `, soft_bounces = bounce_marks.soft_bounces + 1`
)

func sealedBounceMarkArgs(sk *seal.BounceMark) []any {
	return []any{sk.MessageID, sk.Hash, nullIfZero(sk.At), sk.Email, sk.SoftBounces, sk.Sealed}
}

func nullIfZero(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

// recordBounceAlone is RecordBounce's transaction for one call, the
// group's fallback (bounce_group.go): it reads the message (no lock: the
// mark's foreign key holds it for key share, which a delivery's update of
// the row does not wait for) and writes the mark, the event and the
// outbox items: two round trips, one commit, the message's row not
// written.
func (s *DB) recordBounceAlone(ctx context.Context, id string, fn func(m *core.Message) (*core.BounceWrite, error)) error {
	var m *core.Message
	err := s.readThenWrite(ctx, func(q *queued) {
		q.Queue("select "+messageColumns+" from messages where id = $1", id)
	}, func(r pgx.BatchResults) error {
		var err error
		m, err = s.scanMessage(r.QueryRow())
		return err
	}, func(q *queued) error {
		w, err := fn(m)
		if err != nil || w == nil {
			return err
		}
		return s.queueBounce(ctx, q, id, w)
	})
	if err != nil {
		if m != nil {
			s.unsure(err, true, m.Owner)
		}
		return err
	}
	s.changed(m.Owner) // as the group's (bounce_group.go, RecordBounce)
	return nil
}

// queueBounce queues w's writes beside message id: the mark, the event
// and the outbox items.
func (s *DB) queueBounce(ctx context.Context, q *queued, id string, w *core.BounceWrite) error {
	if w.Marks() {
		sk := s.seal.SealBounceMark(core.ApplyBounceWrite(nil, id, w))
		sql := insertSoftBounce
		if w.Hard != nil && w.Soft {
			sql = insertHardSoftBounce
		} else if w.Hard != nil {
			sql = insertHardBounce
		}
		q.Queue(sql, sealedBounceMarkArgs(&sk)...)
	}
	if w.Event != nil {
		e := *w.Event
		e.MessageID = id
		se := s.seal.SealEvent(&e)
		q.Queue(insertEvent, sealedEventArgs(&se)...)
	}
	for _, item := range w.Outbox {
		if err := s.putOutboxItem(ctx, q, item); err != nil {
			return err
		}
	}
	return nil
}

// ListBounceMarks reads the marks of the messages ids in one query.
func (s *DB) ListBounceMarks(ctx context.Context, ids []string) ([]*core.BounceMark, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, "select "+bounceMarkColumns+" from bounce_marks where message_id = any($1)", ids)
	if err != nil {
		return nil, wrapErr(err)
	}
	marks, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*core.BounceMark, error) {
		sk, err := scanSealedBounceMark(row)
		if err != nil {
			return nil, err
		}
		return s.seal.OpenBounceMark(sk)
	})
	return marks, wrapErr(err)
}

func scanSealedBounceMark(row pgx.Row) (*seal.BounceMark, error) {
	var sk seal.BounceMark
	var at *int64
	if err := row.Scan(&sk.MessageID, &sk.Hash, &at, &sk.Email, &sk.SoftBounces, &sk.Sealed); err != nil {
		return nil, err
	}
	if at != nil {
		sk.At = *at
	}
	return &sk, nil
}

// pruneBounceMarks queues the deletion of the marks of every address but
// those old and m share (old as read): editing an address clears its mark.
// Nothing is queued when the addresses did not change.
func (s *DB) pruneBounceMarks(ctx context.Context, q execer, old, m *core.Message) error {
	before, after := old.RecipientList(), m.RecipientList()
	same := len(before) == len(after)
	for i := 0; same && i < len(after); i++ {
		same = core.EmailKey(before[i].Address) == core.EmailKey(after[i].Address)
	}
	if same {
		return nil
	}
	// Only the addresses kept keep their marks: an address added is new
	// and starts clean, even when a bounce that raced an earlier edit
	// left a mark under it.
	keep := make([][]byte, 0, len(after))
	for _, r := range after {
		if slices.ContainsFunc(before, func(b core.Recipient) bool { return core.EmailKey(b.Address) == core.EmailKey(r.Address) }) {
			keep = append(keep, s.seal.AddressHash(r.Address))
		}
	}
	_, err := q.Exec(ctx, "delete from bounce_marks where message_id = $1 and not (hash = any($2))", m.ID, keep)
	return err
}

// moveBounceMarks moves the marks held in sealed recipient lists to
// bounce_marks, once (migration 0027 left a row in bounce_marks_pending),
// in one transaction: a binary that stops halfway leaves it to do again.
func (s *DB) moveBounceMarks(ctx context.Context) error {
	return s.update(ctx, func(tx pgx.Tx) error {
		var pending bool
		err := tx.QueryRow(ctx, "select pending from bounce_marks_pending for update").Scan(&pending)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // done, maybe by another process that waited for it
		}
		if err != nil {
			return err
		}
		// A page at a time, in the order of the ids: a large store is
		// never held in memory whole.
		for after := ""; ; {
			ms, err := s.collectMessages(tx.Query(ctx, "select "+messageColumns+` from messages
				where recipients is not null and id > $1 order by id limit $2 for update`, after, moveMarksPage))
			if err != nil {
				return err
			}
			if len(ms) == 0 {
				break
			}
			after = ms[len(ms)-1].ID
			if err := s.moveMarksOf(ctx, tx, ms); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, "delete from bounce_marks_pending")
		return err
	})
}

// moveMarksPage is how many messages moveBounceMarks reads at once.
var moveMarksPage = 500

func (s *DB) moveMarksOf(ctx context.Context, tx pgx.Tx, ms []*core.Message) error {
	for _, m := range ms {
		marks := core.MarksOf(m)
		if len(marks) == 0 {
			continue
		}
		for _, k := range marks {
			sk := s.seal.SealBounceMark(k)
			if _, err := tx.Exec(ctx, insertHardBounce, sealedBounceMarkArgs(&sk)...); err != nil {
				return err
			}
		}
		core.StripMarks(m)
		sm := s.seal.SealMessage(m)
		if _, err := tx.Exec(ctx, "update messages set recipients = $2 where id = $1", m.ID, sm.Recipients); err != nil {
			return err
		}
	}
	return nil
}

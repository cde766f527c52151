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
	// A mark moved out of a sealed recipient list (moveMarksOf): it
	// replaces the bounce and sealed fields of one already there and
	// keeps its count.
	insertHardBounce = `insert into bounce_marks (` + bounceMarkColumns + `) values ($1, $2, $3, $4, $5, $6)
		on conflict (message_id, hash) do update set bounced_at = excluded.bounced_at, email = excluded.email,
		sealed = excluded.sealed`
	// The marks of several bounces, a row for each element of the arrays
	// (bounceRows): no mark twice in one statement, which ON CONFLICT
	// cannot update twice. A hard bounce replaces the mark's bounce and
	// sealed fields, a soft one keeps them; both add the soft bounces the
	// new mark holds (one for a soft bounce, none else).
	marksFromArrays = `insert into bounce_marks (` + bounceMarkColumns + `)
		select * from unnest($1::text[], $2::bytea[], $3::bigint[], $4::integer[], $5::integer[], $6::bytea[])
		on conflict (message_id, hash) do update set `
	insertHardBounces = marksFromArrays + `bounced_at = excluded.bounced_at, email = excluded.email,
		sealed = excluded.sealed, soft_bounces = bounce_marks.soft_bounces + excluded.soft_bounces`
	insertSoftBounces = marksFromArrays + `soft_bounces = bounce_marks.soft_bounces + excluded.soft_bounces`
	// The events of several bounces, in the arrays' order.
	insertEvents = `insert into message_events (` + eventColumns + `)
		select * from unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bytea[], $6::bytea[], $7::bigint[])`
)

// bounceReadColumns are messageColumns as a bounce reads them: the title,
// the body and the last error not read (NULL, which opens as empty; the
// columns of sealedMessageColumns in their order), as RecordBounce's fn
// may not use them: a bounce checks a recipient's address and the owner,
// and a letter's body may be many kilobytes that the database would
// detoast and send and this process open, 500 times a second.
const bounceReadColumns = `id, ` + plainMessageColumns + `, null::bytea, name, recipient, null::bytea, null::bytea, recipients`

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
		q.Queue("select "+bounceReadColumns+" from messages where id = $1", id)
	}, func(r pgx.BatchResults) error {
		var err error
		m, err = s.scanMessage(r.QueryRow())
		return err
	}, func(q *queued) error {
		w, err := fn(m)
		if err != nil || w == nil {
			return err
		}
		var rows bounceRows
		if err := rows.add(ctx, s, id, w); err != nil {
			return err
		}
		rows.queue(q)
		return nil
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

// bounceRows are the writes of the bounces of one transaction: the
// marks and events as one multi-row insert each (queue), not a statement
// per bounce (issue 31: beside a delivery pass, the database's CPU per
// DSN is what slows the deliveries), and the outbox items.
type bounceRows struct {
	// rounds of marks: a mark written twice goes in the round after its
	// last, so that one statement never holds it twice and a mark's
	// writes keep their order.
	rounds []markRound
	last   map[string]int // message id and hash -> its last round
	events eventArrays
	outbox queued // the outbox items' statements
}

type markRound struct{ hard, soft markArrays }

// add adds w's writes beside message id; an outbox item that cannot be
// written is w's error, and then nothing of w is added.
func (r *bounceRows) add(ctx context.Context, s *DB, id string, w *core.BounceWrite) error {
	var items queued
	for _, item := range w.Outbox {
		if err := s.putOutboxItem(ctx, &items, item); err != nil {
			return err
		}
	}
	r.outbox.QueuedQueries = append(r.outbox.QueuedQueries, items.QueuedQueries...)
	if w.Marks() {
		sk := s.seal.SealBounceMark(core.ApplyBounceWrite(nil, id, w))
		if r.last == nil {
			r.last = map[string]int{}
		}
		key := id + "\x00" + string(sk.Hash)
		round := 0
		if i, ok := r.last[key]; ok {
			round = i + 1
		}
		r.last[key] = round
		if round == len(r.rounds) {
			r.rounds = append(r.rounds, markRound{})
		}
		if w.Hard != nil {
			r.rounds[round].hard.add(&sk)
		} else {
			r.rounds[round].soft.add(&sk)
		}
	}
	if w.Event != nil {
		e := *w.Event
		e.MessageID = id
		r.events.add(s.seal.SealEvent(&e))
	}
	return nil
}

// queue queues the writes in q: the outbox items, the marks round by
// round, the events.
func (r *bounceRows) queue(q *queued) {
	q.QueuedQueries = append(q.QueuedQueries, r.outbox.QueuedQueries...)
	for i := range r.rounds {
		r.rounds[i].hard.queue(q, insertHardBounces)
		r.rounds[i].soft.queue(q, insertSoftBounces)
	}
	r.events.queue(q)
}

// markArrays are marks as the columns of marksFromArrays.
type markArrays struct {
	ids            []string
	hashes, sealed [][]byte
	at             []*int64
	emails, softs  []int32
}

func (a *markArrays) add(sk *seal.BounceMark) {
	var at *int64
	if sk.At != 0 {
		at = &sk.At
	}
	a.ids, a.hashes, a.at = append(a.ids, sk.MessageID), append(a.hashes, sk.Hash), append(a.at, at)
	a.emails, a.softs, a.sealed = append(a.emails, int32(sk.Email)), append(a.softs, int32(sk.SoftBounces)), append(a.sealed, sk.Sealed)
}

func (a *markArrays) queue(q *queued, sql string) {
	if len(a.ids) > 0 {
		q.Queue(sql, a.ids, a.hashes, a.at, a.emails, a.softs, a.sealed)
	}
}

// eventArrays are events as the columns of insertEvents.
type eventArrays struct {
	ids, kinds, actors  []string
	at                  []int64
	recipients, details [][]byte
	next                []*int64
}

func (a *eventArrays) add(se seal.Event) {
	e := &se.Plain
	var next *int64
	if !e.NextAttemptAt.IsZero() {
		n := e.NextAttemptAt.UnixNano()
		next = &n
	}
	a.ids, a.at, a.kinds, a.actors = append(a.ids, e.MessageID), append(a.at, e.At.UnixNano()), append(a.kinds, string(e.Kind)), append(a.actors, e.Actor)
	// An empty recipient or detail is sealed as nil: NULL in the array.
	a.recipients, a.details, a.next = append(a.recipients, se.Recipient), append(a.details, se.Detail), append(a.next, next)
}

func (a *eventArrays) queue(q *queued) {
	if len(a.ids) > 0 {
		q.Queue(insertEvents, a.ids, a.at, a.kinds, a.actors, a.recipients, a.details, a.next)
	}
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

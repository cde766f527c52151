package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
)

// ClaimDeliveries claims due deliveries; see core.DeliveryStore and claim.
func (s *DB) ClaimDeliveries(ctx context.Context, now time.Time, limit int, claim func(m *core.Message) bool) ([]*core.Message, error) {
	return s.claim(ctx, "due_at", now, limit, claim)
}

// ClaimReminders claims due reminders.
func (s *DB) ClaimReminders(ctx context.Context, now time.Time, limit int, claim func(m *core.Message) bool) ([]*core.Message, error) {
	return s.claim(ctx, "remind_at", now, limit, claim)
}

// claim offers the messages due by column (due_at or remind_at) at now,
// earliest first, to claim, and writes back those it takes, at most limit,
// in one transaction and one round trip for the writes. The window of due rows is locked FOR UPDATE SKIP
// LOCKED: passes of other processes claiming at the same moment skip each
// other's rows instead of waiting or taking them twice, and a row one of
// them took is, once committed, no longer due until its lease ends.
func (s *DB) claim(ctx context.Context, column string, now time.Time, limit int, claim func(m *core.Message) bool) ([]*core.Message, error) {
	until := now.UnixNano()
	// A pass with nothing due pays for one index seek, not a transaction.
	if due, err := s.dueBy(ctx, "messages", column, until); err != nil || !due {
		return nil, err
	}
	var claimed []*core.Message
	err := s.update(ctx, func(tx pgx.Tx) error {
		claimed = nil
		window, err := s.collectMessages(tx.Query(ctx, "select "+messageColumns+" from messages where "+column+
			" <= $1 order by "+column+", id limit $2 for update skip locked", until, 2*limit+16))
		if err != nil {
			return err
		}
		writes := &pgx.Batch{}
		for _, m := range window {
			if len(claimed) >= limit {
				break
			}
			old := *m
			if !claim(m) {
				continue
			}
			sql, args := s.messageWrite(&old, m)
			writes.Queue(sql, args...)
			claimed = append(claimed, m)
		}
		if writes.Len() == 0 {
			return nil
		}
		return tx.SendBatch(ctx, writes).Close()
	})
	if err != nil {
		return nil, err
	}
	owners := make([]string, len(claimed))
	for i, m := range claimed {
		owners[i] = m.Owner
	}
	s.changed(owners...)
	return claimed, nil
}

// dueBy reports whether the earliest time in an indexed column of table is
// at or before until. min() is read from the index's first entry and takes
// no parameter, so no plan of it can scan the table (a generic plan of
// "exists (... where column <= $1)" may, guessing a third of the rows due).
func (s *DB) dueBy(ctx context.Context, table, column string, until int64) (bool, error) {
	var first *int64
	if err := s.pool.QueryRow(ctx, "select min("+column+") from "+table).Scan(&first); err != nil {
		return false, wrapErr(err)
	}
	return first != nil && *first <= until, nil
}

// SettleMessage records a send's outcome and the webhook call it starts in
// one transaction, the message's row locked.
func (s *DB) SettleMessage(ctx context.Context, id string, fn func(m *core.Message) (*core.WebhookCall, error)) (*core.Message, error) {
	var m *core.Message
	err := s.update(ctx, func(tx pgx.Tx) error {
		var err error
		if m, err = s.findMessage(ctx, tx, id, "for update"); err != nil {
			return err
		}
		old := *m
		call, err := fn(m)
		if err != nil {
			return err
		}
		if m.ID != id {
			return core.Errorf(core.EInvalid, "A message's id cannot change.")
		}
		if err := s.putMessage(ctx, tx, &old, m); err != nil {
			return err
		}
		if call != nil {
			return s.putWebhookCall(ctx, tx, call)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.changed(m.Owner)
	return m, nil
}

// RefuseAddress records a refusal under the address's keyed hash; refusing
// twice keeps the first time.
func (s *DB) RefuseAddress(ctx context.Context, email string, at time.Time) error {
	_, err := s.pool.Exec(ctx, "insert into refusals (hash, refused_at) values ($1, $2) on conflict (hash) do nothing",
		s.seal.AddressHash(email), nanos(at))
	return wrapErr(err)
}

func (s *DB) AddressRefused(ctx context.Context, email string) (bool, error) {
	var refused bool
	err := s.pool.QueryRow(ctx, "select exists (select 1 from refusals where hash = $1)", s.seal.AddressHash(email)).Scan(&refused)
	return refused, wrapErr(err)
}

// A webhook call row: its plain columns, then its sealed ones.
const webhookColumns = `message_id, kind, owner, url, delivered_at, attempts, next_attempt_at, recipient, last_error`

func scanSealedWebhookCall(row pgx.Row, sc *seal.WebhookCall) error {
	c := &sc.Plain
	return row.Scan(&c.MessageID, &c.Kind, &c.Owner, &c.URL, at(&c.DeliveredAt), &c.Attempts, at(&c.NextAttemptAt),
		&sc.Recipient, &sc.LastError)
}

func sealedWebhookArgs(sc *seal.WebhookCall) []any {
	c := &sc.Plain
	return []any{c.MessageID, c.Kind, c.Owner, c.URL, nanos(c.DeliveredAt), c.Attempts, nanos(c.NextAttemptAt),
		sc.Recipient, nullIfEmpty(sc.LastError)}
}

var (
	upsertWebhookCall = `insert into webhook_calls (` + webhookColumns + `) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		on conflict (message_id) do update set (` + webhookColumns + `) = (` + excluded(webhookColumns) + `)`
	updateWebhookCall = `update webhook_calls set (` + webhookColumns + `) = ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		where message_id = $1`
)

// putWebhookCall seals c and writes it, replacing the message's call.
func (s *DB) putWebhookCall(ctx context.Context, q querier, c *core.WebhookCall) error {
	if err := validID("message", c.MessageID); err != nil {
		return err
	}
	sc := s.seal.SealWebhookCall(c)
	_, err := q.Exec(ctx, upsertWebhookCall, sealedWebhookArgs(&sc)...)
	return err
}

// ClaimWebhooks leases due webhook calls by moving their next attempt to
// leaseUntil, in one transaction; rows another pass holds are skipped, and
// a crash lets the lease run out.
func (s *DB) ClaimWebhooks(ctx context.Context, now, leaseUntil time.Time, limit int) ([]*core.WebhookCall, error) {
	if due, err := s.dueBy(ctx, "webhook_calls", "next_attempt_at", now.UnixNano()); err != nil || !due {
		return nil, err
	}
	var calls []*core.WebhookCall
	err := s.update(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "select "+webhookColumns+" from webhook_calls where next_attempt_at <= $1"+
			" order by next_attempt_at, message_id limit $2 for update skip locked", now.UnixNano(), limit)
		if err != nil {
			return err
		}
		calls, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (*core.WebhookCall, error) {
			var sc seal.WebhookCall
			if err := scanSealedWebhookCall(row, &sc); err != nil {
				return nil, err
			}
			return s.seal.OpenWebhookCall(&sc)
		})
		if err != nil {
			return err
		}
		ids := make([]string, len(calls))
		for i, c := range calls {
			c.NextAttemptAt = leaseUntil
			ids[i] = c.MessageID
		}
		_, err = tx.Exec(ctx, "update webhook_calls set next_attempt_at = $1 where message_id = any($2)", nanos(leaseUntil), ids)
		return err
	})
	if err != nil {
		return nil, err
	}
	return calls, nil
}

// SettleWebhook deletes a finished call or stores its next attempt. The
// stored call's lease is replaced whatever it was; a call that is gone stays
// gone.
func (s *DB) SettleWebhook(ctx context.Context, c *core.WebhookCall, done bool) error {
	if done {
		_, err := s.pool.Exec(ctx, "delete from webhook_calls where message_id = $1", c.MessageID)
		return wrapErr(err)
	}
	sc := s.seal.SealWebhookCall(c)
	_, err := s.pool.Exec(ctx, updateWebhookCall, sealedWebhookArgs(&sc)...)
	return wrapErr(err)
}

// SetWebhookSecret stores the user's secret, sealed, replacing the old one.
func (s *DB) SetWebhookSecret(ctx context.Context, userID, secret string) error {
	if err := validID("user", userID); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `insert into webhook_secrets (user_id, secret) values ($1, $2)
		on conflict (user_id) do update set secret = excluded.secret`, userID, s.seal.SealWebhookSecret(userID, secret))
	return wrapErr(err)
}

func (s *DB) WebhookSecret(ctx context.Context, userID string) (string, error) {
	var sealed []byte
	err := s.pool.QueryRow(ctx, "select secret from webhook_secrets where user_id = $1", userID).Scan(&sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", wrapErr(err)
	}
	return s.seal.OpenWebhookSecret(userID, sealed)
}

package postgres

import (
	"bytes"
	"context"
	"errors"
	"slices"
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
	owners := make([]string, len(claimed))
	for i, m := range claimed {
		owners[i] = m.Owner
	}
	if err != nil {
		s.unsure(err, true, owners...)
		return nil, err
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

// readForSend is ReadForSend's one statement: the message, its author and
// which of the address hashes refused, in one snapshot. No row: the message
// or its author is gone.
var readForSend = `select ` + qualified("m", messageColumns) + `, ` + qualified("u", userColumns) + `,
		array(select hash from refusals where hash = any($3)
			union all select hash from suppressions where hash = any($3))
	from messages m join users u on u.id = $2
	where m.id = $1`

// ReadForSend reads the message, its author and the refusals of addresses
// in one statement; only when it finds nothing does a second one tell
// which of the two is gone.
func (s *DB) ReadForSend(ctx context.Context, id, authorID string, addresses []string) (*core.Message, *core.User, []bool, error) {
	hashes := make([][]byte, len(addresses))
	for i, a := range addresses {
		hashes[i] = s.seal.AddressHash(a)
	}
	var (
		sm    seal.Message
		su    seal.User
		sc    userScan
		found [][]byte
	)
	err := scanSealedMessage(s.pool.QueryRow(ctx, readForSend, id, authorID, hashes), &sm, append(sc.targets(&su), &found)...)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, nil, s.whichIsGone(ctx, id)
	}
	if err != nil {
		return nil, nil, nil, wrapErr(err)
	}
	sc.done(&su)
	m, err := s.seal.OpenMessage(&sm)
	if err != nil {
		return nil, nil, nil, err
	}
	u, err := s.openUser(&su, sc.sealed)
	if err != nil {
		return nil, nil, nil, err
	}
	refused := make([]bool, len(addresses))
	for i, h := range hashes {
		refused[i] = slices.ContainsFunc(found, func(f []byte) bool { return bytes.Equal(f, h) })
	}
	return m, u, refused, nil
}

// whichIsGone is ReadForSend's error when it found no row: the message is
// gone, or else its author.
func (s *DB) whichIsGone(ctx context.Context, id string) error {
	var exists bool
	if err := s.pool.QueryRow(ctx, "select exists (select 1 from messages where id = $1)", id).Scan(&exists); err != nil {
		return wrapErr(err)
	}
	if exists {
		return core.ErrUserNotFound()
	}
	return core.ErrMessageNotFound()
}

// RefuseAddress records a refusal under the address's keyed hash; refusing
// twice keeps the first time.
func (s *DB) RefuseAddress(ctx context.Context, email string, at time.Time) error {
	_, err := s.exec(ctx, "insert into refusals (hash, refused_at) values ($1, $2) on conflict (hash) do nothing",
		s.seal.AddressHash(email), nanos(at))
	return wrapErr(err)
}

func (s *DB) AddressRefused(ctx context.Context, email string) (bool, error) {
	var refused bool
	err := s.pool.QueryRow(ctx, "select exists (select 1 from refusals where hash = $1) or exists (select 1 from suppressions where hash = $1)", s.seal.AddressHash(email)).Scan(&refused)
	return refused, wrapErr(err)
}

// An outbox row: its plain columns, then its sealed ones.
const outboxColumns = `id, kind, message_id, owner, url, delivered_at, attempts, next_attempt_at, failed_at,
	recipient, last_error, email`

func scanSealedOutboxItem(row pgx.Row, si *seal.OutboxItem) error {
	c := &si.Plain
	return row.Scan(&c.ID, &c.Kind, &c.MessageID, &c.Owner, &c.URL, at(&c.DeliveredAt), &c.Attempts,
		at(&c.NextAttemptAt), at(&c.FailedAt), &si.Recipient, &si.LastError, &si.Email)
}

func sealedOutboxArgs(si *seal.OutboxItem) []any {
	c := &si.Plain
	return []any{c.ID, c.Kind, c.MessageID, c.Owner, c.URL, nanos(c.DeliveredAt), c.Attempts,
		nanos(c.NextAttemptAt), nanos(c.FailedAt), si.Recipient, nullIfEmpty(si.LastError), nullIfEmpty(si.Email)}
}

var (
	upsertOutboxItem = `insert into outbox (` + outboxColumns + `) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
		on conflict (id) do update set (` + outboxColumns + `) = (` + excluded(outboxColumns) + `)`
	updateOutboxItem = `update outbox set (` + outboxColumns + `) = ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
		where id = $1`
)

// putOutboxItem seals item and writes it, replacing the item with its id.
func (s *DB) putOutboxItem(ctx context.Context, q execer, item *core.OutboxItem) error {
	if err := core.ValidID("outbox item", item.ID); err != nil {
		return err
	}
	si := s.seal.SealOutboxItem(item)
	_, err := q.Exec(ctx, upsertOutboxItem, sealedOutboxArgs(&si)...)
	return err
}

func (s *DB) openOutboxRows(rows pgx.Rows, err error) ([]*core.OutboxItem, error) {
	if err != nil {
		return nil, err
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*core.OutboxItem, error) {
		var si seal.OutboxItem
		if err := scanSealedOutboxItem(row, &si); err != nil {
			return nil, err
		}
		return s.seal.OpenOutboxItem(&si)
	})
	if items == nil {
		items = []*core.OutboxItem{}
	}
	return items, err
}

// AddOutboxItem stores a new item, replacing the item with its id.
func (s *DB) AddOutboxItem(ctx context.Context, item *core.OutboxItem) error {
	return wrapErr(s.putOutboxItem(ctx, s.pool, item))
}

// ClaimOutbox leases due items by moving their next attempt to leaseUntil,
// in one transaction; rows another pass holds are skipped, and a crash lets
// the lease run out.
func (s *DB) ClaimOutbox(ctx context.Context, now, leaseUntil time.Time, limit int) ([]*core.OutboxItem, error) {
	if due, err := s.dueBy(ctx, "outbox", "next_attempt_at", now.UnixNano()); err != nil || !due {
		return nil, err
	}
	var items []*core.OutboxItem
	err := s.update(ctx, func(tx pgx.Tx) error {
		var err error
		items, err = s.openOutboxRows(tx.Query(ctx, "select "+outboxColumns+" from outbox where next_attempt_at <= $1"+
			" order by next_attempt_at, id limit $2 for update skip locked", now.UnixNano(), limit))
		if err != nil {
			return err
		}
		ids := make([]string, len(items))
		for i, it := range items {
			it.NextAttemptAt = leaseUntil
			ids[i] = it.ID
		}
		_, err = tx.Exec(ctx, "update outbox set next_attempt_at = $1 where id = any($2)", nanos(leaseUntil), ids)
		return err
	})
	if err != nil {
		return nil, err
	}
	return items, nil
}

// SettleOutbox deletes a finished item or stores it as it is (its next
// attempt, or its failure for good); an item that is gone stays gone.
func (s *DB) SettleOutbox(ctx context.Context, item *core.OutboxItem, done bool) error {
	if done {
		_, err := s.exec(ctx, "delete from outbox where id = $1", item.ID)
		return wrapErr(err)
	}
	si := s.seal.SealOutboxItem(item)
	_, err := s.exec(ctx, updateOutboxItem, sealedOutboxArgs(&si)...)
	return wrapErr(err)
}

func (s *DB) FindOutboxItem(ctx context.Context, id string) (*core.OutboxItem, error) {
	items, err := s.openOutboxRows(s.pool.Query(ctx, "select "+outboxColumns+" from outbox where id = $1", id))
	if err != nil {
		return nil, wrapErr(err)
	}
	if len(items) == 0 {
		return nil, core.ErrOutboxItemNotFound()
	}
	return items[0], nil
}

// FailedOutbox reads the failure index back from now.
func (s *DB) FailedOutbox(ctx context.Context, since time.Time, limit int) ([]*core.OutboxItem, error) {
	items, err := s.openOutboxRows(s.pool.Query(ctx, "select "+outboxColumns+" from outbox where failed_at >= $1"+
		" order by failed_at desc, id desc limit $2", since.UnixNano(), limitArg(limit)))
	return items, wrapErr(err)
}

// CountOutbox counts from the two partial indexes.
func (s *DB) CountOutbox(ctx context.Context) (pending, failed int, err error) {
	err = s.pool.QueryRow(ctx, `select (select count(*) from outbox where next_attempt_at is not null),
		(select count(*) from outbox where failed_at is not null)`).Scan(&pending, &failed)
	return pending, failed, wrapErr(err)
}

// SetWebhookSecret stores the user's secret, sealed, replacing the old one.
func (s *DB) SetWebhookSecret(ctx context.Context, userID, secret string) error {
	if err := core.ValidID("user", userID); err != nil {
		return err
	}
	_, err := s.exec(ctx, `insert into webhook_secrets (user_id, secret) values ($1, $2)
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

// DueQueue counts the deliveries due at now and tells the due time of the
// earliest, from the delivery index; see core.DueQueue.
func (s *DB) DueQueue(ctx context.Context, now time.Time) (count int, oldest time.Time, err error) {
	var first *int64
	if err := s.pool.QueryRow(ctx, "select count(*), min(due_at) from messages where due_at <= $1",
		now.UnixNano()).Scan(&count, &first); err != nil {
		return 0, time.Time{}, wrapErr(err)
	}
	if first != nil {
		oldest = time.Unix(0, *first)
	}
	return count, oldest, nil
}

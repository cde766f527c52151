package postgres

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
	"github.com/sendlater/sendlater/store/transfer"
)

var _ transfer.Store = (*DB)(nil)

// Counts counts the records of each kind, from one snapshot.
func (s *DB) Counts(ctx context.Context) (transfer.Counts, error) {
	var c transfer.Counts
	err := s.pool.QueryRow(ctx, `select (select count(*) from users), (select count(*) from messages),
		(select count(*) from sessions), (select count(*) from access_tokens), (select count(*) from action_codes),
		(select count(*) from contacts), (select count(*) from refusals), (select count(*) from outbox),
		(select count(*) from webhook_secrets), (select count(*) from provider_links),
		(select count(*) from billing_events), (select count(*) from message_events),
		(select count(*) from audit_log), (select count(*) from page_views), (select count(*) from drafts),
		(select count(*) from passkeys), (select count(*) from device_books),
		(select count(*) from suppressions), (select count(*) from blobs where size is not null),
		(select count(*) from attachments), (select count(*) from bounce_marks)`).Scan(&c.Users, &c.Messages, &c.Sessions,
		&c.AccessTokens, &c.ActionCodes, &c.Contacts, &c.Refusals, &c.Outbox, &c.WebhookSecrets, &c.ProviderLinks,
		&c.BillingEvents, &c.Events, &c.Audit, &c.PageViews, &c.Drafts, &c.Passkeys, &c.DeviceBooks, &c.Suppressions, &c.Files,
		&c.Attachments, &c.BounceMarks)
	return c, wrapErr(err)
}

// exported is how one table is read out: its query, in key order, and how
// a row joins a batch.
type exported struct {
	query string
	add   func(r *transfer.Records, row pgx.Rows) error
}

var exports = []exported{
	{"select " + userColumns + " from users order by id", func(r *transfer.Records, row pgx.Rows) error {
		su := new(seal.User)
		if sealed, err := scanSealedUser(row, su); err != nil || !sealed {
			return errClearRow(err)
		}
		r.Users = append(r.Users, su)
		return nil
	}},
	{"select " + messageColumns + " from messages order by id", func(r *transfer.Records, row pgx.Rows) error {
		sm := new(seal.Message)
		r.Messages = append(r.Messages, sm)
		return scanSealedMessage(row, sm)
	}},
	{"select " + sessionColumns + " from sessions order by id", func(r *transfer.Records, row pgx.Rows) error {
		x, err := scanSession(row)
		r.Sessions = append(r.Sessions, x)
		return err
	}},
	{"select " + tokenColumns + " from access_tokens order by id", func(r *transfer.Records, row pgx.Rows) error {
		t, err := scanToken(row)
		r.AccessTokens = append(r.AccessTokens, t)
		return err
	}},
	{"select " + actionCodeColumns + " from action_codes order by hash", func(r *transfer.Records, row pgx.Rows) error {
		c, err := scanActionCode(row)
		r.ActionCodes = append(r.ActionCodes, c)
		return err
	}},
	{"select " + contactColumns + " from contacts order by created_at, id", func(r *transfer.Records, row pgx.Rows) error {
		sc := new(seal.Contact)
		if sealed, err := scanSealedContact(row, sc); err != nil || !sealed {
			return errClearRow(err)
		}
		r.Contacts = append(r.Contacts, sc)
		return nil
	}},
	{"select hash, refused_at from refusals order by hash", func(r *transfer.Records, row pgx.Rows) error {
		f := new(transfer.Refusal)
		r.Refusals = append(r.Refusals, f)
		return row.Scan(&f.Hash, at(&f.At))
	}},
	{"select hash, suppressed_at, address, reason from suppressions order by hash", func(r *transfer.Records, row pgx.Rows) error {
		ss := new(seal.Suppression)
		r.Suppressions = append(r.Suppressions, ss)
		return row.Scan(&ss.Hash, &ss.At, &ss.Address, &ss.Reason)
	}},
	{"select " + outboxColumns + " from outbox order by id", func(r *transfer.Records, row pgx.Rows) error {
		si := new(seal.OutboxItem)
		r.Outbox = append(r.Outbox, si)
		return scanSealedOutboxItem(row, si)
	}},
	{"select seq, " + eventColumns + " from message_events order by seq", func(r *transfer.Records, row pgx.Rows) error {
		se := new(seal.Event)
		r.Events = append(r.Events, se)
		e := &se.Plain
		return row.Scan(&se.Seq, &e.MessageID, at(&e.At), &e.Kind, &e.Actor, &se.Recipient, &se.Detail, at(&e.NextAttemptAt))
	}},
	{"select " + bounceMarkColumns + " from bounce_marks order by message_id, hash", func(r *transfer.Records, row pgx.Rows) error {
		sk, err := scanSealedBounceMark(row)
		r.BounceMarks = append(r.BounceMarks, sk)
		return err
	}},
	{"select user_id, secret from webhook_secrets order by user_id", func(r *transfer.Records, row pgx.Rows) error {
		w := new(transfer.WebhookSecret)
		r.WebhookSecrets = append(r.WebhookSecrets, w)
		return row.Scan(&w.UserID, &w.Secret)
	}},
	{"select " + linkColumns + " from provider_links order by provider, subject", func(r *transfer.Records, row pgx.Rows) error {
		l, err := scanLink(row)
		r.ProviderLinks = append(r.ProviderLinks, l)
		return err
	}},
	{"select id, recorded_at from billing_events order by id", func(r *transfer.Records, row pgx.Rows) error {
		e := new(transfer.BillingEvent)
		r.BillingEvents = append(r.BillingEvents, e)
		return row.Scan(&e.ID, at(&e.At))
	}},
	{"select " + auditColumns + " from audit_log order by at, id", func(r *transfer.Records, row pgx.Rows) error {
		e, err := scanAudit(row)
		r.Audit = append(r.Audit, e)
		return err
	}},
	{"select day, path, views from page_views order by day, path", func(r *transfer.Records, row pgx.Rows) error {
		pc := new(core.PageViewCount)
		r.PageViews = append(r.PageViews, pc)
		return row.Scan(&pc.Day, &pc.Path, &pc.Views)
	}},
	{"select " + attachmentColumns + ", " + attachmentDownloadsJSON + " from attachments order by id", func(r *transfer.Records, row pgx.Rows) error {
		a := new(transfer.Attachment)
		r.Attachments = append(r.Attachments, a)
		var completed *time.Time
		var downloads []byte
		if err := row.Scan(&a.ID, &a.MessageID, &a.Owner, &a.Name, &a.Type, &a.Size, &a.Executable, &a.ClientSealed,
			&a.PartSize, &a.Parts, &a.State, &a.CreatedAt, &completed, &downloads); err != nil {
			return err
		}
		var err error
		if a.Downloads, err = decodeDownloads(downloads); err != nil {
			return err
		}
		a.CreatedAt = a.CreatedAt.UTC()
		if len(a.Parts) == 0 {
			a.Parts = nil
		}
		if completed != nil {
			a.CompletedAt = completed.UTC()
		}
		return nil
	}},
	{"select owner, key, updated_at, contents from drafts order by owner, key", func(r *transfer.Records, row pgx.Rows) error {
		d := new(transfer.Draft)
		r.Drafts = append(r.Drafts, d)
		err := row.Scan(&d.Owner, &d.Key, &d.UpdatedAt, &d.Sealed)
		d.UpdatedAt = d.UpdatedAt.UTC()
		return err
	}},
	{"select " + passkeyColumns + " from passkeys order by id", func(r *transfer.Records, row pgx.Rows) error {
		p, err := scanPasskey(row)
		r.Passkeys = append(r.Passkeys, p)
		return err
	}},
	{"select user_id, alerts_off, devices from device_books order by user_id", func(r *transfer.Records, row pgx.Rows) error {
		b := new(core.DeviceBook)
		r.DeviceBooks = append(r.DeviceBooks, b)
		var raw []byte
		if err := row.Scan(&b.UserID, &b.AlertsOff, &raw); err != nil {
			return err
		}
		return readDevices(b, raw)
	}},
}

// Export yields every record from one snapshot (a repeatable-read
// transaction), table by table in key order, sealed columns unopened.
func (s *DB) Export(ctx context.Context, n int, fn func(r *transfer.Records) error) error {
	return s.view(ctx, func(tx pgx.Tx) error {
		for _, e := range exports {
			if err := exportTable(ctx, tx, e, n, fn); err != nil {
				return err
			}
		}
		return nil
	})
}

// exportTable streams one table's rows into batches of n. fn writes to
// another store while the rows are read: this transaction's connection
// carries only the query.
func exportTable(ctx context.Context, tx pgx.Tx, e exported, n int, fn func(r *transfer.Records) error) error {
	rows, err := tx.Query(ctx, e.query)
	if err != nil {
		return err
	}
	defer rows.Close()
	r, size := new(transfer.Records), 0
	for rows.Next() {
		if err := e.add(r, rows); err != nil {
			return err
		}
		if size++; size == n {
			if err := fn(r); err != nil {
				return err
			}
			r, size = new(transfer.Records), 0
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if size > 0 {
		return fn(r)
	}
	return nil
}

// upsert is an insert into table of columns that replaces the row with the
// same key only when it differs, so RowsAffected counts what changed.
func upsert(table, key, columns string) string {
	n := len(strings.Split(columns, ","))
	params := make([]string, n)
	for i := range params {
		params[i] = "$" + strconv.Itoa(i+1)
	}
	return "insert into " + table + " as t (" + columns + ") values (" + strings.Join(params, ", ") + ")" +
		" on conflict (" + key + ") do update set (" + columns + ") = (" + excluded(columns) + ")" +
		" where (" + qualified("t", columns) + ") is distinct from (" + excluded(columns) + ")"
}

var (
	upsertUser          = upsert("users", "id", userColumns+", email_key")
	upsertMessage       = upsert("messages", "id", messageColumns)
	upsertSession       = upsert("sessions", "id", sessionColumns)
	upsertToken         = upsert("access_tokens", "id", tokenColumns)
	upsertActionCode    = upsert("action_codes", "hash", actionCodeColumns)
	upsertContact       = upsert("contacts", "id", contactColumns)
	upsertRefusal       = upsert("refusals", "hash", "hash, refused_at")
	upsertOutboxRecord  = upsert("outbox", "id", outboxColumns)
	upsertEvent         = upsert("message_events", "seq", "seq, "+eventColumns)
	upsertWebhookSecret = upsert("webhook_secrets", "user_id", "user_id, secret")
	upsertLink          = upsert("provider_links", "provider, subject", linkColumns)
	upsertBillingEvent  = upsert("billing_events", "id", "id, recorded_at")
	upsertAudit         = upsert("audit_log", "id", auditColumns)
	upsertPageViews     = upsert("page_views", "day, path", "day, path, views")
	upsertDraft         = upsert("drafts", "owner, key", "owner, key, message_id, contents, updated_at")
	upsertAttachment    = upsert("attachments", "id", attachmentColumns)
	upsertPasskey       = upsert("passkeys", "id", passkeyColumns)
	upsertDeviceBook    = upsert("device_books", "user_id", "user_id, alerts_off, devices")
	upsertSuppression   = upsert("suppressions", "hash", "hash, suppressed_at, address, reason")
	upsertBounceMark    = upsert("bounce_marks", "message_id, hash", bounceMarkColumns)
)

// Import upserts the records in one transaction, sent as one batch of
// statements, and counts the rows inserted or changed.
func (s *DB) Import(ctx context.Context, r *transfer.Records) (int, error) {
	b := &pgx.Batch{}
	for _, u := range r.Users {
		b.Queue(upsertUser, sealedUserArgs(u)...)
	}
	for _, sm := range r.Messages {
		b.Queue(upsertMessage, sealedMessageArgs(sm)...)
	}
	for _, x := range r.Sessions {
		b.Queue(upsertSession, sessionArgs(x)...)
	}
	for _, t := range r.AccessTokens {
		b.Queue(upsertToken, tokenArgs(t)...)
	}
	for _, c := range r.ActionCodes {
		b.Queue(upsertActionCode, actionCodeArgs(c)...)
	}
	for _, c := range r.Contacts {
		b.Queue(upsertContact, sealedContactArgs(c)...)
	}
	for _, f := range r.Refusals {
		b.Queue(upsertRefusal, f.Hash, nanos(f.At))
	}
	for _, ss := range r.Suppressions {
		b.Queue(upsertSuppression, ss.Hash, ss.At, ss.Address, ss.Reason)
	}
	for _, si := range r.Outbox {
		b.Queue(upsertOutboxRecord, sealedOutboxArgs(si)...)
	}
	for _, w := range r.WebhookSecrets {
		b.Queue(upsertWebhookSecret, w.UserID, w.Secret)
	}
	for _, se := range r.Events {
		b.Queue(upsertEvent, append([]any{se.Seq}, sealedEventArgs(se)...)...)
	}
	for _, sk := range r.BounceMarks {
		b.Queue(upsertBounceMark, sealedBounceMarkArgs(sk)...)
	}
	for _, l := range r.ProviderLinks {
		b.Queue(upsertLink, linkArgs(l)...)
	}
	for _, e := range r.BillingEvents {
		b.Queue(upsertBillingEvent, e.ID, nanos(e.At))
	}
	for _, e := range r.Audit {
		b.Queue(upsertAudit, auditArgs(e)...)
	}
	for _, pc := range r.PageViews {
		b.Queue(upsertPageViews, pc.Day, pc.Path, pc.Views)
	}
	files, err := queueAccountRecords(b, r)
	if err != nil {
		return 0, err
	}
	changed := 0
	err = s.update(ctx, func(tx pgx.Tx) error {
		changed = 0
		touched := map[int]bool{} // the files whose record or downloads changed: one record each
		results := tx.SendBatch(ctx, b)
		for i := range b.Len() {
			tag, err := results.Exec()
			if err != nil {
				results.Close()
				return err
			}
			if f, ok := files[i]; ok {
				touched[f] = touched[f] || tag.RowsAffected() > 0
			} else {
				changed += int(tag.RowsAffected())
			}
		}
		for _, t := range touched {
			if t {
				changed++
			}
		}
		if err := results.Close(); err != nil {
			return err
		}
		if len(r.Events) > 0 {
			// New events number on after the copied ones.
			_, err := tx.Exec(ctx, "select setval(pg_get_serial_sequence('message_events', 'seq'), (select max(seq) from message_events))")
			return err
		}
		return nil
	})
	if err == nil || core.ErrorCode(err) == core.EOutcomeUnknown {
		for _, sm := range r.Messages {
			s.changed(sm.Plain.Owner)
		}
	}
	return changed, err
}

// SiteCounts counts users and messages only, for the home page's live
// statistics (web.SiteCounts): two tables, not every one Counts reads.
func (s *DB) SiteCounts(ctx context.Context) (users, messages int, err error) {
	err = s.pool.QueryRow(ctx, `select (select count(*) from users), (select count(*) from messages)`).Scan(&users, &messages)
	return users, messages, wrapErr(err)
}

// queueAccountRecords queues the upserts of the drafts, passkeys, device
// books and files of r (Import's); files maps the index in b of each
// statement of a file (its record, its downloads) to the file's ordinal,
// so that a file counts as one record changed.
func queueAccountRecords(b *pgx.Batch, r *transfer.Records) (files map[int]int, err error) {
	for _, d := range r.Drafts {
		var messageID *string
		if d.Key != core.DraftNew {
			messageID = &d.Key
		}
		b.Queue(upsertDraft, d.Owner, d.Key, messageID, d.Sealed, d.UpdatedAt)
	}
	for _, p := range r.Passkeys {
		b.Queue(upsertPasskey, passkeyArgs(p)...)
	}
	for _, book := range r.DeviceBooks {
		raw, err := devicesJSON(book)
		if err != nil {
			return nil, err
		}
		b.Queue(upsertDeviceBook, book.UserID, book.AlertsOff, raw)
	}
	files = map[int]int{}
	for i, a := range r.Attachments {
		var completed *time.Time
		if !a.CompletedAt.IsZero() {
			completed = &a.CompletedAt
		}
		parts := a.Parts
		if parts == nil {
			parts = []string{}
		}
		files[b.Len()] = i
		b.Queue(upsertAttachment, a.ID, a.MessageID, a.Owner, a.Name, a.Type, a.Size, a.Executable, a.ClientSealed,
			a.PartSize, parts, a.State, a.CreatedAt, completed)
		for _, d := range a.Downloads {
			files[b.Len()] = i
			b.Queue(upsertAttachmentDownload, a.ID, d.Recipient, d.Count, d.FirstAt, d.LastAt)
		}
	}
	return files, nil
}

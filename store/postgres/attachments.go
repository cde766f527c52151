package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

const attachmentColumns = `id, message_id, owner, name, type, size, executable, client_sealed, part_size, parts, state, created_at, completed_at`

func (s *DB) scanAttachment(row pgx.Row) (*core.Attachment, error) {
	a := &core.Attachment{}
	var name []byte
	var state string
	var completed *time.Time
	if err := row.Scan(&a.ID, &a.MessageID, &a.Owner, &name, &a.Type, &a.Size, &a.Executable, &a.ClientSealed,
		&a.PartSize, &a.Parts, &state, &a.CreatedAt, &completed); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, core.ErrAttachmentNotFound()
		}
		return nil, err
	}
	var err error
	if a.Name, err = s.seal.OpenAttachmentName(a.ID, name); err != nil {
		return nil, err
	}
	a.State, a.CreatedAt = core.AttachmentState(state), a.CreatedAt.UTC()
	if len(a.Parts) == 0 {
		a.Parts = nil
	}
	if completed != nil {
		a.CompletedAt = completed.UTC()
	}
	return a, nil
}

// CreateAttachment keeps the new upload a, reserving its size under q: the
// owner's row is locked first, so that uploads of one owner made at once
// sum and insert one after another.
func (s *DB) CreateAttachment(ctx context.Context, a *core.Attachment, q core.AttachmentQuota) error {
	if err := core.ValidID("attachment", a.ID); err != nil {
		return err
	}
	return s.update(ctx, func(tx pgx.Tx) error {
		var locked string
		err := tx.QueryRow(ctx, "select id from users where id = $1 for update", a.Owner).Scan(&locked)
		if errors.Is(err, pgx.ErrNoRows) {
			return core.ErrMessageNotFound()
		} else if err != nil {
			return err
		}
		var owner string
		err = tx.QueryRow(ctx, "select owner from messages where id = $1", a.MessageID).Scan(&owner)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && owner != a.Owner) {
			return core.ErrMessageNotFound()
		} else if err != nil {
			return err
		}
		var files int
		var messageBytes, accountBytes int64
		err = tx.QueryRow(ctx, `select count(*) filter (where message_id = $2), coalesce(sum(size) filter (where message_id = $2), 0),
			coalesce(sum(size), 0) from attachments where owner = $1`, a.Owner, a.MessageID).Scan(&files, &messageBytes, &accountBytes)
		if err != nil {
			return err
		}
		if err := core.CheckAttachmentQuota(q, a.Size, files, messageBytes, accountBytes); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `insert into attachments (`+attachmentColumns+`)
			values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) on conflict (id) do nothing`,
			a.ID, a.MessageID, a.Owner, s.seal.SealAttachmentName(a.ID, a.Name), a.Type, a.Size, a.Executable,
			a.ClientSealed, a.PartSize, nonNilParts(a.Parts), string(a.State), a.CreatedAt, completedArg(a.CompletedAt))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return core.Errorf(core.EConflict, "This file already exists.")
		}
		return nil
	})
}

func nonNilParts(p []string) []string {
	if p == nil {
		return []string{}
	}
	return p
}

func completedArg(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// Attachment returns the attachment id.
func (s *DB) Attachment(ctx context.Context, id string) (*core.Attachment, error) {
	a, err := s.scanAttachment(s.pool.QueryRow(ctx, "select "+attachmentColumns+" from attachments where id = $1", id))
	return a, wrapErr(err)
}

// MessageAttachments returns the message's attachments, oldest first.
func (s *DB) MessageAttachments(ctx context.Context, messageID string) ([]*core.Attachment, error) {
	return s.attachmentsWhere(ctx, "message_id", messageID)
}

// OwnerAttachments returns the owner's attachments, oldest first.
func (s *DB) OwnerAttachments(ctx context.Context, owner string) ([]*core.Attachment, error) {
	return s.attachmentsWhere(ctx, "owner", owner)
}

// attachmentsWhere is the attachments whose column (a constant) is v.
func (s *DB) attachmentsWhere(ctx context.Context, column, v string) ([]*core.Attachment, error) {
	rows, err := s.pool.Query(ctx, "select "+attachmentColumns+" from attachments where "+column+" = $1 order by created_at, id", v)
	if err != nil {
		return nil, wrapErr(err)
	}
	defer rows.Close()
	var as []*core.Attachment
	for rows.Next() {
		a, err := s.scanAttachment(rows)
		if err != nil {
			return nil, wrapErr(err)
		}
		as = append(as, a)
	}
	return as, wrapErr(rows.Err())
}

// AddAttachmentPart records part index of id as stored by token, the row
// locked while core.AddPart decides.
func (s *DB) AddAttachmentPart(ctx context.Context, id string, index int, token, typ string, executable bool, now time.Time) (*core.Attachment, error) {
	var a *core.Attachment
	err := s.update(ctx, func(tx pgx.Tx) error {
		var err error
		a, err = s.scanAttachment(tx.QueryRow(ctx, "select "+attachmentColumns+" from attachments where id = $1 for update", id))
		if err != nil {
			return err
		}
		if err := core.AddPart(a, index, token, typ, executable, now); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `update attachments set type = $2, executable = $3, parts = $4, state = $5, completed_at = $6 where id = $1`,
			id, a.Type, a.Executable, a.Parts, string(a.State), completedArg(a.CompletedAt))
		return err
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// DeleteAttachment deletes the record of id.
func (s *DB) DeleteAttachment(ctx context.Context, id string) error {
	_, err := s.exec(ctx, "delete from attachments where id = $1", id)
	return wrapErr(err)
}

// EachAttachment calls fn with every attachment.
func (s *DB) EachAttachment(ctx context.Context, fn func(*core.Attachment) error) error {
	rows, err := s.pool.Query(ctx, "select "+attachmentColumns+" from attachments order by id")
	if err != nil {
		return wrapErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		a, err := s.scanAttachment(rows)
		if err != nil {
			return wrapErr(err)
		}
		if err := fn(a); err != nil {
			return err
		}
	}
	return wrapErr(rows.Err())
}

package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

// PutDraft creates or replaces the draft of d.Owner and d.Key, sealed. A
// draft of a message names it (message_id), so that it goes with it.
func (s *DB) PutDraft(ctx context.Context, d *core.Draft) error {
	if err := core.ValidID("user", d.Owner); err != nil {
		return err
	}
	var messageID *string
	if d.Key != core.DraftNew {
		messageID = &d.Key
	}
	_, err := s.exec(ctx, `insert into drafts (owner, key, message_id, contents, updated_at) values ($1, $2, $3, $4, $5)
		on conflict (owner, key) do update set contents = excluded.contents, updated_at = excluded.updated_at`,
		d.Owner, d.Key, messageID, s.seal.SealDraft(d), d.UpdatedAt)
	return wrapErr(err)
}

// Draft returns the draft of owner and key.
func (s *DB) Draft(ctx context.Context, owner, key string) (*core.Draft, error) {
	d := &core.Draft{Owner: owner, Key: key}
	var sealed []byte
	err := s.pool.QueryRow(ctx, "select contents, updated_at from drafts where owner = $1 and key = $2", owner, key).
		Scan(&sealed, &d.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, core.ErrDraftNotFound()
	}
	if err != nil {
		return nil, wrapErr(err)
	}
	d.UpdatedAt = d.UpdatedAt.UTC()
	if err := s.seal.OpenDraft(d, sealed); err != nil {
		return nil, err
	}
	return d, nil
}

// DeleteDraft deletes the draft of owner and key, if there is one.
func (s *DB) DeleteDraft(ctx context.Context, owner, key string) error {
	_, err := s.exec(ctx, "delete from drafts where owner = $1 and key = $2", owner, key)
	return wrapErr(err)
}

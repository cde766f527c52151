package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

// Account names and contact submissions are sealed (migration 8). Rows
// written in clear before it are sealed when a store opens with its key;
// the partial indexes of clear rows make that free once none is left.

// sealClearRows seals the rows still in clear, in one transaction.
func (s *DB) sealClearRows(ctx context.Context) error {
	return s.update(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "select "+userColumns+" from users where not name_sealed for update")
		if err != nil {
			return err
		}
		users, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*core.User, error) { return s.scanUser(row) })
		if err != nil {
			return err
		}
		for _, u := range users {
			su := s.seal.SealUser(u)
			if _, err := tx.Exec(ctx, "update users set name = $2, name_sealed = true where id = $1", u.ID, su.Name); err != nil {
				return err
			}
		}
		rows, err = tx.Query(ctx, "select "+contactColumns+" from contacts where not sealed for update")
		if err != nil {
			return err
		}
		contacts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*core.ContactSubmission, error) { return s.scanContact(row) })
		if err != nil {
			return err
		}
		for _, c := range contacts {
			sc := s.seal.SealContact(c)
			if _, err := tx.Exec(ctx, "update contacts set name = $2, email = $3, message = $4, sealed = true where id = $1",
				c.ID, sc.Name, sc.Email, sc.Message); err != nil {
				return err
			}
		}
		return nil
	})
}

// errClearRow is the error of an export that meets a row in clear, which
// only a binary from before migration 8 writes.
func errClearRow(err error) error {
	if err != nil {
		return err
	}
	return core.Errorf(core.EConflict, "A row is still in clear: open the store once with its key (sendlater serve) to seal it, then copy again.")
}

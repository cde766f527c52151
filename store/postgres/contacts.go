package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

const contactColumns = `id, name, email, message, created_at`

func scanContact(row pgx.Row) (*core.ContactSubmission, error) {
	c := new(core.ContactSubmission)
	if err := row.Scan(&c.ID, &c.Name, &c.Email, &c.Message, at(&c.CreatedAt)); err != nil {
		return nil, err
	}
	return c, nil
}

func contactArgs(c *core.ContactSubmission) []any {
	return []any{c.ID, c.Name, c.Email, c.Message, nanos(c.CreatedAt)}
}

const insertContact = `insert into contacts (` + contactColumns + `) values ($1, $2, $3, $4, $5)`

// CreateContact stores a contact form submission, giving it a new id when it
// has none.
func (s *DB) CreateContact(ctx context.Context, c *core.ContactSubmission) error {
	if c.ID == "" {
		c.ID = core.NewID()
	}
	if err := validID("contact", c.ID); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, insertContact, contactArgs(c)...)
	return wrapErr(err)
}

// ListContacts returns up to limit submissions (0: all), newest first.
func (s *DB) ListContacts(ctx context.Context, limit int) ([]*core.ContactSubmission, error) {
	rows, err := s.pool.Query(ctx, "select "+contactColumns+
		" from contacts order by created_at desc, id desc limit $1", limitArg(limit))
	if err != nil {
		return nil, wrapErr(err)
	}
	cs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*core.ContactSubmission, error) { return scanContact(row) })
	if err != nil {
		return nil, wrapErr(err)
	}
	if cs == nil {
		cs = []*core.ContactSubmission{}
	}
	return cs, nil
}

package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
)

// A contact row: sealed, or, in a row written before migration 8 and not
// sealed since, in clear.
const contactColumns = `id, name, email, message, created_at, sealed`

// scanSealedContact reads a row into sc, and whether it is sealed.
func scanSealedContact(row pgx.Row, sc *seal.Contact) (sealed bool, err error) {
	err = row.Scan(&sc.Plain.ID, &sc.Name, &sc.Email, &sc.Message, at(&sc.Plain.CreatedAt), &sealed)
	return sealed, err
}

func (s *DB) scanContact(row pgx.Row) (*core.ContactSubmission, error) {
	var sc seal.Contact
	sealed, err := scanSealedContact(row, &sc)
	if err != nil {
		return nil, err
	}
	if !sealed {
		c := sc.Plain
		c.Name, c.Email, c.Message = string(sc.Name), string(sc.Email), string(sc.Message)
		return &c, nil
	}
	return s.seal.OpenContact(&sc)
}

func sealedContactArgs(sc *seal.Contact) []any {
	return []any{sc.Plain.ID, sc.Name, sc.Email, sc.Message, nanos(sc.Plain.CreatedAt), true}
}

const insertContact = `insert into contacts (` + contactColumns + `) values ($1, $2, $3, $4, $5, $6)`

// CreateContact stores a contact form submission, giving it a new id when it
// has none.
func (s *DB) CreateContact(ctx context.Context, c *core.ContactSubmission) error {
	if err := core.AssignID("contact", &c.ID); err != nil {
		return err
	}
	sc := s.seal.SealContact(c)
	_, err := s.exec(ctx, insertContact, sealedContactArgs(&sc)...)
	return wrapErr(err)
}

// ListContacts returns up to limit submissions (0: all), newest first.
func (s *DB) ListContacts(ctx context.Context, limit int) ([]*core.ContactSubmission, error) {
	rows, err := s.pool.Query(ctx, "select "+contactColumns+
		" from contacts order by created_at desc, id desc limit $1", limitArg(limit))
	if err != nil {
		return nil, wrapErr(err)
	}
	cs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*core.ContactSubmission, error) { return s.scanContact(row) })
	if err != nil {
		return nil, wrapErr(err)
	}
	if cs == nil {
		cs = []*core.ContactSubmission{}
	}
	return cs, nil
}

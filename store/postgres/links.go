package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sendlater/sendlater/core"
)

var _ core.ProviderLinkStore = (*DB)(nil)

const linkColumns = `provider, subject, user_id, email, pending_code_hash, created_at`

func scanLink(row pgx.Row) (*core.ProviderLink, error) {
	l := new(core.ProviderLink)
	err := row.Scan(&l.Provider, &l.Subject, &l.UserID, &l.Email, &l.PendingCodeHash, at(&l.CreatedAt))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, core.ErrLinkNotFound()
	}
	return l, err
}

func linkArgs(l *core.ProviderLink) []any {
	return []any{l.Provider, l.Subject, l.UserID, l.Email, l.PendingCodeHash, nanos(l.CreatedAt)}
}

func findLink(ctx context.Context, q querier, provider, subject, lock string) (*core.ProviderLink, error) {
	return scanLink(q.QueryRow(ctx, "select "+linkColumns+" from provider_links where provider = $1 and subject = $2 "+lock,
		provider, subject))
}

// userLinks lists the user's links, oldest first.
func userLinks(ctx context.Context, q querier, userID string) ([]*core.ProviderLink, error) {
	rows, err := q.Query(ctx, "select "+linkColumns+" from provider_links where user_id = $1 order by created_at, provider", userID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (*core.ProviderLink, error) { return scanLink(row) })
}

// addLink inserts a new link, refusing a provider account linked already
// and a second link of one provider for one user.
func addLink(ctx context.Context, tx pgx.Tx, l *core.ProviderLink) error {
	if err := l.CheckNew(); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "insert into provider_links ("+linkColumns+") values ($1, $2, $3, $4, $5, $6)", linkArgs(l)...)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		switch pgErr.ConstraintName {
		case "provider_links_pkey":
			return core.ErrProviderAccountLinked(l.Provider)
		case "provider_links_user_provider_key":
			return core.ErrProviderLinkedAlready(l.Provider)
		}
	}
	return err
}

func (s *DB) FindProviderLink(ctx context.Context, provider, subject string) (*core.ProviderLink, error) {
	l, err := findLink(ctx, s.pool, provider, subject, "")
	return l, wrapErr(err)
}

func (s *DB) ListProviderLinks(ctx context.Context, userID string) ([]*core.ProviderLink, error) {
	links, err := userLinks(ctx, s.pool, userID)
	return links, wrapErr(err)
}

// CreateUserWithLink creates u as CreateUser does, and its link l, in one
// transaction.
func (s *DB) CreateUserWithLink(ctx context.Context, u *core.User, l *core.ProviderLink) error {
	if err := newUserID(u); err != nil {
		return err
	}
	l.UserID = u.ID
	return s.update(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, insertUser, s.userArgs(u)...); err != nil {
			return err
		}
		return addLink(ctx, tx, l)
	})
}

// LinkProvider applies fn to the user l.UserID, their row locked, given
// their links, and stores both the user and l.
func (s *DB) LinkProvider(ctx context.Context, l *core.ProviderLink, fn func(u *core.User, links []*core.ProviderLink) error) (*core.User, error) {
	var u *core.User
	err := s.update(ctx, func(tx pgx.Tx) error {
		var err error
		if u, err = s.updateWithLinks(ctx, tx, l.UserID, fn); err != nil {
			return err
		}
		return addLink(ctx, tx, l)
	})
	if err != nil {
		s.unsure(err, true, l.UserID)
		return nil, err
	}
	s.moved(ctx, true, l.UserID) // the live list shows the user's sign-in methods
	return u, nil
}

func (s *DB) UnlinkProvider(ctx context.Context, userID, provider string, fn func(u *core.User, links []*core.ProviderLink) error) (*core.User, error) {
	var u *core.User
	err := s.update(ctx, func(tx pgx.Tx) error {
		var err error
		if u, err = s.updateWithLinks(ctx, tx, userID, fn); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, "delete from provider_links where user_id = $1 and provider = $2", userID, provider)
		if err == nil && tag.RowsAffected() == 0 {
			return core.ErrLinkNotFound()
		}
		return err
	})
	if err != nil {
		s.unsure(err, true, userID)
		return nil, err
	}
	s.moved(ctx, true, userID)
	return u, nil
}

// updateWithLinks applies fn to the user, their row locked, given their
// links.
func (s *DB) updateWithLinks(ctx context.Context, tx pgx.Tx, userID string, fn func(u *core.User, links []*core.ProviderLink) error) (*core.User, error) {
	return s.updateUser(ctx, tx, userID, func(u *core.User) error {
		links, err := userLinks(ctx, tx, userID)
		if err != nil {
			return err
		}
		return fn(u, links)
	})
}

// UpdateProviderLink applies fn to the link (core.ProviderLink.Update)
// and writes it back, its row locked.
func (s *DB) UpdateProviderLink(ctx context.Context, provider, subject string, fn func(l *core.ProviderLink) error) (*core.ProviderLink, error) {
	var l *core.ProviderLink
	err := s.update(ctx, func(tx pgx.Tx) error {
		var err error
		if l, err = findLink(ctx, tx, provider, subject, "for update"); err != nil {
			return err
		}
		if err := l.Update(fn); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "update provider_links set ("+linkColumns+") = ($1, $2, $3, $4, $5, $6) where provider = $1 and subject = $2",
			linkArgs(l)...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// ClaimAccount is the claim of core.ProviderLinkStore, in one transaction
// of a statement for each kind of row; the user's messages are core's to
// pause after it.
func (s *DB) ClaimAccount(ctx context.Context, userID string, l *core.ProviderLink, now time.Time,
	fn func(u *core.User, links []*core.ProviderLink) error) (*core.User, core.Claimed, error) {
	var u *core.User
	var c core.Claimed
	err := s.update(ctx, func(tx pgx.Tx) error {
		c = core.Claimed{}
		var links []*core.ProviderLink
		var err error
		u, err = s.updateWithLinks(ctx, tx, userID, func(u *core.User, ls []*core.ProviderLink) error {
			links = ls
			return fn(u, ls)
		})
		if err != nil {
			return err
		}
		count := func(n *int, sql string, args ...any) error {
			tag, err := tx.Exec(ctx, sql, args...)
			if n != nil {
				*n = int(tag.RowsAffected())
			}
			return err
		}
		for _, step := range []struct {
			n    *int
			sql  string
			args []any
		}{
			{&c.Sessions, "delete from sessions where user_id = $1", []any{userID}},
			{&c.AccessTokens, "delete from access_tokens where user_id = $1", []any{userID}},
			{nil, "delete from provider_links where user_id = $1", []any{userID}},
			{nil, "delete from webhook_secrets where user_id = $1", []any{userID}},
			{&c.Codes, "update action_codes set used_at = $2 where user_id = $1 and used_at is null", []any{userID, now.UnixNano()}},
			// The maker's passkeys and the devices they signed in from.
			{&c.Passkeys, "delete from passkeys where user_id = $1", []any{userID}},
			{nil, "delete from device_books where user_id = $1", []any{userID}},
		} {
			if err := count(step.n, step.sql, step.args...); err != nil {
				return err
			}
		}
		c.Links = len(links)
		if l != nil {
			l.UserID = userID
			return addLink(ctx, tx, l)
		}
		return nil
	})
	if err != nil {
		return nil, core.Claimed{}, err
	}
	s.moved(ctx, true, userID) // their sessions and links went
	return u, c, nil
}

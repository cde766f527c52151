package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
)

// A user row: the name is sealed (name_sealed true), or, in a row written
// before migration 8 and not sealed since, in clear.
const userColumns = `id, email, name, picture, timezone, password_hash, providers, email_verified,
	stripe_customer_id, stripe_price_id, stripe_subscription_status, created_at, updated_at, name_sealed,
	disabled_at, held_messages, hold_since, hold_until, reminder_ladder, reminder_address,
	reminder_address_asked_at, reminder_address_confirmed_at,
	totp_secret, totp_enabled_at, totp_last_step, recovery_codes`

// scanSealedUser reads a row into su, and whether its name is sealed.
func scanSealedUser(row pgx.Row, su *seal.User) (sealed bool, err error) {
	var sc userScan
	err = row.Scan(sc.targets(su)...)
	sc.done(su)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, core.ErrUserNotFound()
	}
	return sc.sealed, err
}

// userScan holds what a row of userColumns scans into besides a seal.User:
// whether its name is sealed, and its ladder's column.
type userScan struct {
	sealed bool
	ladder int16
}

// targets are the scan targets of userColumns, into su and sc; done
// finishes su once the row was scanned.
func (sc *userScan) targets(su *seal.User) []any {
	u := &su.Plain
	return []any{&u.ID, &u.Email, &su.Name, &u.Picture, &u.Timezone, &u.PasswordHash, &u.Providers,
		&u.EmailVerified, &u.StripeCustomerID, &u.StripePriceID, &u.StripeSubscriptionStatus,
		at(&u.CreatedAt), at(&u.UpdatedAt), &sc.sealed, at(&u.DisabledAt), &u.HeldMessages,
		at(&u.HoldSince), at(&u.HoldUntil), &sc.ladder, &su.ReminderAddress,
		at(&u.ReminderAddressAskedAt), at(&u.ReminderAddressConfirmedAt),
		&su.TOTPSecret, at(&u.TOTPEnabledAt), &u.TOTPLastStep, &u.RecoveryCodes}
}

func (sc *userScan) done(su *seal.User) { su.Plain.ReminderLadder = core.Ladder(sc.ladder) }

func (s *DB) scanUser(row pgx.Row) (*core.User, error) {
	var su seal.User
	sealed, err := scanSealedUser(row, &su)
	if err != nil {
		return nil, err
	}
	return s.openUser(&su, sealed)
}

// openUser opens a scanned user row; a name not yet sealed is taken as it is.
func (s *DB) openUser(su *seal.User, sealed bool) (*core.User, error) {
	if !sealed {
		u := su.Plain
		u.Name = string(su.Name)
		return &u, nil
	}
	return s.seal.OpenUser(su)
}

// sealedUserArgs are su's columns in the order of userColumns, then its
// email key.
func sealedUserArgs(su *seal.User) []any {
	u := &su.Plain
	return []any{u.ID, u.Email, su.Name, u.Picture, u.Timezone, u.PasswordHash, list(u.Providers),
		u.EmailVerified, u.StripeCustomerID, u.StripePriceID, u.StripeSubscriptionStatus,
		nanos(u.CreatedAt), nanos(u.UpdatedAt), true, nanos(u.DisabledAt), list(u.HeldMessages),
		nanos(u.HoldSince), nanos(u.HoldUntil), int16(u.ReminderLadder), su.ReminderAddress,
		nanos(u.ReminderAddressAskedAt), nanos(u.ReminderAddressConfirmedAt),
		nullIfEmpty(su.TOTPSecret), nanos(u.TOTPEnabledAt), u.TOTPLastStep, list(u.RecoveryCodes),
		nullIfEmpty(core.EmailKey(u.Email))}
}

func (s *DB) userArgs(u *core.User) []any {
	su := s.seal.SealUser(u)
	return sealedUserArgs(&su)
}

const insertUser = `insert into users (` + userColumns + `, email_key)
	values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27)`

// CreateUser stores u, giving it a new id when it has none. The email must
// not be in use by another user, whatever its case (a unique index on the
// email's key: concurrent sign-ups cannot both take it), nor its Stripe
// customer.
func (s *DB) CreateUser(ctx context.Context, u *core.User) error {
	if err := newUserID(u); err != nil {
		return err
	}
	_, err := s.exec(ctx, insertUser, s.userArgs(u)...)
	return wrapErr(err)
}

// newUserID gives u a new id when it has none and checks it.
func newUserID(u *core.User) error {
	return core.AssignID("user", &u.ID)
}

func (s *DB) FindUserByID(ctx context.Context, id string) (*core.User, error) {
	u, err := s.findUser(ctx, s.pool, id, "")
	return u, wrapErr(err)
}

// FindUserByEmail finds the user whose email matches, whatever its case.
func (s *DB) FindUserByEmail(ctx context.Context, email string) (*core.User, error) {
	u, err := s.findUserByEmail(ctx, s.pool, email)
	return u, wrapErr(err)
}

// UpdateUser applies fn in one transaction, the user's row locked. A changed
// email fails with EEmailInUse when another user holds it; the id cannot
// change.
func (s *DB) UpdateUser(ctx context.Context, id string, fn func(u *core.User) error) (*core.User, error) {
	var u *core.User
	err := s.update(ctx, func(tx pgx.Tx) error {
		var err error
		u, err = s.updateUser(ctx, tx, id, fn)
		return err
	})
	if err != nil {
		s.unsure(err, true, id)
		return nil, err
	}
	s.moved(ctx, true, id) // the live list shows the user too (their plan)
	return u, nil
}

// updateUser is UpdateUser in tx.
func (s *DB) updateUser(ctx context.Context, tx pgx.Tx, id string, fn func(u *core.User) error) (*core.User, error) {
	u, err := s.findUser(ctx, tx, id, "for update")
	if err != nil {
		return nil, err
	}
	if err := fn(u); err != nil {
		return nil, err
	}
	if err := u.CheckUpdate(id); err != nil {
		return nil, err
	}
	_, err = tx.Exec(ctx, `update users set (`+userColumns+`, email_key)
		= ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27) where id = $1`, s.userArgs(u)...)
	return u, err
}

// DeleteUser deletes the user; their messages, sessions, access tokens and
// webhook secret go with them (foreign keys on delete cascade), in one
// transaction.
func (s *DB) DeleteUser(ctx context.Context, id string) error {
	err := s.update(ctx, func(tx pgx.Tx) error {
		// The cascade would lock the user's messages newest first; a
		// settlement group locks messages in id order (settle.go), so the
		// two could each hold a row the other waits for. Taken in id order
		// first, they never do.
		if _, err := tx.Exec(ctx, "select 1 from messages where owner = $1 order by id for update", id); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, "delete from users where id = $1", id)
		if err == nil && tag.RowsAffected() == 0 {
			return core.ErrUserNotFound()
		}
		return err
	})
	if err != nil {
		s.unsure(err, true, id)
		return err
	}
	s.moved(ctx, true, id) // their messages and sessions went with them
	return nil
}

// ListUsers lists users in id order, or the one user with f.Email, with the
// total before paging.
func (s *DB) ListUsers(ctx context.Context, f core.UserFilter) ([]*core.User, int, error) {
	var users []*core.User
	total := 0
	err := s.view(ctx, func(tx pgx.Tx) error {
		if f.Email != "" {
			u, err := s.findUserByEmail(ctx, tx, f.Email)
			if core.ErrorCode(err) == core.EUserNotFound {
				return nil
			}
			if err != nil {
				return err
			}
			total = 1
			if f.Offset <= 0 {
				users = append(users, u)
			}
			return nil
		}
		if err := tx.QueryRow(ctx, "select count(*) from users").Scan(&total); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, "select "+userColumns+" from users order by id limit $1 offset $2",
			limitArg(f.Limit), max(f.Offset, 0))
		if err != nil {
			return err
		}
		users, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (*core.User, error) { return s.scanUser(row) })
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return users, total, nil
}

// findUser reads a user; lock ("" or "for update" ...) locks its row.
func (s *DB) findUser(ctx context.Context, q querier, id, lock string) (*core.User, error) {
	return s.scanUser(q.QueryRow(ctx, "select "+userColumns+" from users where id = $1 "+lock, id))
}

func (s *DB) findUserByEmail(ctx context.Context, q querier, email string) (*core.User, error) {
	key := core.EmailKey(email)
	if key == "" {
		return nil, core.ErrUserNotFound()
	}
	return s.scanUser(q.QueryRow(ctx, "select "+userColumns+" from users where email_key = $1", key))
}

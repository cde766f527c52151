package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

var _ core.DeviceCodeStore = (*DB)(nil)

const deviceCodeColumns = `id, device_hash, user_code_hash, client_name, user_agent, network, created_at, expires_at,
	poll_interval, last_polled_at, status, user_id, session_id, decided_at`

const deviceCodeValues = `($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`

func errDeviceCodeExists() error {
	return core.Errorf(core.EConflict, "A device code with this code exists.")
}

func scanDeviceCode(row pgx.Row) (*core.DeviceCode, error) {
	c := new(core.DeviceCode)
	var interval int64
	var userID *string
	err := row.Scan(&c.ID, &c.DeviceHash, &c.UserCodeHash, &c.ClientName, &c.UserAgent, &c.Network, at(&c.CreatedAt),
		at(&c.ExpiresAt), &interval, at(&c.LastPolledAt), &c.Status, &userID, &c.SessionID, at(&c.DecidedAt))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, core.ErrDeviceCodeUnknown()
	}
	if err != nil {
		return nil, err
	}
	c.Interval = time.Duration(interval)
	if userID != nil {
		c.UserID = *userID
	}
	return c, nil
}

func deviceCodeArgs(c *core.DeviceCode) []any {
	return []any{c.ID, c.DeviceHash, c.UserCodeHash, c.ClientName, c.UserAgent, c.Network, nanos(c.CreatedAt),
		nanos(c.ExpiresAt), int64(c.Interval), nanos(c.LastPolledAt), c.Status, nullIfEmpty(c.UserID), c.SessionID,
		nanos(c.DecidedAt)}
}

// CreateDeviceCode stores c; either hash taken is a conflict (unique
// constraints).
func (s *DB) CreateDeviceCode(ctx context.Context, c *core.DeviceCode) error {
	if c.ID == "" {
		c.ID = core.NewID()
	}
	if err := c.Validate(); err != nil {
		return err
	}
	_, err := s.exec(ctx, "insert into device_codes ("+deviceCodeColumns+") values "+deviceCodeValues, deviceCodeArgs(c)...)
	return wrapErr(err)
}

func (s *DB) findDeviceCodeBy(ctx context.Context, column, hash string) (*core.DeviceCode, error) {
	if hash == "" {
		return nil, core.ErrDeviceCodeUnknown()
	}
	c, err := scanDeviceCode(s.pool.QueryRow(ctx, "select "+deviceCodeColumns+" from device_codes where "+column+" = $1", hash))
	return c, wrapErr(err)
}

// FindDeviceCodeByDevice finds a code by its device code's hash.
func (s *DB) FindDeviceCodeByDevice(ctx context.Context, deviceHash string) (*core.DeviceCode, error) {
	return s.findDeviceCodeBy(ctx, "device_hash", deviceHash)
}

// FindDeviceCodeByUser finds a code by its user code's hash.
func (s *DB) FindDeviceCodeByUser(ctx context.Context, userCodeHash string) (*core.DeviceCode, error) {
	return s.findDeviceCodeBy(ctx, "user_code_hash", userCodeHash)
}

// UpdateDeviceCode applies fn in one transaction, the row locked; the
// hashes stay.
func (s *DB) UpdateDeviceCode(ctx context.Context, id string, fn func(c *core.DeviceCode) error) (*core.DeviceCode, error) {
	var c *core.DeviceCode
	err := s.update(ctx, func(tx pgx.Tx) error {
		var err error
		if c, err = scanDeviceCode(tx.QueryRow(ctx, "select "+deviceCodeColumns+" from device_codes where id = $1 for update", id)); err != nil {
			return err
		}
		device, user := c.DeviceHash, c.UserCodeHash
		if err := fn(c); err != nil {
			return err
		}
		c.ID, c.DeviceHash, c.UserCodeHash = id, device, user
		if err := c.Validate(); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "update device_codes set ("+deviceCodeColumns+") = "+deviceCodeValues+" where id = $1", deviceCodeArgs(c)...)
		return err
	})
	if err != nil {
		return nil, wrapErr(err)
	}
	return c, nil
}

// DeleteDeviceCode deletes the code id.
func (s *DB) DeleteDeviceCode(ctx context.Context, id string) error {
	tag, err := s.exec(ctx, "delete from device_codes where id = $1", id)
	if err != nil {
		return wrapErr(err)
	}
	if tag.RowsAffected() == 0 {
		return core.ErrDeviceCodeUnknown()
	}
	return nil
}

// DeleteExpiredDeviceCodes removes the codes that expired before now.
func (s *DB) DeleteExpiredDeviceCodes(ctx context.Context, now time.Time) (int, error) {
	tag, err := s.exec(ctx, "delete from device_codes where expires_at < $1", now.UnixNano())
	if err != nil {
		return 0, wrapErr(err)
	}
	return int(tag.RowsAffected()), nil
}

package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

var _ core.DeviceBookStore = (*DB)(nil)

// knownDevice is one entry of device_books.devices (jsonb).
type knownDevice struct {
	Key       string `json:"key"`
	FirstSeen int64  `json:"firstSeen"`
	LastSeen  int64  `json:"lastSeen"`
}

func findDeviceBook(ctx context.Context, q querier, userID, lock string) (*core.DeviceBook, error) {
	b := &core.DeviceBook{UserID: userID}
	var raw []byte
	err := q.QueryRow(ctx, "select alerts_off, devices from device_books where user_id = $1 "+lock, userID).Scan(&b.AlertsOff, &raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return b, nil
	}
	if err != nil {
		return nil, err
	}
	return b, readDevices(b, raw)
}

// FindDeviceBook returns the user's book, an empty one when it has none.
func (s *DB) FindDeviceBook(ctx context.Context, userID string) (*core.DeviceBook, error) {
	b, err := findDeviceBook(ctx, s.pool, userID, "")
	return b, wrapErr(err)
}

// UpdateDeviceBook applies fn to the user's book in one transaction, its
// row locked (made first when the user has none); the user must exist.
func (s *DB) UpdateDeviceBook(ctx context.Context, userID string, fn func(b *core.DeviceBook) error) (*core.DeviceBook, error) {
	var b *core.DeviceBook
	err := s.update(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "insert into device_books (user_id) values ($1) on conflict do nothing", userID); err != nil {
			return err
		}
		var err error
		if b, err = findDeviceBook(ctx, tx, userID, "for update"); err != nil {
			return err
		}
		if err := fn(b); err != nil {
			return err
		}
		b.UserID = userID
		raw, err := devicesJSON(b)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "update device_books set alerts_off = $2, devices = $3 where user_id = $1", userID, b.AlertsOff, raw)
		return err
	})
	if err != nil {
		return nil, wrapErr(err)
	}
	return b, nil
}

// devicesJSON is b's devices as device_books.devices keeps them.
func devicesJSON(b *core.DeviceBook) ([]byte, error) {
	ds := make([]knownDevice, 0, len(b.Devices))
	for _, d := range b.Devices {
		ds = append(ds, knownDevice{Key: d.Key, FirstSeen: d.FirstSeen.UnixNano(), LastSeen: d.LastSeen.UnixNano()})
	}
	return json.Marshal(ds)
}

// readDevices reads device_books.devices into b.
func readDevices(b *core.DeviceBook, raw []byte) error {
	var ds []knownDevice
	if err := json.Unmarshal(raw, &ds); err != nil {
		return core.Errorf(core.EInternal, "A device book could not be read: %v", err)
	}
	for _, d := range ds {
		b.Devices = append(b.Devices, core.KnownDevice{Key: d.Key, FirstSeen: time.Unix(0, d.FirstSeen).UTC(), LastSeen: time.Unix(0, d.LastSeen).UTC()})
	}
	return nil
}

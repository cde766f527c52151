package bolt

import (
	"context"

	"go.etcd.io/bbolt"

	"github.com/sendlater/sendlater/core"
)

// bucketDeviceBooks holds each user's core.DeviceBook: user id ->
// deviceBookRecord, deleted with the user.
var bucketDeviceBooks = []byte("device_books")

// createDeviceBooks is version 12: where accounts signed in from.
func createDeviceBooks(tx *bbolt.Tx) error {
	_, err := tx.CreateBucketIfNotExists(bucketDeviceBooks)
	return err
}

type knownDeviceRecord struct {
	Key       string `json:"key"`
	FirstSeen int64  `json:"firstSeen"`
	LastSeen  int64  `json:"lastSeen"`
}

type deviceBookRecord struct {
	header
	AlertsOff bool                `json:"alertsOff,omitempty"`
	Devices   []knownDeviceRecord `json:"devices,omitempty"`
}

func encodeDeviceBook(b *core.DeviceBook) ([]byte, error) {
	r := deviceBookRecord{header: current, AlertsOff: b.AlertsOff}
	for _, d := range b.Devices {
		r.Devices = append(r.Devices, knownDeviceRecord{Key: d.Key, FirstSeen: unixNano(d.FirstSeen), LastSeen: unixNano(d.LastSeen)})
	}
	return encode(r)
}

func decodeDeviceBook(userID string, v []byte) (*core.DeviceBook, error) {
	b := &core.DeviceBook{UserID: userID}
	if v == nil {
		return b, nil
	}
	var r deviceBookRecord
	if err := decode("device book", v, &r); err != nil {
		return nil, err
	}
	b.AlertsOff = r.AlertsOff
	for _, d := range r.Devices {
		b.Devices = append(b.Devices, core.KnownDevice{Key: d.Key, FirstSeen: fromUnixNano(d.FirstSeen), LastSeen: fromUnixNano(d.LastSeen)})
	}
	return b, nil
}

// FindDeviceBook returns the user's book, an empty one when it has none.
func (s *DB) FindDeviceBook(ctx context.Context, userID string) (*core.DeviceBook, error) {
	var b *core.DeviceBook
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		b, err = decodeDeviceBook(userID, tx.Bucket(bucketDeviceBooks).Get([]byte(userID)))
		return err
	})
	return b, err
}

// UpdateDeviceBook applies fn to the user's book in one transaction; the
// user must exist.
func (s *DB) UpdateDeviceBook(ctx context.Context, userID string, fn func(b *core.DeviceBook) error) (*core.DeviceBook, error) {
	var b *core.DeviceBook
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		if _, err := s.findUser(tx, userID); err != nil {
			return err
		}
		var err error
		if b, err = decodeDeviceBook(userID, tx.Bucket(bucketDeviceBooks).Get([]byte(userID))); err != nil {
			return err
		}
		if err := fn(b); err != nil {
			return err
		}
		b.UserID = userID
		v, err := encodeDeviceBook(b)
		if err != nil {
			return err
		}
		return tx.Bucket(bucketDeviceBooks).Put([]byte(userID), v)
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

var _ core.DeviceBookStore = (*DB)(nil)

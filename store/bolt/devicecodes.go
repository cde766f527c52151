package bolt

import (
	"context"
	"time"

	"go.etcd.io/bbolt"

	"github.com/sendlater/sendlater/core"
)

var _ core.DeviceCodeStore = (*DB)(nil)

var (
	bucketDeviceCodes         = []byte("device_codes")           // id -> deviceCodeRecord
	bucketDeviceCodesByDevice = []byte("device_codes_by_device") // device code hash -> id
	bucketDeviceCodesByUser   = []byte("device_codes_by_user")   // user code hash -> id
)

// createDeviceCodeBuckets is version 15: the device flow's requests. They
// live ten minutes, so the sweep reads them all instead of an index.
func createDeviceCodeBuckets(tx *bbolt.Tx) error {
	for _, b := range [][]byte{bucketDeviceCodes, bucketDeviceCodesByDevice, bucketDeviceCodesByUser} {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return err
		}
	}
	return nil
}

type deviceCodeRecord struct {
	header
	ID           string `json:"id"`
	DeviceHash   string `json:"deviceHash"`
	UserCodeHash string `json:"userCodeHash"`
	ClientName   string `json:"clientName"`
	UserAgent    string `json:"userAgent,omitempty"`
	Network      string `json:"network,omitempty"`
	CreatedAt    int64  `json:"createdAt"`
	ExpiresAt    int64  `json:"expiresAt"`
	Interval     int64  `json:"interval"`
	LastPolledAt int64  `json:"lastPolledAt,omitempty"`
	Status       string `json:"status"`
	UserID       string `json:"userId,omitempty"`
	SessionID    string `json:"sessionId,omitempty"`
	DecidedAt    int64  `json:"decidedAt,omitempty"`
}

func encodeDeviceCode(c *core.DeviceCode) ([]byte, error) {
	return encode(deviceCodeRecord{
		header: current, ID: c.ID, DeviceHash: c.DeviceHash, UserCodeHash: c.UserCodeHash, ClientName: c.ClientName,
		UserAgent: c.UserAgent, Network: c.Network, CreatedAt: unixNano(c.CreatedAt), ExpiresAt: unixNano(c.ExpiresAt),
		Interval: int64(c.Interval), LastPolledAt: unixNano(c.LastPolledAt), Status: c.Status, UserID: c.UserID,
		SessionID: c.SessionID, DecidedAt: unixNano(c.DecidedAt),
	})
}

func decodeDeviceCode(v []byte) (*core.DeviceCode, error) {
	var r deviceCodeRecord
	if err := decode("device code", v, &r); err != nil {
		return nil, err
	}
	return &core.DeviceCode{
		ID: r.ID, DeviceHash: r.DeviceHash, UserCodeHash: r.UserCodeHash, ClientName: r.ClientName,
		UserAgent: r.UserAgent, Network: r.Network, CreatedAt: fromUnixNano(r.CreatedAt), ExpiresAt: fromUnixNano(r.ExpiresAt),
		Interval: time.Duration(r.Interval), LastPolledAt: fromUnixNano(r.LastPolledAt), Status: r.Status, UserID: r.UserID,
		SessionID: r.SessionID, DecidedAt: fromUnixNano(r.DecidedAt),
	}, nil
}

// CreateDeviceCode stores c; either hash taken is a conflict.
func (s *DB) CreateDeviceCode(ctx context.Context, c *core.DeviceCode) error {
	if c.ID == "" {
		c.ID = core.NewID()
	}
	if err := c.Validate(); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketDeviceCodes).Get([]byte(c.ID)) != nil ||
			tx.Bucket(bucketDeviceCodesByDevice).Get([]byte(c.DeviceHash)) != nil ||
			tx.Bucket(bucketDeviceCodesByUser).Get([]byte(c.UserCodeHash)) != nil {
			return core.Errorf(core.EConflict, "A device code with this code exists.")
		}
		if err := tx.Bucket(bucketDeviceCodesByDevice).Put([]byte(c.DeviceHash), []byte(c.ID)); err != nil {
			return err
		}
		if err := tx.Bucket(bucketDeviceCodesByUser).Put([]byte(c.UserCodeHash), []byte(c.ID)); err != nil {
			return err
		}
		return putDeviceCode(tx, c)
	})
}

func putDeviceCode(tx *bbolt.Tx, c *core.DeviceCode) error {
	v, err := encodeDeviceCode(c)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketDeviceCodes).Put([]byte(c.ID), v)
}

func findDeviceCode(tx *bbolt.Tx, id []byte) (*core.DeviceCode, error) {
	if len(id) == 0 {
		return nil, core.ErrDeviceCodeUnknown()
	}
	v := tx.Bucket(bucketDeviceCodes).Get(id)
	if v == nil {
		return nil, core.ErrDeviceCodeUnknown()
	}
	return decodeDeviceCode(v)
}

func (s *DB) findDeviceCodeBy(ctx context.Context, index []byte, hash string) (*core.DeviceCode, error) {
	var c *core.DeviceCode
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		if hash == "" {
			return core.ErrDeviceCodeUnknown()
		}
		var err error
		c, err = findDeviceCode(tx, tx.Bucket(index).Get([]byte(hash)))
		return err
	})
	return c, err
}

// FindDeviceCodeByDevice finds a code by its device code's hash.
func (s *DB) FindDeviceCodeByDevice(ctx context.Context, deviceHash string) (*core.DeviceCode, error) {
	return s.findDeviceCodeBy(ctx, bucketDeviceCodesByDevice, deviceHash)
}

// FindDeviceCodeByUser finds a code by its user code's hash.
func (s *DB) FindDeviceCodeByUser(ctx context.Context, userCodeHash string) (*core.DeviceCode, error) {
	return s.findDeviceCodeBy(ctx, bucketDeviceCodesByUser, userCodeHash)
}

// UpdateDeviceCode applies fn in one transaction; the hashes stay.
func (s *DB) UpdateDeviceCode(ctx context.Context, id string, fn func(c *core.DeviceCode) error) (*core.DeviceCode, error) {
	var c *core.DeviceCode
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		var err error
		if c, err = findDeviceCode(tx, []byte(id)); err != nil {
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
		return putDeviceCode(tx, c)
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// DeleteDeviceCode deletes the code id.
func (s *DB) DeleteDeviceCode(ctx context.Context, id string) error {
	return s.update(ctx, func(tx *bbolt.Tx) error {
		c, err := findDeviceCode(tx, []byte(id))
		if err != nil {
			return err
		}
		return deleteDeviceCode(tx, c)
	})
}

func deleteDeviceCode(tx *bbolt.Tx, c *core.DeviceCode) error {
	if err := tx.Bucket(bucketDeviceCodesByDevice).Delete([]byte(c.DeviceHash)); err != nil {
		return err
	}
	if err := tx.Bucket(bucketDeviceCodesByUser).Delete([]byte(c.UserCodeHash)); err != nil {
		return err
	}
	return tx.Bucket(bucketDeviceCodes).Delete([]byte(c.ID))
}

// DeleteExpiredDeviceCodes removes the codes that expired before now.
func (s *DB) DeleteExpiredDeviceCodes(ctx context.Context, now time.Time) (int, error) {
	n := 0
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		var expired []*core.DeviceCode
		err := tx.Bucket(bucketDeviceCodes).ForEach(func(_, v []byte) error {
			c, err := decodeDeviceCode(v)
			if err == nil && c.ExpiresAt.Before(now) {
				expired = append(expired, c)
			}
			return err
		})
		if err != nil {
			return err
		}
		for _, c := range expired {
			if err := deleteDeviceCode(tx, c); err != nil {
				return err
			}
		}
		n = len(expired)
		return nil
	})
	return n, err
}

package main

import (
	"context"
	"fmt"
	"os"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/seal"
)

// store is every store interface of core that one backend implements, and
// what the commands do with the backend itself.
type store interface {
	core.UserStore
	core.MessageStore
	core.SessionStore
	core.AccessTokenStore
	core.ActionCodeStore
	core.ContactStore
	core.DeliveryStore
	core.BillingStore
	core.ProviderLinkStore
	core.MessageWatcher
	core.HealthStore
	core.Backuper
	Ping(ctx context.Context) error
	Close() error
}

var _ store = (*bolt.DB)(nil)

// openStore opens the store of the config: the one place that chooses the
// backend (today the bbolt file in the data directory). It returns the
// encryption key too, from which the other keys are derived.
func (a *app) openStore() (store, []byte, error) {
	if err := os.MkdirAll(a.cfg.DataDir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("data_dir: %w", err)
	}
	key, err := a.encryptionKey()
	if err != nil {
		return nil, nil, err
	}
	db, err := bolt.Open(a.cfg.storePath(), bolt.Options{Key: key, Reminders: a.cfg.reminders})
	if err != nil {
		return nil, nil, err
	}
	return db, key, nil
}

// encryptionKey returns the key from config, else from the key file (created
// on first start with mode 0600).
func (a *app) encryptionKey() ([]byte, error) {
	if a.cfg.EncryptionKey != "" {
		key, err := seal.ParseKey(a.cfg.EncryptionKey)
		if err != nil {
			return nil, fmt.Errorf("config: encryption_key: %s", core.ErrorMessageOrText(err))
		}
		return key, nil
	}
	file := a.cfg.EncryptionKeyFile
	if file == "" {
		file = a.cfg.keyPath()
	}
	key, err := seal.LoadOrCreateKey(file)
	if err != nil {
		return nil, fmt.Errorf("config: encryption_key_file: %s", core.ErrorMessageOrText(err))
	}
	return key, nil
}

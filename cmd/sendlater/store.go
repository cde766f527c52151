package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/doctor"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/seal"
	"github.com/sendlater/sendlater/store/transfer"
)

// store is every store interface of core that one backend implements, and
// what the commands do with the backend itself.
type store interface {
	core.Store
	transfer.Store
	Ping(ctx context.Context) error
	Close() error
}

var (
	_ store = (*bolt.DB)(nil)
	_ store = (*postgres.DB)(nil)
)

// driver is one backend, as config store.driver names it. The drivers map
// is the one place that knows the backends: a new one is a new folder and
// an entry here.
type driver struct {
	// open opens the store at where as mode says: creating it when
	// missing, or only one that exists (migrated when it is older).
	open func(ctx context.Context, a *app, where target, key []byte, mode openMode) (store, error)
	// where is the store the config names.
	where func(c *Config) target
	// missing tells, without the key, that there is no store at where
	// (nil: only opening tells).
	missing func(where target) bool
	// shared: many processes use the store at once (no single writer), so
	// commands talk to it directly, never through a server's admin socket.
	shared bool
	// createsKey: a missing key file is created at first start. A shared
	// store's key must be given: every replica needs the same one.
	createsKey bool
	// migrations lists the store's schema migrations and, with up, applies
	// the pending ones; nil: the store migrates itself when opened.
	migrations func(ctx context.Context, where target, up bool) ([]migration, error)
	// inspect is `sendlater doctor store`: it reads the store at where,
	// creating and migrating nothing, and checks it (key: nil when none
	// is at hand).
	inspect func(ctx context.Context, a *app, where target, key []byte) doctor.Section
}

// target is where a store is, and the setting that said so, for errors.
type target struct {
	value   string
	setting string
}

// migration is one schema migration of a store: applied at a time or
// pending (zero).
type migration struct {
	version   int
	name      string
	appliedAt time.Time
}

// openMode is what opening a store may do.
type openMode int

const (
	// openCreate creates the store, and a bbolt store's key, when missing:
	// `serve` (zero configuration) and the destination of `store copy`.
	openCreate openMode = iota
	// openExisting opens a store that exists, to read and write it: every
	// other command. Run from the wrong directory or with the wrong
	// settings, a command must not make an empty store (and a new key) and
	// report on it as if it were the real one.
	openExisting
	// openSource opens a store that exists, only to read it: the source of
	// `store copy`.
	openSource
)

var drivers = map[string]driver{
	"bolt": {
		open: openBolt, createsKey: true, inspect: inspectBolt,
		where: func(c *Config) target { return target{c.storePath(), "data_dir"} },
		missing: func(where target) bool {
			_, err := os.Stat(where.value)
			return errors.Is(err, os.ErrNotExist)
		},
	},
	"postgres": {
		open: openPostgres, shared: true, migrations: postgresMigrations, inspect: inspectPostgres,
		where: func(c *Config) target {
			switch {
			case c.Store.URLFile != "":
				return target{c.Store.URL, "store.url_file"}
			case c.Store.URL != "":
				return target{c.Store.URL, "store.url"}
			}
			return target{"", "store.url (empty: the PG* environment variables)"}
		},
	},
}

func driverNames() []string {
	var names []string
	for name := range drivers {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// driver is the backend the config names (validated with it).
func (a *app) driver() driver { return drivers[a.cfg.Store.Driver] }

// openStore opens the store the config names. It returns the encryption
// key too, from which the other keys are derived. Only with openCreate
// (serve) is a missing store, data directory or bbolt key created.
func (a *app) openStore(ctx context.Context, mode openMode) (store, []byte, error) {
	d := a.driver()
	where := d.where(a.cfg)
	if mode == openCreate {
		// The data directory holds the admin socket and the outbox
		// whatever the store, and the bbolt file.
		if err := privateDir(a.cfg.DataDir); err != nil {
			return nil, nil, err
		}
		if err := writableDir(a.cfg.DataDir); err != nil {
			return nil, nil, err
		}
	} else {
		if d.missing != nil && d.missing(where) {
			return nil, nil, a.noStore(where, nil)
		}
		if _, err := os.Stat(a.cfg.DataDir); err == nil {
			if err := privateDir(a.cfg.DataDir); err != nil {
				return nil, nil, err
			}
		}
	}
	key, err := a.encryptionKey(mode == openCreate && d.createsKey)
	if err != nil {
		return nil, nil, err
	}
	st, err := d.open(ctx, a, where, key, mode)
	if err != nil {
		if mode == openExisting && core.ErrorCode(err) == core.ENotFound {
			return nil, nil, a.noStore(where, err)
		}
		return nil, nil, err
	}
	return st, key, nil
}

// noStore is the error of a command that finds no store where the config
// points (cause: the store's own words, if any): where it looked, and how
// to point it at the right one.
func (a *app) noStore(where target, cause error) error {
	cfgFile := "no config file"
	if f := a.v.ConfigFileUsed(); f != "" {
		cfgFile = "config file " + f
	}
	if a.driver().shared {
		return fmt.Errorf("%s Point the command at the servers' database with store.url (SENDLATER_STORE_URL, "+
			"store.url_file, or the PG* variables when empty; %s, --config FILE names theirs); only `sendlater serve` "+
			"and `sendlater migrate up` create a store", core.ErrorMessageOrText(cause), cfgFile)
	}
	path := where.value
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return fmt.Errorf("there is no store at %s (data_dir %s, %s): run the command where the server runs, or point it "+
		"at the server's data directory with --data-dir DIR, SENDLATER_DATA_DIR or data_dir in its config file "+
		"(--config FILE), or at its database with store.driver postgres and store.url; only `sendlater serve` creates a store",
		path, a.cfg.DataDir, cfgFile)
}

func openBolt(ctx context.Context, a *app, where target, key []byte, mode openMode) (store, error) {
	if mode == openExisting {
		if _, err := os.Stat(where.value); errors.Is(err, os.ErrNotExist) {
			// bolt.Open would make one.
			return nil, core.Errorf(core.ENotFound, "There is no store at %s.", where.value)
		}
	}
	db, err := bolt.Open(where.value, bolt.Options{Key: key, Reminders: a.cfg.reminders, ReadOnly: mode == openSource})
	if err != nil {
		return nil, err // its messages name the file
	}
	return db, nil
}

func openPostgres(ctx context.Context, a *app, where target, key []byte, mode openMode) (store, error) {
	db, err := postgres.Open(ctx, where.value, postgres.Options{
		Key: key, Reminders: a.cfg.reminders, PoolSize: a.cfg.Store.PoolSize, MustExist: mode != openCreate,
	})
	if err != nil {
		return nil, settingError(where, err)
	}
	return db, nil
}

func postgresMigrations(ctx context.Context, where target, up bool) ([]migration, error) {
	list := postgres.MigrationStatus
	if up {
		list = postgres.MigrateUp
	}
	ms, err := list(ctx, where.value)
	if err != nil {
		return nil, settingError(where, err)
	}
	out := make([]migration, len(ms))
	for i, m := range ms {
		out[i] = migration{version: m.Version, name: m.Name, appliedAt: m.AppliedAt}
	}
	return out, nil
}

// settingError prefixes a store's error with the setting that named it,
// keeping its code: "config: store.url: Cannot reach PostgreSQL at ...".
func settingError(where target, err error) error {
	if e, ok := core.AsError(err); ok {
		return core.Errorf(e.Code, "config: %s: %s", where.setting, e.Message)
	}
	return fmt.Errorf("config: %s: %w", where.setting, err)
}

// privateDir makes the data directory, or makes an existing one private to
// this user (0700): it holds the store, its key and the admin socket. One
// that cannot be made private is refused.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("data_dir: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("data_dir: %w", err)
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("data_dir %s is open to other users (mode %04o) and cannot be made private (%v): "+
			"run `chmod 700 %s` as its owner, or choose another data_dir", dir, fi.Mode().Perm(), err, dir)
	}
	return nil
}

// writableDir refuses a data directory this process cannot write in, in
// those words: the key file, the store and the admin socket are made there,
// and the first to fail would otherwise report a temporary file's name.
func writableDir(dir string) error {
	f, err := os.CreateTemp(dir, ".sendlater-write-check-*")
	if err != nil {
		return fmt.Errorf("data_dir %s is not writable (%s): `sendlater serve` keeps the store, its encryption key "+
			"and the admin socket there; make it writable by the user running the server, or choose another "+
			"data_dir (--data-dir, SENDLATER_DATA_DIR)", dir, fsReason(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// fsReason is the reason of a file system error without the path it
// carries (a temporary name, or the path the message already names):
// "permission denied", "does not exist".
func fsReason(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "does not exist"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// encryptionKey returns the key from config, else from the key file,
// created (mode 0600) when missing if create is set.
func (a *app) encryptionKey(create bool) ([]byte, error) {
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
	if !create {
		if _, err := os.Stat(file); os.IsNotExist(err) && a.driver().shared {
			return nil, fmt.Errorf("config: encryption_key_file: there is no key at %s. With store.driver %s every "+
				"process needs the same key: copy the file of the first server, or make one with "+
				"`openssl rand -hex 32 > %s` (mode 0600) and set encryption_key_file (or encryption_key) "+
				"on every replica", file, a.cfg.Store.Driver, file)
		} else if os.IsNotExist(err) {
			return nil, fmt.Errorf("config: encryption_key_file: there is no key at %s: give the key the store was "+
				"made with (encryption_key_file, encryption_key or SENDLATER_ENCRYPTION_KEY); only `sendlater serve` "+
				"creates a key, with a new store", file)
		}
	}
	key, err := seal.LoadOrCreateKey(file)
	if err != nil {
		return nil, fmt.Errorf("config: encryption_key_file: %s", core.ErrorMessageOrText(err))
	}
	return key, nil
}

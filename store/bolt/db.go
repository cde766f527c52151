// Package bolt is the embedded store: every core store interface over one
// bbolt file, with message contents encrypted at rest (AES-256-GCM).
package bolt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/observe"
	"github.com/sendlater/sendlater/store/seal"
	"github.com/sendlater/sendlater/store/watch"
	"go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Options configure Open.
type Options struct {
	// Key is the 32-byte AES-256 key that encrypts message contents. See
	// seal.LoadOrCreateKey and seal.ParseKey.
	Key []byte
	// Reminders are the reminder offsets (core.NewReminders),
	// handed to Message.Reschedule. Default: one reminder core.ReminderLeadTime
	// ahead.
	Reminders core.Reminders
	// Timeout bounds the wait for the file lock. Default: 1s.
	Timeout time.Duration
	// ReadOnly opens the file with a shared lock; writes fail.
	ReadOnly bool
	// NoSync skips fsync on commit. A crash may lose or corrupt data: for
	// benchmarks and fixtures only.
	NoSync bool
}

// DB is the bbolt store. It implements core.UserStore, core.MessageStore,
// core.SessionStore, core.AccessTokenStore, core.ActionCodeStore,
// core.ContactStore and core.Backuper. Safe for concurrent use.
type DB struct {
	db        *bbolt.DB
	observed  observe.Observer // ObserveTransactions
	traces    observe.Traces   // TraceTransactions
	seal      *seal.Sealer
	reminders core.Reminders
	watchers  watch.Hub
	health    healthRecords
	commits   commitGroup // settlements, bounce marks and webhook ids
	limits    memLimits
	opened    openedRecords          // decoded records by their bytes (opened.go)
	gens      core.GenerationStripes // per-user generations (generations.go)
}

// The DB is the whole of core.Store: every interface of a store.
var _ core.Store = (*DB)(nil)

// Open opens (creating it when absent) the store at path, migrates its schema
// and verifies that opts.Key is the key the store was created with. It waits
// at most opts.Timeout for the file lock and then fails with EUnavailable.
func Open(path string, opts Options) (*DB, error) {
	sealer, err := seal.New(opts.Key)
	if err != nil {
		return nil, err
	}
	if opts.Reminders == nil {
		opts.Reminders = core.DefaultReminders
	}
	if opts.Timeout <= 0 {
		opts.Timeout = time.Second
	}
	if !opts.ReadOnly {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, core.Errorf(core.EUnavailable, "Cannot create the directory of the store %s: %v", path, err)
		}
	}
	bdb, err := bbolt.Open(path, 0o600, &bbolt.Options{
		Timeout:      opts.Timeout,
		ReadOnly:     opts.ReadOnly,
		NoSync:       opts.NoSync,
		FreelistType: bbolt.FreelistMapType,
		// Growing the mapping waits for every open read transaction, so a
		// long backup would stall writers; mapping 1 GiB of address space
		// up front (not memory) spares stores below that size. The file then
		// grows in sparse 16 MiB steps.
		InitialMmapSize: 1 << 30,
	})
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		return nil, core.Errorf(core.EUnavailable,
			"Another process (probably `sendlater serve`) holds %s: the store stayed locked for %s.", path, opts.Timeout)
	case errors.Is(err, os.ErrNotExist):
		return nil, core.Errorf(core.ENotFound, "There is no store at %s.", path)
	case err != nil:
		// bbolt's error is the *fs.PathError of the file, which names it
		// again ("open X: permission denied"): keep only its reason.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("cannot open the store %s: %w", path, pe.Err)
		}
		return nil, fmt.Errorf("cannot open the store %s: %w", path, err)
	}
	s := &DB{db: bdb, seal: sealer, reminders: opts.Reminders}
	if opts.ReadOnly {
		err = bdb.View(s.checkSchema)
	} else {
		err = bdb.Update(func(tx *bbolt.Tx) error {
			if err := s.migrate(tx); err != nil {
				return err
			}
			return sweepBlobPuts(tx) // blobs.go: puts a crash cut short
		})
	}
	if err != nil {
		bdb.Close()
		return nil, wrapErr(err)
	}
	return s, nil
}

// Close releases the file. Pending Batch calls finish first.
func (s *DB) Close() error { return wrapErr(s.db.Close()) }

// Path is the file the store lives in.
func (s *DB) Path() string { return s.db.Path() }

// Check verifies the consistency of the bbolt file: every page reachable
// once, keys in order, the freelist sound.
func (s *DB) Check() error {
	return s.db.View(func(tx *bbolt.Tx) error {
		var errs []error
		for err := range tx.Check() {
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	})
}

// Backup writes a consistent copy of the whole file to w while readers and
// writers go on. The copy opens with the same key.
func (s *DB) Backup(ctx context.Context, w io.Writer) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var n int64
	err := s.db.View(func(tx *bbolt.Tx) error {
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	return n, wrapErr(err)
}

// view and update run fn in one read or write transaction after checking ctx.
// Both are timed for ObserveTransactions.
func (s *DB) view(ctx context.Context, fn func(tx *bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	defer s.observed.Start("read")()
	end := s.traces.Start(ctx, "read")
	err := wrapErr(s.db.View(fn))
	end(err)
	return err
}

func (s *DB) update(ctx context.Context, fn func(tx *bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	defer s.observed.Start("write")()
	end := s.traces.Start(ctx, "write")
	err := wrapErr(s.db.Update(fn))
	end(err)
	return err
}

// ObserveTransactions has fn told the time of every read and write
// transaction from now on (the operator's metrics).
func (s *DB) ObserveTransactions(fn func(op string, took time.Duration)) { s.observed.Set(fn) }

// TraceTransactions makes a span of every transaction under a recorded span
// from now on (the operator's traces).
func (s *DB) TraceTransactions(t core.Tracer) { s.traces.Set(t, "bbolt") }

// wrapErr turns driver errors into core codes (DESIGN rule 3). Application
// errors, including those of callbacks, pass through unchanged; anything else
// stays an internal error with its detail for the log.
func wrapErr(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := core.AsError(err); ok {
		return err
	}
	switch {
	case errors.Is(err, bolterrors.ErrDatabaseNotOpen):
		return core.Errorf(core.EUnavailable, "The store is closed.")
	case errors.Is(err, bolterrors.ErrDatabaseReadOnly), errors.Is(err, bolterrors.ErrTxNotWritable):
		return core.Errorf(core.EUnavailable, "The store is open read-only.")
	case errors.Is(err, bolterrors.ErrValueTooLarge), errors.Is(err, bolterrors.ErrKeyTooLarge):
		return core.Errorf(core.ETooLarge, "The record is too large to store.")
	case errors.Is(err, bolterrors.ErrMaxSizeReached):
		return core.Errorf(core.EUnavailable, "The store has reached its maximum size.")
	}
	return fmt.Errorf("bolt: %w", err)
}

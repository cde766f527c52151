// Package postgres is the store for many servers on one PostgreSQL database:
// every core store interface over pgx, with message contents sealed exactly
// as in the bbolt store (store/seal), delivery claims taken with
// FOR UPDATE SKIP LOCKED, and the message watchers fed by LISTEN/NOTIFY so a
// change made by any process reaches the watchers of all.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/observe"
	"github.com/sendlater/sendlater/store/seal"
	"github.com/sendlater/sendlater/store/watch"
)

// Options configure Open.
type Options struct {
	// Key is the 32-byte AES-256 key that seals message contents: the same
	// key as the bbolt store's, so sealed bytes move between them.
	Key []byte
	// Reminders are the reminder offsets (core.NewReminders), handed to
	// Message.Reschedule. Default: core.DefaultReminders.
	Reminders core.Reminders
	// PoolSize bounds the connections kept open; 0: the URL's
	// pool_max_conns, else pgxpool's default (4, or the CPUs if more).
	PoolSize int
	// MustExist refuses a schema that holds no store (the source of a
	// copy) instead of creating one there.
	MustExist bool
}

// connectTimeout bounds a connection attempt unless the URL sets
// connect_timeout: a server that does not answer fails a request (503)
// instead of holding it.
const connectTimeout = 10 * time.Second

// DB is the PostgreSQL store. It implements core.UserStore,
// core.MessageStore, core.SessionStore, core.AccessTokenStore,
// core.ActionCodeStore, core.ContactStore, core.DeliveryStore,
// core.MessageWatcher, core.LimitStore and core.Backuper. Safe for
// concurrent use.
type DB struct {
	pool      *pgxpool.Pool
	observed  observe.Observer // ObserveTransactions
	traces    *observe.Traces  // TraceTransactions
	seal      *seal.Sealer
	reminders core.Reminders
	where     string // database and schema, for messages to operators

	watchers watch.Hub
	listener listener
	notes    notifier
	gens     generations
	settles  settleGroup
	bounces  bounceGroup
}

// The DB is the whole of core.Store: every interface of a store.
var _ core.Store = (*DB)(nil)

// metaKeyCheck is the meta row holding the key check (seal.KeyCheck).
const metaKeyCheck = "key_check"

// Open connects to the database at url (a postgres:// URL or key=value
// string; empty: the PG* environment variables), migrates the schema named
// first in its search_path under an advisory lock, and verifies that
// opts.Key is the key the store was created with.
func Open(ctx context.Context, url string, opts Options) (*DB, error) {
	sealer, err := seal.New(opts.Key)
	if err != nil {
		return nil, err
	}
	if opts.Reminders == nil {
		opts.Reminders = core.DefaultReminders
	}
	cfg, err := parseConfig(url)
	if err != nil {
		return nil, err
	}
	if opts.PoolSize > 0 {
		cfg.MaxConns = int32(opts.PoolSize)
	}
	traces := &observe.Traces{}
	cfg.ConnConfig.Tracer = statementTracer{traces}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, core.Errorf(core.EInvalid, "The PostgreSQL connection settings are not valid: %v", err)
	}
	s := &DB{pool: pool, seal: sealer, reminders: opts.Reminders, traces: traces}
	s.gens.id = core.NewID()
	if err := s.start(ctx, opts.MustExist); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// parseConfig reads the connection settings; the error never repeats a
// password.
func parseConfig(url string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		var pe *pgconn.ParseConfigError
		if errors.As(err, &pe) && pe.Unwrap() != nil {
			return nil, core.Errorf(core.EInvalid, "The PostgreSQL URL is not valid: %v", pe.Unwrap())
		}
		return nil, core.Errorf(core.EInvalid, "The PostgreSQL URL is not valid: it is neither a postgres:// URL nor key=value settings.")
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	return cfg, nil
}

// start checks the connection, migrates and verifies the key.
func (s *DB) start(ctx context.Context, mustExist bool) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return s.unreachable(err)
	}
	defer conn.Release()
	var database string
	var schema, channel *string
	err = conn.QueryRow(ctx, "select current_database(), current_schema(), 'sendlater_' || md5(current_schema())").
		Scan(&database, &schema, &channel)
	if err != nil {
		return s.unreachable(err)
	}
	if schema == nil {
		return core.Errorf(core.EInvalid,
			"The database %s has no schema named in search_path (%s): create it, or name an existing one.",
			database, conn.Conn().Config().RuntimeParams["search_path"])
	}
	s.where = fmt.Sprintf("database %s, schema %s", database, *schema)
	s.listener.channel = *channel
	if mustExist {
		var exists bool
		if err := conn.QueryRow(ctx, "select to_regclass('meta') is not null").Scan(&exists); err != nil {
			return wrapErr(err)
		}
		if !exists {
			return core.Errorf(core.ENotFound, "There is no Sendlater store in %s.", s.where)
		}
	}
	if _, err := migrate(ctx, conn.Conn()); err != nil {
		return wrapErr(err)
	}
	if err := s.checkKey(ctx, conn.Conn()); err != nil {
		return err
	}
	if _, err := s.SweepBlobPuts(ctx, blobPutIdle); err != nil { // blobs.go
		return err
	}
	if err := s.moveBounceMarks(ctx); err != nil { // bounces.go
		return err
	}
	return s.sealClearRows(ctx)
}

// unreachable is the error of a failed first contact, for the operator
// starting the process: it names the server, never the password.
func (s *DB) unreachable(err error) error { return unreachable(s.pool.Config().ConnConfig, err) }

// unreachable is the error of a failed first contact with the server of
// cfg.
func unreachable(cfg *pgx.ConnConfig, err error) error {
	return core.Errorf(core.EUnavailable, "Cannot reach PostgreSQL at %s:%d (database %s, user %s): %v",
		cfg.Host, cfg.Port, cfg.Database, cfg.User, briefCause(err))
}

// briefCause is the innermost useful text of a connection error, on one
// line: the server's message, or the network's error.
func briefCause(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Message
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return opErr.Error()
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

// checkKey stores the key check in a new store and verifies it in any.
func (s *DB) checkKey(ctx context.Context, conn *pgx.Conn) error {
	_, err := conn.Exec(ctx, "insert into meta (key, value) values ($1, $2) on conflict (key) do nothing",
		metaKeyCheck, s.seal.KeyCheck([]byte(metaKeyCheck)))
	if err != nil {
		return wrapErr(err)
	}
	var check []byte
	if err := conn.QueryRow(ctx, "select value from meta where key = $1", metaKeyCheck).Scan(&check); err != nil {
		return wrapErr(err)
	}
	if !s.seal.CheckKey([]byte(metaKeyCheck), check) {
		return core.Errorf(core.EInvalid,
			"The encryption key does not match this store (%s): use the key it was created with.", s.where)
	}
	return nil
}

// Close sends the pending notifications, stops the listener and closes
// every connection.
func (s *DB) Close() error {
	s.notes.closeConn()
	s.unregister()
	s.listener.stop()
	s.pool.Close()
	return nil
}

// KeyID names the store's key without revealing it (seal.Sealer.KeyID).
func (s *DB) KeyID() string { return s.seal.KeyID() }

// PoolStat is the connection pool's figures: connections acquired, idle
// and in all, acquires and their wait (the operator's metrics read them).
func (s *DB) PoolStat() *pgxpool.Stat { return s.pool.Stat() }

// Ping reports whether the database answers and holds the store.
func (s *DB) Ping(ctx context.Context) error {
	var one int
	return wrapErr(s.pool.QueryRow(ctx, "select 1 from meta where key = $1", metaKeyCheck).Scan(&one))
}

// Backup refuses: the database's own tools copy it consistently.
func (s *DB) Backup(ctx context.Context, w io.Writer) (int64, error) {
	return 0, core.Errorf(core.EInvalid,
		"A PostgreSQL store is backed up with pg_dump, not `sendlater backup` (which copies a bbolt store): "+
			"for example `pg_dump --format=custom --file=sendlater.dump \"$URL\"`, restored with pg_restore. "+
			"Keep the encryption key apart from the dump: it is not inside it.")
}

// querier is what a lowercase helper runs its statements on: a transaction,
// or the pool for a method whose one statement is its transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// execer runs a statement: a transaction at once, or queued, which keeps
// it for a round trip that sends several.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// queued collects statements to send together in one round trip.
type queued struct{ pgx.Batch }

func (q *queued) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	q.Queue(sql, args...)
	return pgconn.CommandTag{}, nil
}

// readThenWrite runs one read-write transaction in two round trips, for a
// read-modify-write whose rows its reads lock (FOR UPDATE): BEGIN and the
// statements reads queues, whose results scan reads in order, then the
// statements write queues from what was read, and COMMIT. Any failure rolls
// the transaction back; a connection left inside one is closed by the
// pool, never reused.
func (s *DB) readThenWrite(ctx context.Context, reads func(q *queued), scan func(r pgx.BatchResults) error, write func(q *queued) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ctx, end := s.traces.Begin(ctx, "write")
	err := s.readThenWriteOn(ctx, reads, scan, write)
	end(err)
	return err
}

// readThenWriteOn is readThenWrite on a connection of the pool.
func (s *DB) readThenWriteOn(ctx context.Context, reads func(q *queued), scan func(r pgx.BatchResults) error, write func(q *queued) error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return wrapErr(err)
	}
	defer conn.Release()
	first := &queued{}
	first.Queue("begin")
	reads(first)
	br := conn.SendBatch(ctx, &first.Batch)
	_, err = br.Exec()
	if err == nil {
		err = scan(br)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	committing := false // the COMMIT may have left: an error is no longer "nothing changed"
	if err == nil {
		second := &queued{}
		if err = write(second); err == nil {
			second.Queue("commit")
			committing = true
			err = conn.SendBatch(ctx, &second.Batch).Close()
		}
	}
	if err != nil && !conn.Conn().IsClosed() && conn.Conn().PgConn().TxStatus() != 'I' {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		conn.Exec(rctx, "rollback")
		cancel()
	}
	if committing {
		return wrapCommitErr(err)
	}
	return wrapErr(err)
}

// exec runs one statement that commits by itself (no transaction around
// it) on a connection of the pool: once the statement left, an error is
// wrapCommitErr's.
func (s *DB) exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return pgconn.CommandTag{}, wrapErr(err)
	}
	defer conn.Release()
	tag, err := conn.Exec(ctx, sql, args...)
	return tag, wrapCommitErr(err)
}

// view runs fn in one read-only transaction that sees one snapshot.
func (s *DB) view(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return s.inTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

// update runs fn in one read-write transaction (read committed: rows are
// locked with FOR UPDATE where they are read to be written).
// ObserveTransactions has fn told the time of every transaction from now
// on, read-only ("read") or not ("write"): the operator's metrics.
func (s *DB) ObserveTransactions(fn func(op string, took time.Duration)) { s.observed.Set(fn) }

// TraceTransactions makes a span of every transaction under a recorded span
// from now on (the operator's traces).
func (s *DB) TraceTransactions(t core.Tracer) { s.traces.Set(t, "postgresql") }

func (s *DB) update(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return s.inTx(ctx, pgx.TxOptions{}, fn)
}

// inTx is pgx.BeginTxFunc, but a read-write transaction whose COMMIT fails
// is wrapped by wrapCommitErr: it may have committed.
func (s *DB) inTx(ctx context.Context, opts pgx.TxOptions, fn func(tx pgx.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	op := "write"
	if opts.AccessMode == pgx.ReadOnly {
		op = "read"
	}
	defer s.observed.Start(op)()
	ctx, end := s.traces.Begin(ctx, op)
	err := s.runTx(ctx, opts, fn)
	end(err)
	return err
}

// runTx runs fn in a transaction of opts (inTx).
func (s *DB) runTx(ctx context.Context, opts pgx.TxOptions, fn func(tx pgx.Tx) error) error {
	tx, err := s.pool.BeginTx(ctx, opts)
	if err != nil {
		return wrapErr(err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback(ctx) // a failed rollback closes the connection
		return wrapErr(err)
	}
	err = tx.Commit(ctx)
	if opts.AccessMode == pgx.ReadOnly {
		return wrapErr(err)
	}
	return wrapCommitErr(err)
}

// limitArg is a LIMIT argument: limit, or no limit when it is 0 or less.
func limitArg(limit int) any {
	if limit <= 0 {
		return nil // LIMIT NULL: no limit
	}
	return limit
}

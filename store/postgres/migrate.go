package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

// The schema's migrations: migrations/NNNN_name.sql, applied in order of
// NNNN, each once, in its own transaction, recorded in schema_migrations.
// Append only: a released migration never changes.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migration is one migration and whether it ran.
type Migration struct {
	Version   int
	Name      string
	AppliedAt time.Time // zero: pending
	sql       string
}

// migrations reads the embedded files, in order.
func migrations() ([]Migration, error) {
	files, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []Migration
	for _, f := range files { // Glob sorts: NNNN orders them
		base := strings.TrimSuffix(path.Base(f), ".sql")
		num, name, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v != len(ms)+1 {
			return nil, fmt.Errorf("migration file %s: want %04d_name.sql", f, len(ms)+1)
		}
		b, err := migrationFiles.ReadFile(f)
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Version: v, Name: name, sql: string(b)})
	}
	return ms, nil
}

// MigrationStatus connects to url and lists every migration this binary
// knows with when it was applied there (zero: pending). It changes nothing
// and needs no key: `sendlater migrate status`.
func MigrationStatus(ctx context.Context, url string) ([]Migration, error) {
	var ms []Migration
	err := withConn(ctx, url, func(conn *pgx.Conn) error {
		var err error
		ms, err = status(ctx, conn)
		return err
	})
	return ms, err
}

// MigrateUp connects to url and applies the pending migrations, under the
// same lock as Open; it returns those it applied: `sendlater migrate up`.
func MigrateUp(ctx context.Context, url string) ([]Migration, error) {
	var applied []Migration
	err := withConn(ctx, url, func(conn *pgx.Conn) error {
		var err error
		applied, err = migrate(ctx, conn)
		return err
	})
	return applied, err
}

// withConn runs fn on one connection to url.
func withConn(ctx context.Context, url string, fn func(conn *pgx.Conn) error) error {
	cfg, err := parseConfig(url)
	if err != nil {
		return err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		return unreachable(cfg.ConnConfig, err)
	}
	defer conn.Close(context.Background())
	return wrapErr(fn(conn))
}

const createMigrationsTable = `create table if not exists schema_migrations (
	version    integer not null,
	name       text not null,
	applied_at timestamptz not null default now(),
	constraint schema_migrations_pkey primary key (version)
)`

// status lists the known migrations with their application times; a
// database migrated by a newer binary is refused.
func status(ctx context.Context, conn *pgx.Conn) ([]Migration, error) {
	ms, err := migrations()
	if err != nil {
		return nil, err
	}
	var exists bool
	if err := conn.QueryRow(ctx, "select to_regclass('schema_migrations') is not null").Scan(&exists); err != nil || !exists {
		return ms, err
	}
	rows, err := conn.Query(ctx, "select version, applied_at from schema_migrations order by version")
	if err != nil {
		return nil, err
	}
	var version int
	var appliedAt time.Time
	_, err = pgx.ForEachRow(rows, []any{&version, &appliedAt}, func() error {
		if version < 1 || version > len(ms) {
			return core.Errorf(core.EUnavailable,
				"The database has schema version %d, newer than this sendlater knows (%d): upgrade sendlater.", version, len(ms))
		}
		ms[version-1].AppliedAt = appliedAt
		return nil
	})
	return ms, err
}

// migrate applies the pending migrations under a session advisory lock
// keyed by the schema: of processes starting at once, one migrates while
// the others wait, then find nothing left to do.
func migrate(ctx context.Context, conn *pgx.Conn) ([]Migration, error) {
	const lockKey = "hashtextextended('sendlater migrate ' || current_schema(), 0)"
	if _, err := conn.Exec(ctx, "select pg_advisory_lock("+lockKey+")"); err != nil {
		return nil, err
	}
	defer func() {
		// A broken connection releases the lock with the session.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn.Exec(ctx, "select pg_advisory_unlock("+lockKey+")")
	}()
	if _, err := conn.Exec(ctx, createMigrationsTable); err != nil {
		return nil, err
	}
	ms, err := status(ctx, conn)
	if err != nil {
		return nil, err
	}
	var applied []Migration
	for _, m := range ms {
		if !m.AppliedAt.IsZero() {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			return tx.QueryRow(ctx, "insert into schema_migrations (version, name) values ($1, $2) returning applied_at",
				m.Version, m.Name).Scan(&m.AppliedAt)
		})
		if err != nil {
			if e := wrapErr(err); core.ErrorCode(e) != core.EInternal {
				return applied, e
			}
			return applied, core.Errorf(core.EInternal, "Migrating the database to version %d (%s) failed: %v", m.Version, m.Name, err)
		}
		applied = append(applied, m)
	}
	return applied, nil
}

package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/store/seal"
)

// Inspection is what Inspect found in a database (`sendlater doctor`).
type Inspection struct {
	// Where names the server, database and schema, never a password:
	// "127.0.0.1:5432, database sendlater, schema public".
	Where string
	// ServerVersion is the server's server_version, e.g. "15.8".
	ServerVersion string
	// Applied are the migrations recorded in schema_migrations, newest
	// last; Known how many this binary has. A version above Known was
	// applied by a newer binary.
	Applied []int
	Known   int
	// HasStore: the schema holds a store (its meta table).
	HasStore bool
	// KeyChecked: a key was given and the store holds a key check; KeyOK:
	// the key opens it.
	KeyChecked, KeyOK bool
	// Now is the database's clock (now()), read between Sent and
	// Received on this machine's.
	Now, Sent, Received time.Time
}

// Inspect connects to url and reads, changing nothing: the server's version,
// the migrations applied to the schema first in search_path, whether the key
// (when not nil) opens the store's key check, and the database's clock. An
// unreachable server is the error Open gives.
func Inspect(ctx context.Context, url string, key []byte) (Inspection, error) {
	var in Inspection
	ms, err := migrations()
	if err != nil {
		return in, err
	}
	in.Known = len(ms)
	err = withConn(ctx, url, func(conn *pgx.Conn) error {
		cfg := conn.Config()
		var schema *string
		if err := conn.QueryRow(ctx, "select current_schema()").Scan(&schema); err != nil {
			return err
		}
		in.Where = fmt.Sprintf("%s:%d, database %s, schema %s", cfg.Host, cfg.Port, cfg.Database, deref(schema, "(none: search_path names no schema that exists)"))
		in.Sent = time.Now()
		if err := conn.QueryRow(ctx, "select now(), current_setting('server_version')").Scan(&in.Now, &in.ServerVersion); err != nil {
			return err
		}
		in.Received = time.Now()
		var migrated bool
		if err := conn.QueryRow(ctx, "select to_regclass('schema_migrations') is not null, to_regclass('meta') is not null").
			Scan(&migrated, &in.HasStore); err != nil {
			return err
		}
		if migrated {
			rows, err := conn.Query(ctx, "select version from schema_migrations order by version")
			if err != nil {
				return err
			}
			if in.Applied, err = pgx.CollectRows(rows, pgx.RowTo[int]); err != nil {
				return err
			}
		}
		if !in.HasStore || key == nil {
			return nil
		}
		var check []byte
		err := conn.QueryRow(ctx, "select value from meta where key = $1", metaKeyCheck).Scan(&check)
		if err == pgx.ErrNoRows {
			return nil
		} else if err != nil {
			return err
		}
		sealer, err := seal.New(key)
		if err != nil {
			return err
		}
		in.KeyChecked, in.KeyOK = true, sealer.CheckKey([]byte(metaKeyCheck), check)
		return nil
	})
	return in, err
}

func deref(s *string, none string) string {
	if s == nil {
		return none
	}
	return *s
}

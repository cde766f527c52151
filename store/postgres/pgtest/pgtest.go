// Package pgtest gives each test its own empty schema in the test database,
// dropped after the test, and skips the test with one clear line when no
// PostgreSQL server answers (or fails it when SENDLATER_REQUIRE_POSTGRES=1).
package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
)

// The environment of the Postgres tests.
const (
	// EnvURL names the server and database the tests make their schemas in.
	EnvURL = "SENDLATER_TEST_POSTGRES_URL"
	// EnvRequire=1 fails the tests instead of skipping them (CI sets it).
	EnvRequire = "SENDLATER_REQUIRE_POSTGRES"
	// EnvSkipLog names a file the skip notice is appended to, so that
	// `make test` can print it once after `go test` hid it.
	EnvSkipLog = "SENDLATER_SKIP_LOG"
	// DefaultURL is the project machines' server.
	DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
)

// Key is the key of test stores.
var Key = bytes.Repeat([]byte{0x5e}, seal.KeySize)

var server struct {
	once sync.Once
	url  string
	err  error
}

// baseURL returns the test database's URL once a server answered there, or
// skips (fails) tb.
func baseURL(tb testing.TB) string {
	tb.Helper()
	server.once.Do(func() {
		server.url = os.Getenv(EnvURL)
		if server.url == "" {
			server.url = DefaultURL
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, server.url)
		if err == nil {
			err = conn.Ping(ctx)
			conn.Close(ctx)
		}
		server.err = err
	})
	if server.err != nil {
		notice := fmt.Sprintf("PostgreSQL tests skipped: no server answers at %s (%v). "+
			"Start PostgreSQL 15 there (trust auth, database test) or set %s to run them; %s=1 fails instead of skipping.",
			redacted(server.url), strings.Join(strings.Fields(server.err.Error()), " "), EnvURL, EnvRequire)
		if os.Getenv(EnvRequire) == "1" {
			tb.Fatal(notice)
		}
		if log := os.Getenv(EnvSkipLog); log != "" {
			if f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
				fmt.Fprintln(f, notice)
				f.Close()
			}
		}
		tb.Skip(notice)
	}
	return server.url
}

// redacted is a URL fit for a message: without its password.
func redacted(s string) string {
	if u, err := url.Parse(s); err == nil && u.Scheme != "" {
		return u.Redacted()
	}
	return "the URL in " + EnvURL
}

// URL returns the URL of a new, empty schema for tb (first in search_path),
// dropped with everything in it when tb ends.
func URL(tb testing.TB) string {
	tb.Helper()
	base := baseURL(tb)
	schema := "t_" + strings.ToLower(core.RandomString(16))
	Exec(tb, base, "create schema "+schema)
	tb.Cleanup(func() { Exec(tb, base, "drop schema "+schema+" cascade") })
	return schemaURL(tb, base, schema)
}

// KeptURL returns the URL of the schema named schema, created when absent
// and kept after the test: for benchmark fixtures that take minutes to
// build. Drop it by hand to rebuild.
func KeptURL(tb testing.TB, schema string) string {
	tb.Helper()
	base := baseURL(tb)
	Exec(tb, base, "create schema if not exists "+pgx.Identifier{schema}.Sanitize())
	return schemaURL(tb, base, schema)
}

func schemaURL(tb testing.TB, base, schema string) string {
	tb.Helper()
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("%s is not a URL: %v", EnvURL, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Exec runs one statement on a connection of its own to dbURL.
func Exec(tb testing.TB, dbURL, sql string, args ...any) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
}

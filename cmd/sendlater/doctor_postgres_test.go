package main_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/store/postgres/pgtest"
)

// doctor store on PostgreSQL: reachable with its version, the migrations
// current, the key, the clock; an empty schema, a migration missing (an
// older binary's database) and one of a newer binary are each a ✗ saying
// what to do; an unreachable server is one too.
func TestDoctorStoreOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	dir := t.TempDir()
	env := pgEnv(url)
	r := run(t, dir, env, "doctor", "store")
	assertOneProblem(t, "an empty schema", r, "✗ schema: the schema holds no Sendlater store", "point store.url at the servers' database")

	openPostgres(t, url).Close() // creates the store, as serve would
	r = run(t, dir, env, "doctor", "store")
	if r.code != 0 || strings.Contains(r.stdout, "✗") || strings.Count(r.stdout, "✓") != 4 ||
		!regexp.MustCompile(`✓ reachable: PostgreSQL \d+\.\d+.* answers`).MatchString(r.stdout) ||
		!strings.Contains(r.stdout, "✓ key: the encryption key opens the store") ||
		!regexp.MustCompile(`✓ clock: within \d+(\.\d+)?m?s of the database's`).MatchString(r.stdout) {
		t.Fatalf("a healthy store: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	current, _ := strconv.Atoi(regexp.MustCompile(`✓ schema: version (\d+), this sendlater's`).FindStringSubmatch(r.stdout)[1])
	if current < 20 {
		t.Fatalf("schema version %d:\n%s", current, r.stdout)
	}

	pgtest.Exec(t, url, "delete from schema_migrations where version = $1", current)
	r = run(t, dir, env, "doctor", "store")
	assertOneProblem(t, "a migration missing", r, fmt.Sprintf("✗ schema: version %d, behind this sendlater's %d", current-1, current),
		"run `sendlater migrate up`")
	pgtest.Exec(t, url, "insert into schema_migrations (version, name) values ($1, 'restored')", current)

	pgtest.Exec(t, url, "insert into schema_migrations (version, name) values ($1, 'from_the_future')", current+1)
	r = run(t, dir, env, "doctor", "store")
	assertOneProblem(t, "a newer schema", r, fmt.Sprintf("✗ schema: version %d, written by a newer sendlater", current+1),
		"run the newer sendlater that migrated it")
	pgtest.Exec(t, url, "delete from schema_migrations where version = $1", current+1)

	r = run(t, dir, pgEnv("postgres://sendlater:hunter2@127.0.0.1:1/sendlater"), "doctor", "store")
	assertOneProblem(t, "unreachable", r, "✗ reachable: Cannot reach PostgreSQL at 127.0.0.1:1 (database sendlater, user sendlater)",
		"check store.url (host, port, database, user, password)")
	if strings.Contains(r.stdout+r.stderr, "hunter2") {
		t.Fatalf("the password shows:\n%s%s", r.stdout, r.stderr)
	}
}

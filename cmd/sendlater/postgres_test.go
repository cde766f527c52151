package main_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer/smtptest"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
)

// pgEnv is the environment of a process on the PostgreSQL store at url,
// sealed with pgtest.Key.
func pgEnv(url string, extra ...string) []string {
	return append([]string{
		"SENDLATER_STORE_DRIVER=postgres", "SENDLATER_STORE_URL=" + url,
		"SENDLATER_ENCRYPTION_KEY=" + hex.EncodeToString(pgtest.Key),
	}, extra...)
}

// openPostgres opens the store at url as the commands do, closed after the
// test.
func openPostgres(t *testing.T, url string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), url, postgres.Options{Key: pgtest.Key})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestPostgresStartErrorsNameTheSetting: a bad or unreachable store stops a
// command with one line naming the setting, never a password.
func TestPostgresStartErrorsNameTheSetting(t *testing.T) {
	dir := t.TempDir()
	urlFile := filepath.Join(dir, "store-url")
	if err := os.WriteFile(urlFile, []byte("postgres://sendlater:hunter2@127.0.0.1:1/sendlater\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	key := "SENDLATER_ENCRYPTION_KEY=" + hex.EncodeToString(pgtest.Key)
	tests := []struct {
		env  []string
		want string
	}{
		{[]string{"SENDLATER_STORE_DRIVER=mysql"}, "config: store.driver must be one of bolt, postgres"},
		{[]string{"SENDLATER_STORE_DRIVER=postgres", "SENDLATER_STORE_POOL_SIZE=0"}, "config: store.pool_size must be between 1 and 1000"},
		{[]string{"SENDLATER_STORE_DRIVER=postgres", key, "SENDLATER_STORE_URL=postgres://h:99999999/db"},
			"config: store.url: The PostgreSQL URL is not valid"},
		{[]string{"SENDLATER_STORE_DRIVER=postgres", key, "SENDLATER_STORE_URL=postgres://sendlater:hunter2@127.0.0.1:1/sendlater"},
			"config: store.url: Cannot reach PostgreSQL at 127.0.0.1:1 (database sendlater, user sendlater)"},
		{[]string{"SENDLATER_STORE_DRIVER=postgres", key, "SENDLATER_STORE_URL_FILE=" + urlFile},
			"config: store.url_file: Cannot reach PostgreSQL at 127.0.0.1:1"},
		{[]string{"SENDLATER_STORE_DRIVER=postgres", key, "PGHOST=127.0.0.1", "PGPORT=1", "PGDATABASE=fromenv"},
			"config: store.url (empty: the PG* environment variables): Cannot reach PostgreSQL at 127.0.0.1:1 (database fromenv"},
		{[]string{"SENDLATER_STORE_DRIVER=postgres", "SENDLATER_STORE_URL=postgres://127.0.0.1:1/db"},
			"config: encryption_key_file: there is no key at data/sendlater.key. With store.driver postgres every process needs the same key"},
	}
	for _, tt := range tests {
		r := run(t, dir, tt.env, "users", "list")
		msg := strings.TrimSpace(r.stderr)
		if r.code == 0 || !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") || strings.Contains(msg, "hunter2") {
			t.Errorf("%v: exit %d, stderr %q; want one line with %q", tt.env, r.code, r.stderr, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "sendlater.key")); !os.IsNotExist(err) {
		t.Error("a key file was created for a PostgreSQL store")
	}
}

// TestPostgresCommandsTalkToTheDatabase: with a shared store every command
// reads and writes the database itself, also while a server runs.
func TestPostgresCommandsTalkToTheDatabase(t *testing.T) {
	url := pgtest.URL(t)
	dir := t.TempDir()
	mail := smtptest.Start(t)
	env := pgEnv(url, smtpEnv(mail, "SENDLATER_SCHEDULER_INTERVAL=1h")...)

	r := mustRunEnv(t, dir, env, "migrate", "status")
	if want := migrationFiles(t); strings.Count(r.stdout, "pending") != want {
		t.Fatalf("migrate status of an empty schema:\n%s", r.stdout)
	}
	r = mustRunEnv(t, dir, env, "migrate", "up")
	if !strings.Contains(r.stdout, "applied 0001 schema") || !strings.Contains(r.stdout, "applied 0004 billing_and_links") {
		t.Fatalf("migrate up:\n%s", r.stdout)
	}
	if r = mustRunEnv(t, dir, env, "migrate", "up"); !strings.Contains(r.stdout, "(0 migrations applied now)") {
		t.Fatalf("migrate up again:\n%s", r.stdout)
	}
	if r = mustRunEnv(t, dir, env, "migrate", "status"); strings.Contains(r.stdout, "pending") {
		t.Fatalf("migrate status after up:\n%s", r.stdout)
	}

	u, ms := seedInto(t, openPostgres(t, url))
	srv := startServer(t, dir, env...)
	r = mustRunEnv(t, dir, env, "users", "list", "--verbose")
	if !strings.Contains(r.stderr, "talking to the database directly") || !strings.Contains(r.stdout, u.ID) {
		t.Fatalf("users list beside a server: %+v", r)
	}
	postPageView(t, srv.url, "/faq")
	postPageView(t, srv.url, "/faq")
	r = mustRunEnv(t, dir, env, "stats", "--json", "--verbose")
	if !strings.Contains(r.stderr, "talking to the database directly") || !strings.Contains(r.stdout, `"path": "/faq",`) ||
		!strings.Contains(r.stdout, `"views": 2`) {
		t.Fatalf("stats beside a server: %+v", r)
	}
	r = mustRunEnv(t, dir, env, "messages", "show", ms[0].ID, "--reveal")
	if !strings.Contains(r.stdout, "The key is under the blue pot.") {
		t.Fatalf("messages show --reveal:\n%s", r.stdout)
	}
	mustRunEnv(t, dir, env, "messages", "reschedule", ms[0].ID, "--at", "now")
	r = mustRunEnv(t, dir, env, "send-due", "--json", "--verbose")
	var res struct{ Delivered int }
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Delivered != 1 || strings.Contains(r.stderr, "admin socket") {
		t.Fatalf("send-due on the database: %+v", r)
	}
	if _, err := mail.WaitFor(1, 5*time.Second); err != nil {
		t.Fatal(err)
	}

	// The server's scheduler and the send-due run each recorded their pass.
	r = mustRunEnv(t, dir, env, "status", "--json")
	var h struct {
		State     string
		Processes []struct {
			Process   string
			Scheduler bool
			LastPass  struct{ Delivered int }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &h); err != nil || h.State != "ok" || len(h.Processes) != 2 {
		t.Fatalf("status: %v\n%s", err, r.stdout)
	}
	for _, p := range h.Processes {
		cron := strings.HasSuffix(p.Process, " send-due")
		if cron == p.Scheduler || (cron && p.LastPass.Delivered != 1) {
			t.Errorf("status: process %+v", p)
		}
	}

	backup := filepath.Join(dir, "backup.db")
	r = run(t, dir, env, "backup", backup)
	if r.code == 0 || !strings.Contains(r.stderr, "pg_dump") {
		t.Fatalf("backup of a PostgreSQL store: %+v", r)
	}
	if _, err := os.Stat(backup); !os.IsNotExist(err) {
		t.Fatal("backup wrote a file")
	}
}

func TestMigrateIsForPostgres(t *testing.T) {
	r := run(t, t.TempDir(), nil, "migrate", "status")
	if r.code == 0 || !strings.Contains(r.stderr, "store.driver bolt: the store migrates itself when opened") {
		t.Fatalf("%+v", r)
	}
}

// TestStoreCopyBothWays: bbolt -> PostgreSQL -> bbolt through the command,
// rerun safely, with what the copies hold read back, the audit log and the
// page views through `audit list` and `stats` on PostgreSQL.
func TestStoreCopyBothWays(t *testing.T) {
	url := pgtest.URL(t)
	dir := t.TempDir()
	u, ms := seed(t, dir)
	src := openStore(t, dir, filepath.Join(dir, "data", "sendlater.db"))
	ctx := context.Background()
	for _, e := range []*core.AuditEntry{
		{ID: "audit1", At: time.Date(2026, 11, 20, 9, 30, 0, 1, time.UTC), Actor: "ops (uid 1000)", Action: "users.disable",
			Target: u.Email, Detail: "disabled the account"},
		{ID: "audit2", At: time.Date(2026, 11, 20, 9, 31, 0, 0, time.UTC), Actor: "ops (uid 1000)", Action: "messages.reveal",
			Target: ms[0].ID, Detail: "read the message body"},
	} {
		if err := src.AppendAudit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range []string{"/faq", "/faq", "/"} {
		if err := src.CountPageView(ctx, "2026-11-20", path); err != nil {
			t.Fatal(err)
		}
	}
	wantAudit, err := src.ListAudit(ctx, time.Time{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantViews, err := src.PageViews(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	// An attached file, sealed as the attachments service seals it.
	file := bytes.Repeat([]byte("a scanned will "), 20000)
	sealed, err := core.SealAttachment(bytes.Repeat([]byte{7}, 32), "f1", bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var wantFile bytes.Buffer
	if _, err := src.Blobs().PutBlob(ctx, ms[0].ID+"/f1", io.TeeReader(sealed, &wantFile)); err != nil {
		t.Fatal(err)
	}
	src.Close()
	key := "SENDLATER_ENCRYPTION_KEY=" + hex.EncodeToString(dataKey(t, dir))

	r := run(t, dir, []string{key}, "store", "copy", "--from", "bolt:data/sendlater.db", "--to", "postgres:"+url)
	if r.code != 0 || !strings.Contains(r.stdout, "copied from bolt data/sendlater.db to postgres: 1 users, 2 messages") ||
		!strings.Contains(r.stdout, ", 2 audit entries, 2 page-view counters, 0 drafts, 0 passkeys, 0 device books, 0 file records, 1 attached files\n") ||
		!strings.Contains(r.stdout, "8 records were new or changed in postgres; the counts match") {
		t.Fatalf("copy to postgres: %+v", r)
	}
	r = run(t, dir, []string{key}, "store", "copy", "--from", "bolt:data/sendlater.db", "--to", "postgres:"+url)
	if r.code != 0 || !strings.Contains(r.stdout, "0 records were new or changed") {
		t.Fatalf("the rerun changed something: %+v", r)
	}
	pg := []string{key, "SENDLATER_STORE_DRIVER=postgres", "SENDLATER_STORE_URL=" + url}
	r = mustRunEnv(t, dir, pg, "audit", "list", "--json")
	if !strings.Contains(r.stdout, `"id": "audit1",`) || !strings.Contains(r.stdout, `"action": "messages.reveal",`) {
		t.Fatalf("audit list on postgres after the copy:\n%s", r.stdout)
	}
	r = mustRunEnv(t, dir, pg, "stats", "--since", "2026-11-20", "--json")
	if !strings.Contains(r.stdout, `"path": "/faq",`) || !strings.Contains(r.stdout, `"views": 2`) {
		t.Fatalf("stats on postgres after the copy (twice):\n%s", r.stdout)
	}
	r = run(t, dir, []string{key}, "store", "copy", "--from", "postgres:"+url, "--to", "bolt:back.db")
	if r.code != 0 || !strings.Contains(r.stdout, "8 records were new or changed in bolt back.db") {
		t.Fatalf("copy back to bolt: %+v", r)
	}
	back := openStore(t, dir, filepath.Join(dir, "back.db"))
	defer back.Close()
	for _, m := range ms {
		got, err := back.FindMessageByID(ctx, m.ID)
		if err != nil || got.Body != m.Body || got.Owner != u.ID || !got.SendDate.Equal(m.SendDate) {
			t.Fatalf("message %s after the round trip: %+v %v", m.ID, got, err)
		}
	}
	audit, err := back.ListAudit(ctx, time.Time{}, 0)
	if err != nil || !reflect.DeepEqual(audit, wantAudit) {
		t.Fatalf("audit log after the round trip: %+v %v, want %+v", audit, err, wantAudit)
	}
	views, err := back.PageViews(ctx, "")
	if err != nil || !reflect.DeepEqual(views, wantViews) {
		t.Fatalf("page views after the round trip: %+v %v, want %+v", views, err, wantViews)
	}
	f, err := back.Blobs().OpenBlob(ctx, ms[0].ID+"/f1")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, err := io.ReadAll(io.NewSectionReader(f, 0, f.Size())); err != nil || !bytes.Equal(got, wantFile.Bytes()) {
		t.Fatalf("the attached file after the round trip: %d bytes, %v; want the %d sealed bytes unchanged", len(got), err, wantFile.Len())
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", "data/sendlater.db", "--to", "postgres:" + url}, "--from must be DRIVER:WHERE with DRIVER one of bolt, postgres"},
		{[]string{"--from", "bolt:nosuch.db", "--to", "bolt:other.db"}, "There is no store at nosuch.db"},
		{[]string{"--from", "postgres:" + pgtest.URL(t), "--to", "bolt:other.db"}, "config: --from: There is no Sendlater store in database"},
	} {
		r := run(t, dir, []string{key}, append([]string{"store", "copy"}, tt.args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("store copy %v: %+v, want %q", tt.args, r, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "nosuch.db")); !os.IsNotExist(err) {
		t.Error("copying from a missing file created it")
	}
}

// migrationFiles is how many PostgreSQL migrations the binary carries.
func migrationFiles(t *testing.T) int {
	t.Helper()
	files, err := filepath.Glob("../../store/postgres/migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no migrations found: %v", err)
	}
	return len(files)
}

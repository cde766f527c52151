package web_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/sendlater/sendlater/blob/s3/s3test"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/web"
)

// The markers of TestFilesLeaveNoPlaintext: one in a file's bytes, one in
// its name.
var (
	contentMarker = []byte("CONTENT-MARKER-5e1f7a the will is in the desk")
	nameMarker    = []byte("NAME-MARKER-c47a90")
)

// holdsMarker reports which marker b holds, as bytes or spelt in hex (a
// bytea read as text), in any case.
func holdsMarker(b []byte) string {
	b = bytes.ToLower(b)
	for _, m := range [][]byte{contentMarker, nameMarker} {
		if bytes.Contains(b, bytes.ToLower(m)) || bytes.Contains(b, []byte(hex.EncodeToString(m))) {
			return string(m)
		}
	}
	return ""
}

// Files uploaded through the HTTP API with a marker in their bytes and
// in their names leave neither marker in the bbolt file, in any column of
// any PostgreSQL table (as text, bytea spelt in hex, and bytea as its
// bytes) or in any object of the S3 bucket: a complete file of three
// parts and an upload left after its first part. Then a file stored
// unsealed under the same search is found in each, so the search could
// see one.
func TestFilesLeaveNoPlaintext(t *testing.T) {
	for _, where := range []string{"bbolt", "postgres", "s3"} {
		t.Run(where, func(t *testing.T) {
			c := testenv.Config{Start: testenv.DefaultStart, AttachmentPartSize: httpPart}
			var search func() string // the marker found, or ""
			switch where {
			case "bbolt":
				c.Path = filepath.Join(t.TempDir(), "sendlater.db")
				search = func() string { return searchFile(t, c.Path) }
			case "postgres":
				c.Backend, c.PostgresURL = testenv.Postgres, pgtest.URL(t)
				search = func() string { return searchTables(t, c.PostgresURL) }
			case "s3":
				var backend *s3mem.Backend
				c.Path = filepath.Join(t.TempDir(), "sendlater.db")
				c.Blobs, backend = s3test.New(t)
				search = func() string {
					if m := searchFile(t, c.Path); m != "" { // the records
						return m
					}
					return searchBucket(t, backend)
				}
			}
			e := testenv.New(t, c)
			a := scopedAPI(t, e)
			ann, _ := proSignedUp(t, e, "ann@example.com")
			var m web.MessageJSON
			a.ok(nil, http.StatusCreated, "POST", "/api/messages", ann,
				map[string]string{"title": "Papers", "name": "Bob", "recipient": "bob@example.com", "message": "See the files."}, &m)
			data := bytes.Repeat(append(contentMarker, ' '), 2*httpPart/len(contentMarker)+100)
			name := string(nameMarker) + " will.txt"
			f := uploadWhole(t, a, ann, m.ID, name, data)
			if f.Name != name {
				t.Fatalf("the file's name %q", f.Name)
			}
			var left web.FileJSON
			resp := a.ok(nil, http.StatusCreated, "POST", "/api/messages/"+m.ID+"/files", ann,
				map[string]any{"name": string(nameMarker) + " draft.txt", "size": len(data)}, &left)
			if r := sendPart(t, a, resp.Header.Get("Location"), ann, 0, data[:httpPart]); r.StatusCode != http.StatusNoContent {
				t.Fatalf("the first part of the upload left: %d", r.StatusCode)
			}
			if r, got := download(t, a, ann, "/api/messages/"+m.ID+"/files/"+f.ID+"/content"); r.StatusCode != http.StatusOK || !bytes.Equal(got, data) {
				t.Fatalf("the file reads back %d, equal %v", r.StatusCode, bytes.Equal(got, data))
			}
			if found := search(); found != "" {
				t.Fatalf("%s holds %q in plaintext", where, found)
			}
			if _, err := e.Blobs.PutBlob(context.Background(), "att/CONTROL/00000.unsealed", bytes.NewReader(data)); err != nil {
				t.Fatal(err)
			}
			if found := search(); found != string(contentMarker) {
				t.Fatalf("the search does not find a file stored unsealed in %s (%q): it could not see plaintext", where, found)
			}
		})
	}
}

// searchFile reads the bbolt file's raw bytes.
func searchFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return holdsMarker(b)
}

// searchTables reads every table of the store's schema: each row as text
// (a bytea spelt in hex) and each bytea column's bytes.
func searchTables(t *testing.T, url string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `select table_name, column_name, data_type from information_schema.columns
		where table_schema = current_schema() order by table_name, ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	type column struct{ table, name, typ string }
	cols, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (column, error) {
		var c column
		return c, r.Scan(&c.table, &c.name, &c.typ)
	})
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]bool{}
	for _, c := range cols {
		if !tables[c.table] {
			tables[c.table] = true
			var dump []byte
			if err := conn.QueryRow(ctx, "select coalesce(string_agg(t::text, E'\\n'), '') from "+
				pgx.Identifier{c.table}.Sanitize()+" t").Scan(&dump); err != nil {
				t.Fatal(err)
			}
			if m := holdsMarker(dump); m != "" {
				return m
			}
		}
		if c.typ != "bytea" {
			continue
		}
		rows, err := conn.Query(ctx, "select "+pgx.Identifier{c.name}.Sanitize()+" from "+pgx.Identifier{c.table}.Sanitize())
		if err != nil {
			t.Fatal(err)
		}
		values, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range values {
			if m := holdsMarker(v); m != "" {
				return m
			}
		}
	}
	if len(tables) < 10 {
		t.Fatalf("only %d tables searched", len(tables))
	}
	return ""
}

// searchBucket reads every object of the bucket.
func searchBucket(t *testing.T, backend *s3mem.Backend) string {
	t.Helper()
	list, err := backend.ListBucket(s3test.Bucket, nil, gofakes3.ListBucketPage{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Contents) == 0 {
		t.Fatal("the bucket is empty")
	}
	for _, o := range list.Contents {
		obj, err := backend.GetObject(s3test.Bucket, o.Key, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(obj.Contents)
		obj.Contents.Close()
		if err != nil {
			t.Fatal(err)
		}
		if m := holdsMarker(append([]byte(o.Key+"\n"), b...)); m != "" {
			return m
		}
	}
	return ""
}

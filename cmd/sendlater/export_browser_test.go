package main_test

import (
	"archive/zip"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestExportInABrowser drives web/ui/e2e/export.mjs against the real
// binary: a Pro account with two files (attached with `messages attach`)
// sees its quota in the settings and downloads the zip export there; the
// zip, unzipped here, holds export.json and both files' bytes, equal.
func TestExportInABrowser(t *testing.T) {
	b := needBrowser(t)
	dir := t.TempDir()
	srv := startServer(t, dir)
	s := signUp(t, srv.url, "ann@example.com")
	mustRun(t, dir, "users", "set-plan", "ann@example.com", "pro")
	createMessage(t, srv.url, s.idToken, "Deeds")
	var list []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "messages", "list", "--json").stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("messages list: %v %+v", err, list)
	}
	want := map[string][]byte{"will.pdf": make([]byte, 3_000_000), "notes.txt": []byte("The deeds are in the blue box.\n")}
	rand.Read(want["will.pdf"])
	copy(want["will.pdf"], "%PDF-1.7\n")
	for name, data := range want {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		mustRun(t, dir, "messages", "attach", list[0].ID, p)
	}

	saved := filepath.Join(dir, "export.zip")
	b.run(t, srv, 4*time.Minute, "export.mjs", "ann@example.com", clusterPassword, saved)

	zr, err := zip.OpenReader(saved)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	got := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		got[f.Name] = b
	}
	if !bytes.Contains(got["export.json"], []byte(`"email": "ann@example.com"`)) {
		t.Fatalf("export.json: %.300s", got["export.json"])
	}
	for name, data := range want {
		if b := got["files/"+list[0].ID+"/"+name]; !bytes.Equal(b, data) {
			t.Fatalf("%s in the zip: %d bytes, want %d (equal %v)", name, len(b), len(data), bytes.Equal(b, data))
		}
	}
}

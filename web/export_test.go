package web_test

import (
	"archive/zip"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

// uploadWhole uploads data as the file name of message id, part after part.
func uploadWhole(t *testing.T, a *identityAPI, token, id, name string, data []byte) web.FileJSON {
	t.Helper()
	var f web.FileJSON
	resp := a.ok(nil, http.StatusCreated, "POST", "/api/messages/"+id+"/files", token, map[string]any{"name": name, "size": len(data)}, &f)
	path := resp.Header.Get("Location")
	for off := int64(0); off < int64(len(data)) || off == 0; off += f.PartSize {
		if r := sendPart(t, a, path, token, off, data[off:min(off+f.PartSize, int64(len(data)))]); r.StatusCode != http.StatusNoContent {
			t.Fatalf("part at %d of %s: %d", off, name, r.StatusCode)
		}
		if len(data) == 0 {
			break
		}
	}
	a.ok(nil, http.StatusOK, "GET", path, token, nil, &f)
	a.Clock.Add(time.Second) // the next file is the newer
	if f.State != "complete" {
		t.Fatalf("%s after its parts: %+v", name, f)
	}
	return f
}

// getExport asks GET /api/me/export with query and accept, and returns the
// reply read whole.
func getExport(t *testing.T, a *identityAPI, token, query, accept string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", a.srv.URL()+"/api/me/export"+query, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

type exportedFiles struct {
	Messages []struct {
		ID string `json:"id"`
	} `json:"messages"`
	Files []web.ExportedFileJSON `json:"files"`
}

// The zip export holds export.json (the JSON export with the files'
// records and their paths) and every complete file's bytes under
// files/MESSAGE/NAME, two of one name made unique, a sealed message's file
// as the bytes its author's client sealed; an upload under way is listed
// without bytes; nothing of another author's. The JSON form lists the
// records; Accept: application/zip asks for the zip too; a format not
// known is refused with its field.
func TestExportZip(t *testing.T) {
	for _, backend := range []string{testenv.Bolt, testenv.Postgres} {
		t.Run(backend, func(t *testing.T) {
			e := testenv.New(t, testenv.Config{Backend: backend, Start: testenv.DefaultStart, AttachmentPartSize: httpPart})
			a := scopedAPI(t, e)
			ann, annID := proSignedUp(t, e, "ann@example.com")
			bob, _ := proSignedUp(t, e, "bob@example.com")
			e.MustVerify(t, annID)
			msg := map[string]any{"title": "Papers", "name": "Bob", "recipient": "bob@example.com", "message": "See the files."}
			var m1, m2, mb web.MessageJSON
			a.ok(nil, http.StatusCreated, "POST", "/api/messages", ann, msg, &m1)
			a.ok(nil, http.StatusCreated, "POST", "/api/messages", bob, msg, &mb)
			id := core.NewID()
			env, err := core.Seal("violet harbor quietly mends seven copper lanterns", id, []byte("ZEBRA"), core.DefaultSealParams)
			if err != nil {
				t.Fatal(err)
			}
			a.ok(nil, http.StatusCreated, "POST", "/api/messages", ann, map[string]any{"id": id, "title": "Sealed", "name": "Bob",
				"recipient": "bob@example.com", "message": "", "sealed": map[string]any{"envelope": env.String(), "hint": "h"}}, &m2)

			big := make([]byte, 2*httpPart+123)
			rand.Read(big)
			copy(big, "%PDF-1.7\n")
			text := []byte(strings.Repeat("The deed is in the blue folder.\n", 300))
			plainBytes := make([]byte, 5000)
			rand.Read(plainBytes)
			sealedBytes := sealedFile(t, id, plainBytes) // as the author's client seals it
			want := map[string][]byte{}
			f1 := uploadWhole(t, a, ann, m1.ID, "will.pdf", big)
			f2 := uploadWhole(t, a, ann, m1.ID, "will.pdf", text)
			f3 := uploadWhole(t, a, ann, m2.ID, "key.bin", sealedBytes)
			f4 := uploadWhole(t, a, ann, m1.ID, "empty.txt", nil)
			uploadWhole(t, a, bob, mb.ID, "bobs.txt", []byte("bob's own"))
			var partial web.FileJSON
			a.ok(nil, http.StatusCreated, "POST", "/api/messages/"+m1.ID+"/files", ann, map[string]any{"name": "half.bin", "size": 10}, &partial)
			want["files/"+m1.ID+"/will.pdf"] = big
			want["files/"+m1.ID+"/will (2).pdf"] = text
			want["files/"+m2.ID+"/key.bin"] = sealedBytes
			want["files/"+m1.ID+"/empty.txt"] = []byte{}

			// The JSON form: the records, no paths.
			var plain exportedFiles
			a.ok(nil, http.StatusOK, "GET", "/api/me/export", ann, nil, &plain)
			states := map[string]string{}
			for _, f := range plain.Files {
				if f.Path != "" {
					t.Fatalf("a path in the JSON export: %+v", f)
				}
				states[f.ID] = f.State
			}
			if len(plain.Files) != 5 || states[f1.ID] != "complete" || states[partial.ID] != "uploading" {
				t.Fatalf("the JSON export's files: %v", states)
			}
			a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, "GET", "/api/me/export?format=tar", ann, nil)

			for _, ask := range []struct{ query, accept string }{{"?format=zip", ""}, {"", "application/zip"}} {
				resp, body := getExport(t, a, ann, ask.query, ask.accept)
				if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/zip" ||
					!strings.HasPrefix(resp.Header.Get("Content-Disposition"), `attachment; filename="sendlater-export-`) ||
					resp.Header.Get("Cache-Control") != "private, no-store" {
					t.Fatalf("zip export %+v: %d %v", ask, resp.StatusCode, resp.Header)
				}
				zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
				if err != nil {
					t.Fatal(err)
				}
				got := map[string][]byte{}
				var x exportedFiles
				for _, zf := range zr.File {
					rc, err := zf.Open()
					if err != nil {
						t.Fatal(err)
					}
					b, err := io.ReadAll(rc)
					rc.Close()
					if err != nil {
						t.Fatalf("%s: %v", zf.Name, err)
					}
					if zf.Name == "export.json" {
						if err := json.Unmarshal(b, &x); err != nil {
							t.Fatal(err)
						}
						continue
					}
					got[zf.Name] = b
				}
				if zr.File[0].Name != "export.json" || len(x.Messages) != 2 || len(x.Files) != 5 {
					t.Fatalf("export.json: first %s, %d messages, files %+v", zr.File[0].Name, len(x.Messages), x.Files)
				}
				paths := map[string]string{}
				for _, f := range x.Files {
					paths[f.ID] = f.Path
				}
				if paths[f1.ID] != "files/"+m1.ID+"/will.pdf" || paths[f2.ID] != "files/"+m1.ID+"/will (2).pdf" ||
					paths[f3.ID] != "files/"+m2.ID+"/key.bin" || paths[f4.ID] != "files/"+m1.ID+"/empty.txt" || paths[partial.ID] != "" {
					t.Fatalf("the paths: %v", paths)
				}
				if len(got) != len(want) {
					t.Fatalf("the zip holds %d files, want %d", len(got), len(want))
				}
				for name, b := range want {
					if !bytes.Equal(got[name], b) {
						t.Fatalf("%s: %d bytes, want %d, equal %v", name, len(got[name]), len(b), bytes.Equal(got[name], b))
					}
				}
			}
			// bob's has his one file.
			_, body := getExport(t, a, bob, "?format=zip", "")
			zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
			if err != nil || len(zr.File) != 2 || zr.File[1].Name != "files/"+mb.ID+"/bobs.txt" {
				t.Fatalf("bob's zip: %v %+v", err, zr)
			}
		})
	}
}

// GET /api/me/files tells the account's files and bytes against its plan's
// limits, fresh after each upload and delete; Starter's limit is 0.
func TestFilesUsage(t *testing.T) {
	e := testenv.New(t, testenv.Config{Start: testenv.DefaultStart, AttachmentPartSize: httpPart})
	a := scopedAPI(t, e)
	ann, _ := proSignedUp(t, e, "ann@example.com")
	free, _ := signedUp(t, e, "free@example.com")
	var u web.FilesUsageJSON
	a.ok(nil, http.StatusOK, "GET", "/api/me/files", free, nil, &u)
	if u != (web.FilesUsageJSON{Plan: core.PlanStarter, MaxFiles: core.MaxAttachments}) {
		t.Fatalf("Starter's usage: %+v", u)
	}
	a.ok(nil, http.StatusOK, "GET", "/api/me/files", ann, nil, &u)
	if u != (web.FilesUsageJSON{Plan: core.PlanPro, Limit: 250_000_000, PerMessage: 25_000_000, MaxFiles: core.MaxAttachments}) {
		t.Fatalf("Pro's usage before any file: %+v", u)
	}
	var m web.MessageJSON
	a.ok(nil, http.StatusCreated, "POST", "/api/messages", ann,
		map[string]string{"title": "Papers", "name": "Bob", "recipient": "bob@example.com", "message": "See the files."}, &m)
	f := uploadWhole(t, a, ann, m.ID, "a.txt", []byte("hello"))
	a.ok(nil, http.StatusCreated, "POST", "/api/messages/"+m.ID+"/files", ann, map[string]any{"name": "b.bin", "size": 1000}, nil)
	a.ok(nil, http.StatusOK, "GET", "/api/me/files", ann, nil, &u)
	if u.Files != 2 || u.Used != 1005 {
		t.Fatalf("after two uploads: %+v", u)
	}
	a.ok(nil, http.StatusOK, "DELETE", "/api/messages/"+m.ID+"/files/"+f.ID, ann, nil, nil)
	a.ok(nil, http.StatusOK, "GET", "/api/me/files", ann, nil, &u)
	if u.Files != 1 || u.Used != 1000 {
		t.Fatalf("after a delete: %+v", u)
	}
	a.fail(nil, http.StatusUnauthorized, core.EInvalidToken, "GET", "/api/me/files", "", nil)
	// A read-only token reads neither the quota nor the export (scope account).
	var reader web.CreatedTokenJSON
	a.ok(nil, http.StatusCreated, "POST", "/api/me/tokens", ann, map[string]string{"name": "reader"}, &reader)
	wantScope(t, a, core.ScopeAccount, "GET", "/api/me/files", reader.Token, nil)
	wantScope(t, a, core.ScopeAccount, "GET", "/api/me/export?format=zip", reader.Token, nil)
}

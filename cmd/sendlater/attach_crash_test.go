package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
)

// The uploads of TestUploadsSurviveSIGKILL: crashUploaders at once, each
// on a message of its own, files of crashFileSize (three parts, the last
// short) one after the other.
const (
	crashUploaders = 6
	crashFileSize  = 2*core.DefaultAttachmentPartSize + 300_000
	crashFilesEach = 8 // within the 10 files and 25 MB of a message
)

// crashFileData is file n of uploader u: random bytes made again from
// their seed when checked (not held: 48 files of 2.4 MB).
func crashFileData(u, n int) []byte {
	var seed [32]byte
	seed[0], seed[1] = byte(u), byte(n)
	b := make([]byte, crashFileSize)
	rand.NewChaCha8(seed).Read(b)
	return b
}

// crashFile is what an uploader knows of one file: its path once made,
// the offset the server acknowledged, and whether the last part was.
type crashFile struct {
	u, n     int
	path     string
	acked    int64
	complete bool
}

// filesAPI is an author's client of the files' routes on a server.
type filesAPI struct{ url, token string }

func (a filesAPI) do(method, path string, body []byte, headers ...string) (*http.Response, []byte, error) {
	req, err := http.NewRequest(method, a.url+path, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	return resp, reply, err
}

// sendParts sends f's parts from offset on until the file is complete or
// a request fails (the server killed); each 204 is an acknowledgement.
func (a filesAPI) sendParts(f *crashFile, data []byte, offset int64) error {
	part := int64(core.DefaultAttachmentPartSize)
	for off := offset; off < int64(len(data)); off += part {
		resp, reply, err := a.do("PATCH", f.path, data[off:min(off+part, int64(len(data)))],
			"Content-Type", "application/offset+octet-stream", "Upload-Offset", strconv.FormatInt(off, 10))
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusNoContent {
			return fmt.Errorf("PATCH %s at %d: %d %s", f.path, off, resp.StatusCode, reply)
		}
		f.acked = min(off+part, int64(len(data)))
		f.complete = f.acked == int64(len(data))
	}
	return nil
}

// upload makes file n of uploader u on message id and sends its parts.
func (a filesAPI) upload(f *crashFile, messageID string) error {
	body, _ := json.Marshal(map[string]any{"name": fmt.Sprintf("scan-%d-%d.pdf", f.u, f.n), "size": crashFileSize})
	resp, reply, err := a.do("POST", "/api/messages/"+messageID+"/files", body, "Content-Type", "application/json")
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("POST files: %d %s", resp.StatusCode, reply)
	}
	f.path = resp.Header.Get("Location")
	return a.sendParts(f, crashFileData(f.u, f.n), 0)
}

// offset asks where an upload stands (HEAD).
func (a filesAPI) offset(t *testing.T, path string) int64 {
	t.Helper()
	resp, _, err := a.do("HEAD", path, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("HEAD %s: %v %v", path, resp, err)
	}
	n, err := strconv.ParseInt(resp.Header.Get("Upload-Offset"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// readsBack fails unless the file at path downloads as data.
func (a filesAPI) readsBack(t *testing.T, path string, data []byte) {
	t.Helper()
	resp, got, err := a.do("GET", path+"/content", nil)
	if err != nil || resp.StatusCode != http.StatusOK || !bytes.Equal(got, data) {
		t.Fatalf("%s reads back %v %v: %d bytes, equal %v", path, resp, err, len(got), bytes.Equal(got, data))
	}
}

// newMessage makes a message for the files and returns its id.
func (a filesAPI) newMessage(t *testing.T, i int) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"title": fmt.Sprintf("Papers %d", i), "name": "Bob",
		"recipient": "bob@example.com", "message": "See the files."})
	resp, reply, err := a.do("POST", "/api/messages", body, "Content-Type", "application/json")
	var env struct{ Data struct{ ID string } }
	if err != nil || resp.StatusCode != http.StatusCreated || json.Unmarshal(reply, &env) != nil {
		t.Fatalf("POST /api/messages: %v %v %s", resp, err, reply)
	}
	return env.Data.ID
}

// listFiles is the message's files as the API lists them.
func (a filesAPI) listFiles(t *testing.T, messageID string) []struct{ ID, State string } {
	t.Helper()
	resp, reply, err := a.do("GET", "/api/messages/"+messageID+"/files", nil)
	var env struct{ Data []struct{ ID, State string } }
	if err != nil || resp.StatusCode != http.StatusOK || json.Unmarshal(reply, &env) != nil {
		t.Fatalf("GET files: %v %v %s", resp, err, reply)
	}
	return env.Data
}

// runUploads starts the uploaders and returns their files and a wait for
// them to stop (the first failed request, the server killed, ends each).
func runUploads(a filesAPI, messages []string, completed *atomic.Int32) ([][]*crashFile, func()) {
	files := make([][]*crashFile, len(messages))
	var wg sync.WaitGroup
	for u := range messages {
		wg.Go(func() {
			for n := range crashFilesEach {
				f := &crashFile{u: u, n: n}
				files[u] = append(files[u], f)
				if err := a.upload(f, messages[u]); err != nil {
					return
				}
				completed.Add(1)
			}
		})
	}
	return files, wg.Wait
}

// TestUploadsSurviveSIGKILL runs the real server, uploads files from
// crashUploaders clients at once over HTTP and kills the server with
// SIGKILL while they go (once two files are complete). Started again on
// the same store: every file acknowledged complete reads back byte for
// byte, no upload is behind what was acknowledged, the cut ones resume
// from the server's offset; `sendlater attachments gc` then leaves
// exactly the parts the records list (none orphaned, none of them
// removed), and the files still read back. bbolt and PostgreSQL.
func TestUploadsSurviveSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test")
	}
	for _, backend := range []string{"bolt", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			var env []string
			if backend == "postgres" {
				env = pgEnv(pgtest.URL(t))
			}
			srv := startServer(t, dir, env...)
			email := "ann-" + strings.ToLower(core.RandomString(6)) + "@example.com"
			signUp(t, srv.url, email)
			mustRunEnv(t, dir, env, "users", "set-plan", email, "pro")
			a := filesAPI{url: srv.url, token: signIn(t, srv.url, email).idToken}
			messages := make([]string, crashUploaders)
			for i := range messages {
				messages[i] = a.newMessage(t, i)
			}

			var completed atomic.Int32
			files, wait := runUploads(a, messages, &completed)
			for deadline := time.Now().Add(time.Minute); completed.Load() < 2; time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("no two uploads complete in a minute\n%s", srv.logs)
				}
			}
			time.Sleep(time.Duration(rand.IntN(300)) * time.Millisecond)
			srv.cmd.Process.Kill() // SIGKILL
			<-srv.done
			wait()

			srv = startServer(t, dir, env...)
			a.url = srv.url
			acked, lost, cut := 0, 0, 0
			for _, fs := range files {
				for _, f := range fs {
					if f.path == "" {
						continue // its POST went unanswered: listed below if made
					}
					data := crashFileData(f.u, f.n)
					if f.complete {
						acked++
						a.readsBack(t, f.path, data)
						continue
					}
					off := a.offset(t, f.path)
					if off < f.acked {
						t.Fatalf("%s stands at %d after the restart, %d was acknowledged", f.path, off, f.acked)
					}
					if off == int64(len(data)) { // its last part was stored, its reply lost
						lost++
						a.readsBack(t, f.path, data)
						f.complete = true
						continue
					}
					cut++
					if err := a.sendParts(f, data, off); err != nil || !f.complete {
						t.Fatalf("resuming %s from %d: %v", f.path, off, err)
					}
				}
			}
			if acked < 2 {
				t.Fatalf("%d files acknowledged complete before the kill", acked)
			}
			// A file whose POST's reply was lost is one no client knows:
			// deleted, as the web app's "remove it" does.
			for _, m := range messages {
				for _, f := range a.listFiles(t, m) {
					if f.State != "complete" {
						if resp, _, err := a.do("DELETE", "/api/messages/"+m+"/files/"+f.ID, nil); err != nil || resp.StatusCode != http.StatusOK {
							t.Fatalf("DELETE an unknown upload: %v %v", resp, err)
						}
					}
				}
			}
			r := mustRunEnv(t, dir, env, "attachments", "gc")
			t.Logf("%d acknowledged complete, %d complete with the last reply lost, %d cut and resumed; gc: %s",
				acked, lost, cut, strings.TrimSpace(r.stdout))
			for _, fs := range files {
				for _, f := range fs {
					if f.complete {
						a.readsBack(t, f.path, crashFileData(f.u, f.n))
					}
				}
			}
			srv.stop(t)
			listed, stored := storedParts(t, backend, dir, env)
			if !slices.Equal(listed, stored) {
				t.Fatalf("after gc the records list %d parts, the storage holds %d under att/:\nlisted %v\nstored %v",
					len(listed), len(stored), listed, stored)
			}
		})
	}
}

// storedParts opens the store the server used (stopped) and returns the
// keys of the parts its records list and the att/ blobs it holds, sorted.
func storedParts(t *testing.T, backend, dir string, env []string) (listed, stored []string) {
	t.Helper()
	ctx := context.Background()
	var st interface {
		EachAttachment(context.Context, func(*core.Attachment) error) error
		Blobs() core.BlobStore
	}
	if backend == "postgres" {
		st = openPostgres(t, strings.TrimPrefix(env[1], "SENDLATER_STORE_URL="))
	} else {
		db := openStore(t, dir, filepath.Join(dir, "data", "sendlater.db"))
		t.Cleanup(func() { db.Close() })
		st = db
	}
	if err := st.EachAttachment(ctx, func(a *core.Attachment) error {
		listed = append(listed, a.PartKeys()...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.Blobs().ListBlobs(ctx, core.AttachmentBlobPrefix, func(key string, _ int64) error {
		stored = append(stored, key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(listed)
	slices.Sort(stored)
	return listed, stored
}

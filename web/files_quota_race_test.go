package web_test

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

// raceOutcome is one upload of the quota race: the POST's reply and, for
// a winner, whether its parts all went.
type raceOutcome struct {
	status int
	env    envelope
	path   string
	err    error
}

// raceUpload makes a file of data on message id and sends its parts, as a
// client does, once start is closed; no t.Fatal off the test's goroutine.
func raceUpload(a *identityAPI, token, id string, data []byte, start <-chan struct{}) raceOutcome {
	body, _ := json.Marshal(map[string]any{"name": "scan.pdf", "size": len(data)})
	req, _ := http.NewRequest("POST", a.srv.URL()+"/api/messages/"+id+"/files", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	<-start
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return raceOutcome{err: err}
	}
	var o raceOutcome
	o.status, o.path = resp.StatusCode, resp.Header.Get("Location")
	err = json.NewDecoder(resp.Body).Decode(&o.env)
	resp.Body.Close()
	if err != nil || o.status != http.StatusCreated {
		o.err = err
		return o
	}
	part, _ := strconv.Atoi(resp.Header.Get("Upload-Part-Size"))
	for off := 0; off < len(data); off += part {
		req, _ := http.NewRequest("PATCH", a.srv.URL()+o.path, bytes.NewReader(data[off:min(off+part, len(data))]))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/offset+octet-stream")
		req.Header.Set("Upload-Offset", strconv.Itoa(off))
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			o.err = err
			return o
		}
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
		if r.StatusCode != http.StatusNoContent {
			o.err = fmt.Errorf("PATCH at %d: %d", off, r.StatusCode)
			return o
		}
	}
	return o
}

// Eight uploads made at once over HTTP, each a third of the account's
// bytes (on eight messages, so that only the account's limit binds):
// exactly three are made and complete, the five others are refused with
// the quota's error naming the size, nothing of them is kept, and
// GET /api/me/files then says exactly three files and the whole quota.
// The store's side of it is storetest's AttachmentQuotaRace.
func TestFileQuotaRaceOverHTTP(t *testing.T) {
	const third = 3*httpPart + 1000 // four parts, the last a short one
	limits := map[core.PlanID]core.AttachmentLimits{core.PlanPro: {PerMessage: third, PerAccount: 3 * third}}
	testenv.Backends(t, testenv.Config{Start: testenv.DefaultStart, AttachmentPartSize: httpPart, AttachmentLimits: limits},
		func(t *testing.T, e *testenv.Env) {
			a := scopedAPI(t, e)
			ann, _ := proSignedUp(t, e, "ann@example.com")
			ids := make([]string, 8)
			for i := range ids {
				var m web.MessageJSON
				a.ok(nil, http.StatusCreated, "POST", "/api/messages", ann, map[string]string{"title": fmt.Sprintf("Papers %d", i),
					"name": "Bob", "recipient": "bob@example.com", "message": "See the files."}, &m)
				ids[i] = m.ID
			}
			data := make([]byte, third)
			rand.Read(data)
			start := make(chan struct{})
			out := make([]raceOutcome, len(ids))
			var wg sync.WaitGroup
			for i := range ids {
				wg.Go(func() { out[i] = raceUpload(a, ann, ids[i], data, start) })
			}
			close(start)
			wg.Wait()
			var won []raceOutcome
			for i, o := range out {
				switch {
				case o.status == http.StatusCreated && o.err == nil:
					won = append(won, o)
				case o.status == http.StatusForbidden && o.env.Code == core.EPlanLimit && o.env.Fields["size"] != "":
				default:
					t.Fatalf("upload %d: %d %+v %v", i, o.status, o.env, o.err)
				}
			}
			if len(won) != 3 {
				t.Fatalf("%d uploads won the race, want exactly 3", len(won))
			}
			for _, o := range won {
				var f web.FileJSON
				a.ok(nil, http.StatusOK, "GET", o.path, ann, nil, &f)
				if f.State != "complete" || f.Size != third {
					t.Fatalf("a winner after its parts: %+v", f)
				}
				resp, got := download(t, a, ann, o.path+"/content")
				if resp.StatusCode != http.StatusOK || !bytes.Equal(got, data) {
					t.Fatalf("a winner reads back %d, %d bytes, equal %v", resp.StatusCode, len(got), bytes.Equal(got, data))
				}
			}
			var u web.FilesUsageJSON
			a.ok(nil, http.StatusOK, "GET", "/api/me/files", ann, nil, &u)
			want := web.FilesUsageJSON{Plan: core.PlanPro, Files: 3, Used: 3 * third, Limit: 3 * third, PerMessage: third,
				MaxFiles: core.MaxAttachments}
			if u != want {
				t.Fatalf("the quota after the race: %+v, want %+v", u, want)
			}
			// Full: one byte more is refused the same way.
			a.fail(nil, http.StatusForbidden, core.EPlanLimit, "POST", "/api/messages/"+ids[0]+"/files", ann,
				map[string]any{"name": "one.txt", "size": 1})
		})
}

// download GETs path with the bearer token and returns the reply and its
// body read whole.
func download(t *testing.T, a *identityAPI, token, path string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", a.srv.URL()+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
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

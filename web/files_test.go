package web_test

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

const httpPart = 2 * core.AttachmentChunkSize

// proSignedUp signs email up on an active Pro plan.
func proSignedUp(t *testing.T, e *testenv.Env, email string) (token, uid string) {
	t.Helper()
	token, uid = signedUp(t, e, email)
	if _, err := e.Store.UpdateUser(e.Ctx, uid, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = core.PriceMap{}.PriceFor(core.PlanPro), "active"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return token, uid
}

// sendPart PATCHes body at offset and returns the reply.
func sendPart(t *testing.T, a *identityAPI, path, token string, offset int64, body []byte) *http.Response {
	t.Helper()
	req, err := http.NewRequest("PATCH", a.srv.URL()+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/offset+octet-stream")
	req.Header.Set("Upload-Offset", strconv.FormatInt(offset, 10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// dropPart sends the headers of a part and half its bytes on a raw
// connection, then closes it: a connection lost in the middle.
func dropPart(t *testing.T, a *identityAPI, path, token string, offset int64, body []byte) {
	t.Helper()
	u, _ := url.Parse(a.srv.URL())
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "PATCH %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/offset+octet-stream\r\n"+
		"Upload-Offset: %d\r\nContent-Length: %d\r\n\r\n", path, u.Host, token, offset, len(body))
	c.Write(body[:len(body)/2])
	time.Sleep(50 * time.Millisecond)
	c.Close()
}

// uploadOffset asks where the upload stands (HEAD).
func uploadOffset(t *testing.T, a *identityAPI, path, token string) int64 {
	t.Helper()
	req, _ := http.NewRequest("HEAD", a.srv.URL()+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	n, err := strconv.ParseInt(resp.Header.Get("Upload-Offset"), 10, 64)
	if resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("HEAD %s: %d %q", path, resp.StatusCode, resp.Header.Get("Upload-Offset"))
	}
	return n
}

// The protocol end to end: an upload made, its parts sent, a connection
// dropped in a part, the offset asked and the rest sent; the file comes
// back equal, by ranges too, as a download of its sniffed type with
// nosniff; another author gets nothing of it; a delete removes it.
func TestFilesOverHTTP(t *testing.T) {
	for _, backend := range []string{testenv.Bolt, testenv.Postgres} {
		t.Run(backend, func(t *testing.T) {
			e := testenv.New(t, testenv.Config{Backend: backend, Start: testenv.DefaultStart, AttachmentPartSize: httpPart})
			a := scopedAPI(t, e)
			ann, _ := proSignedUp(t, e, "ann@example.com")
			bob, _ := proSignedUp(t, e, "bob@example.com")
			var m web.MessageJSON
			a.ok(nil, http.StatusCreated, "POST", "/api/messages", ann,
				map[string]string{"title": "Papers", "name": "Bob", "recipient": "bob@example.com", "message": "See the files."}, &m)
			data := make([]byte, 2*httpPart+777)
			rand.Read(data)
			copy(data, "%PDF-1.7\n")
			base := "/api/messages/" + m.ID + "/files"

			a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, "POST", base, ann, map[string]any{"name": "x.pdf"})
			var f web.FileJSON
			resp := a.ok(nil, http.StatusCreated, "POST", base, ann, map[string]any{"name": "Will\n(signed).pdf", "size": len(data)}, &f)
			path := resp.Header.Get("Location")
			if f.Name != "Will (signed).pdf" || f.State != "uploading" || f.PartSize != httpPart || path != base+"/"+f.ID ||
				resp.Header.Get("Upload-Offset") != "0" || resp.Header.Get("Upload-Part-Size") != strconv.Itoa(httpPart) {
				t.Fatalf("created %+v at %q, headers %v", f, path, resp.Header)
			}
			if r := sendPart(t, a, path, ann, 0, data[:httpPart]); r.StatusCode != http.StatusNoContent || r.Header.Get("Upload-Offset") != strconv.Itoa(httpPart) {
				t.Fatalf("part 0: %d %v", r.StatusCode, r.Header)
			}
			dropPart(t, a, path, ann, httpPart, data[httpPart:2*httpPart])
			off := uploadOffset(t, a, path, ann)
			if off != httpPart {
				t.Fatalf("after a dropped part the offset is %d, want %d", off, httpPart)
			}
			if r := sendPart(t, a, path, ann, 0, data[:httpPart]); r.StatusCode != http.StatusConflict || r.Header.Get("Upload-Offset") != strconv.Itoa(httpPart) {
				t.Fatalf("a part at the wrong offset: %d %v", r.StatusCode, r.Header)
			}
			if r := sendPart(t, a, path, bob, off, data[off:off+httpPart]); r.StatusCode != http.StatusNotFound {
				t.Fatalf("bob's part: %d", r.StatusCode)
			}
			for ; off < int64(len(data)); off += httpPart {
				if r := sendPart(t, a, path, ann, off, data[off:min(off+httpPart, int64(len(data)))]); r.StatusCode != http.StatusNoContent {
					t.Fatalf("part at %d: %d", off, r.StatusCode)
				}
			}
			a.ok(nil, http.StatusOK, "GET", path, ann, nil, &f)
			if f.State != "complete" || f.Type != "application/pdf" || f.Offset != int64(len(data)) {
				t.Fatalf("complete: %+v", f)
			}
			var list []web.FileJSON
			a.ok(nil, http.StatusOK, "GET", base, ann, nil, &list)
			if len(list) != 1 || list[0].ID != f.ID {
				t.Fatalf("the list: %+v", list)
			}

			get := func(token, rng string) (*http.Response, []byte) {
				req, _ := http.NewRequest("GET", a.srv.URL()+path+"/content", nil)
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Accept-Encoding", "gzip")
				if rng != "" {
					req.Header.Set("Range", rng)
				}
				resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp, b
			}
			r, body := get(ann, "")
			if r.StatusCode != http.StatusOK || !bytes.Equal(body, data) || r.Header.Get("Content-Type") != "application/pdf" ||
				r.Header.Get("X-Content-Type-Options") != "nosniff" ||
				!strings.HasPrefix(r.Header.Get("Content-Disposition"), `attachment; filename="Will (signed).pdf"`) {
				t.Fatalf("download: %d, %d bytes equal %v, headers %v", r.StatusCode, len(body), bytes.Equal(body, data), r.Header)
			}
			r, body = get(ann, fmt.Sprintf("bytes=%d-%d", httpPart-5, httpPart+4))
			if r.StatusCode != http.StatusPartialContent || !bytes.Equal(body, data[httpPart-5:httpPart+5]) || r.Header.Get("Content-Encoding") != "" {
				t.Fatalf("a range: %d %d bytes %v", r.StatusCode, len(body), r.Header)
			}
			if r, _ := get(bob, ""); r.StatusCode != http.StatusNotFound {
				t.Fatalf("bob's download: %d", r.StatusCode)
			}
			a.fail(nil, http.StatusNotFound, core.EAttachmentNotFound, "DELETE", path, bob, nil)
			a.fail(nil, http.StatusNotFound, core.EMessageNotFound, "GET", base, bob, nil)

			a.ok(nil, http.StatusOK, "DELETE", path, ann, nil, nil)
			if r, _ := get(ann, ""); r.StatusCode != http.StatusNotFound {
				t.Fatalf("a deleted file: %d", r.StatusCode)
			}
			n := 0
			e.Blobs.ListBlobs(e.Ctx, core.AttachmentBlobPrefix, func(string, int64) error { n++; return nil })
			if n != 0 {
				t.Fatalf("%d blobs left after the delete", n)
			}
		})
	}
}

// An executable is served as bytes whatever its sniffed type; a part too
// long is refused with 413 and the field; Starter's author gets the
// upgrade hint's code.
func TestFilesRefusals(t *testing.T) {
	e := testenv.New(t, testenv.Config{Start: testenv.DefaultStart, AttachmentPartSize: httpPart})
	a := scopedAPI(t, e)
	ann, _ := proSignedUp(t, e, "ann@example.com")
	free, _ := signedUp(t, e, "free@example.com")
	var m, fm web.MessageJSON
	msg := map[string]string{"title": "Papers", "name": "Bob", "recipient": "bob@example.com", "message": "See the files."}
	a.ok(nil, http.StatusCreated, "POST", "/api/messages", ann, msg, &m)
	a.ok(nil, http.StatusCreated, "POST", "/api/messages", free, msg, &fm)
	a.fail(nil, http.StatusForbidden, core.EFeatureNotIncluded, "POST", "/api/messages/"+fm.ID+"/files", free, map[string]any{"name": "a", "size": 1})

	var f web.FileJSON
	resp := a.ok(nil, http.StatusCreated, "POST", "/api/messages/"+m.ID+"/files", ann, map[string]any{"name": "invoice.html", "size": 30}, &f)
	path := resp.Header.Get("Location")
	if r := sendPart(t, a, path, ann, 0, make([]byte, 31)); r.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("a part too long: %d", r.StatusCode)
	}
	page := []byte("<html><script>x</script></html>")[:30]
	if r := sendPart(t, a, path, ann, 0, page); r.StatusCode != http.StatusNoContent {
		t.Fatalf("the part: %d", r.StatusCode)
	}
	req, _ := http.NewRequest("GET", a.srv.URL()+path+"/content", nil)
	req.Header.Set("Authorization", "Bearer "+ann)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.Header.Get("Content-Type") != "text/html; charset=utf-8" || r.Header.Get("X-Content-Type-Options") != "nosniff" ||
		!strings.Contains(r.Header.Get("Content-Security-Policy"), "sandbox") || !strings.HasPrefix(r.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("an HTML file is served as %v", r.Header)
	}
	resp = a.ok(nil, http.StatusCreated, "POST", "/api/messages/"+m.ID+"/files", ann, map[string]any{"name": "tool", "size": 8}, &f)
	sendPart(t, a, resp.Header.Get("Location"), ann, 0, []byte("\x7fELF\x02\x01\x01\x00"))
	req, _ = http.NewRequest("GET", a.srv.URL()+resp.Header.Get("Location")+"/content", nil)
	req.Header.Set("Authorization", "Bearer "+ann)
	if r, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.Header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("a program is served as %q", r.Header.Get("Content-Type"))
	}
}

package web_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

// fastSeal is the cheapest costs a sealed envelope or file may have.
var fastSeal = core.SealParams{Memory: 64 * 1024, Time: 1, Threads: 1}

const filePassphrase = "violet harbor quietly mends seven copper lanterns"

// sealedFor seals text for the message id, as the author's client does.
func sealedFor(t *testing.T, id, text string) map[string]any {
	t.Helper()
	env, err := core.Seal(filePassphrase, id, []byte(text), fastSeal)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"envelope": env.String(), "hint": "Lisbon"}
}

// sealedFile seals data for the message id.
func sealedFile(t *testing.T, id string, data []byte) []byte {
	t.Helper()
	k, err := core.NewSealedFileKey(filePassphrase, fastSeal)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := core.SealFile(&b, bytes.NewReader(data), k, id); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// patchPart PATCHes body at offset and returns the status and envelope.
func patchPart(t *testing.T, a *identityAPI, path, token string, offset int64, body []byte) (int, envelope) {
	t.Helper()
	req, _ := http.NewRequest("PATCH", a.srv.URL()+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/offset+octet-stream")
	req.Header.Set("Upload-Offset", strconv.FormatInt(offset, 10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env envelope
	b, _ := io.ReadAll(resp.Body)
	json.Unmarshal(b, &env)
	return resp.StatusCode, env
}

// uploadWhole makes a file of data on message mid and sends its parts; it
// returns the file's path and the status and envelope of the last request.
func uploadSealedCase(t *testing.T, a *identityAPI, token, mid, name string, data []byte) (string, int, envelope) {
	t.Helper()
	var f web.FileJSON
	path := a.ok(nil, http.StatusCreated, "POST", "/api/messages/"+mid+"/files", token, map[string]any{"name": name, "size": len(data)}, &f).Header.Get("Location")
	for off := int64(0); ; off += httpPart {
		status, env := patchPart(t, a, path, token, off, data[off:min(off+httpPart, int64(len(data)))])
		if status != http.StatusNoContent || off+httpPart >= int64(len(data)) {
			return path, status, env
		}
	}
}

// The server's rules of a sealed message's files, over HTTP on both
// stores: a file that is not a sealed file (or whose declared size no
// sealed file has) is refused on its first part, nothing stored; a sealed
// file uploads whole and is clientSealed; a plain message's file never is,
// whatever its bytes; a message is neither sealed over plain files nor
// unsealed over sealed ones, nothing changed; a file made before its
// message changed kind takes no more parts.
func TestSealedFilesRules(t *testing.T) {
	testenv.Backends(t, testenv.Config{Start: testenv.DefaultStart, AttachmentPartSize: httpPart}, func(t *testing.T, e *testenv.Env) {
		a := scopedAPI(t, e)
		ann, _ := proSignedUp(t, e, "ann@example.com")
		id := core.NewID()
		var sm, pm web.MessageJSON
		a.ok(nil, http.StatusCreated, "POST", "/api/messages", ann, map[string]any{"title": "Sealed", "name": "Bob",
			"recipient": "bob@example.com", "id": id, "sealed": sealedFor(t, id, "The deeds.")}, &sm)
		a.ok(nil, http.StatusCreated, "POST", "/api/messages", ann, map[string]any{"title": "Plain", "name": "Bob",
			"recipient": "bob@example.com", "message": "See the files."}, &pm)
		data := make([]byte, 2*httpPart+333)
		copy(data, "%PDF-1.7\n")

		// A plain file on a sealed message: refused on its first part.
		path, status, env := uploadSealedCase(t, a, ann, sm.ID, "will.pdf", data)
		if status != http.StatusUnprocessableEntity || env.Code != core.EValidation ||
			env.Fields["file"] != "a sealed message's file must be sealed by your app (docs/sealed.md)" {
			t.Fatalf("a plain file on a sealed message: %d %+v", status, env)
		}
		if off := uploadOffset(t, a, path, ann); off != 0 {
			t.Fatalf("the refused part moved the offset to %d", off)
		}
		// A sealed file for a size no sealed file has (a chunk shorter than
		// its tag): refused too.
		sealed := sealedFile(t, sm.ID, data)
		if _, status, env := uploadSealedCase(t, a, ann, sm.ID, "short.pdf", sealed[:bytes.IndexByte(sealed, '\n')+1+10]); status != http.StatusUnprocessableEntity || env.Fields["file"] == "" {
			t.Fatalf("a sealed file of an impossible size: %d %+v", status, env)
		}
		// A sealed file uploads whole, clientSealed, sniffed as nothing.
		path, status, env = uploadSealedCase(t, a, ann, sm.ID, "will.pdf", sealed)
		var f web.FileJSON
		a.ok(nil, http.StatusOK, "GET", path, ann, nil, &f)
		if status != http.StatusNoContent || f.State != "complete" || !f.ClientSealed || f.Type != "application/octet-stream" || f.Size != int64(len(sealed)) {
			t.Fatalf("a sealed file: %d %+v, %+v", status, env, f)
		}
		// A plain message's file is never clientSealed, even if it reads as one.
		ppath, status, _ := uploadSealedCase(t, a, ann, pm.ID, "odd.bin", sealedFile(t, pm.ID, []byte("hello")))
		a.ok(nil, http.StatusOK, "GET", ppath, ann, nil, &f)
		if status != http.StatusNoContent || f.ClientSealed || f.State != "complete" {
			t.Fatalf("a plain message's file: %d %+v", status, f)
		}

		// Unsealing over sealed files, sealing over plain ones: refused.
		_, env = a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, "PATCH", "/api/messages/"+sm.ID, ann, map[string]any{"message": "Now plain."})
		want := "remove the files first: a message's files are sealed the way the message is"
		if env.Fields["sealed"] != want {
			t.Fatalf("unsealing: %+v", env)
		}
		_, env = a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, "PATCH", "/api/messages/"+pm.ID, ann, map[string]any{"sealed": sealedFor(t, pm.ID, "Now sealed.")})
		if env.Fields["sealed"] != want {
			t.Fatalf("sealing: %+v", env)
		}
		var got web.MessageJSON
		a.ok(nil, http.StatusOK, "GET", "/api/messages/"+sm.ID, ann, nil, &got)
		if got.Sealed == nil || got.Message != "" {
			t.Fatalf("the refused unseal changed the message: %+v", got)
		}
		var plain web.MessageJSON
		a.ok(nil, http.StatusOK, "GET", "/api/messages/"+pm.ID, ann, nil, &plain)
		if plain.Sealed != nil || plain.Message != "See the files." {
			t.Fatalf("the refused seal changed the message: %+v", plain)
		}
		// A re-seal keeps the files, as they are sealed the message's way.
		a.ok(nil, http.StatusOK, "PATCH", "/api/messages/"+sm.ID, ann, map[string]any{"sealed": sealedFor(t, sm.ID, "The deeds, again.")}, nil)
		// Without its files, the plain message seals.
		a.ok(nil, http.StatusOK, "DELETE", ppath, ann, nil, nil)
		a.ok(nil, http.StatusOK, "PATCH", "/api/messages/"+pm.ID, ann, map[string]any{"sealed": sealedFor(t, pm.ID, "Now sealed.")}, nil)

		// A file made while its message was plain takes no part once the
		// message is sealed (a seal that raced the file's creation).
		var qm web.MessageJSON
		a.ok(nil, http.StatusCreated, "POST", "/api/messages", ann, map[string]any{"title": "Race", "name": "Bob",
			"recipient": "bob@example.com", "message": "Soon sealed."}, &qm)
		path = a.ok(nil, http.StatusCreated, "POST", "/api/messages/"+qm.ID+"/files", ann, map[string]any{"name": "a.txt", "size": 5}, nil).Header.Get("Location")
		if _, err := e.Store.UpdateMessage(e.Ctx, qm.ID, func(m *core.Message) error {
			m.SetSealed(core.SealedLetter{Envelope: "sealed:v1$x", Hint: ""})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if status, env := patchPart(t, a, path, ann, 0, []byte("hello")); status != http.StatusUnprocessableEntity || env.Fields["file"] == "" {
			t.Fatalf("a part of a file older than the seal: %d %+v", status, env)
		}
	})
}

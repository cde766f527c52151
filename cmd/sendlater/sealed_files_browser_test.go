package main_test

import (
	"bytes"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSealedFilesInABrowser drives web/ui/e2e/sealed-files.mjs against the
// real binary: a Pro author seals a new message with a file in the browser
// (sealed in the page before upload, downloaded back opened with the
// dialog's passphrase); the bytes the server stores begin with the sealed
// file's header and hold none of the file; delivered through the test SMTP
// server, the recipient's email names the file and carries no file link;
// in a fresh context the open link's page opens the letter with the
// passphrase and the file downloads opened, byte for byte. SCREENSHOTS (a
// directory) keeps the dialog's and the open page's pictures.
func TestSealedFilesInABrowser(t *testing.T) {
	b := needBrowser(t)
	const email, password = "sealfiles@example.com", "plum-kettle-orbit-47"
	mail, dir, env, srv := proAuthorServer(t, email, password)

	// Random bytes (nothing compresses them) over several chunks, the last one short.
	plain := make([]byte, 5*65536+1234)
	rng := rand.New(rand.NewPCG(33, 2))
	for i := range plain {
		plain[i] = byte(rng.Uint32())
	}
	path := filepath.Join(t.TempDir(), "deed scan.pdf")
	if err := os.WriteFile(path, plain, 0o600); err != nil {
		t.Fatal(err)
	}
	b.run(t, srv, 4*time.Minute, "sealed-files.mjs", "seal", email, password, path)

	code, s := authCall(t, srv.url, "/api/auth/signin", map[string]string{"email": email, "password": password}, "")
	if code != http.StatusOK {
		t.Fatalf("sign in: %d", code)
	}
	var list struct{ Data []struct{ ID string } }
	if code := apiCall(t, srv, "GET", "/api/messages", s.idToken, "", &list); code != http.StatusOK || len(list.Data) != 1 {
		t.Fatalf("the messages: %d %+v", code, list)
	}
	id := list.Data[0].ID
	var files struct {
		Data []struct {
			ID, Name, State string
			Size            int
			ClientSealed    bool
		}
	}
	if code := apiCall(t, srv, "GET", "/api/messages/"+id+"/files", s.idToken, "", &files); code != http.StatusOK || len(files.Data) != 1 {
		t.Fatalf("the files: %d %+v", code, files)
	}
	f := files.Data[0]
	if f.Name != "deed scan.pdf" || f.State != "complete" || !f.ClientSealed || f.Size != 74+len(plain)+16*6 {
		t.Fatalf("the file: %+v", f)
	}
	// What the server holds (and would serve): the sealed bytes, never the file's.
	req, _ := http.NewRequest("GET", srv.url+"/api/messages/"+id+"/files/"+f.ID+"/content", nil)
	req.Header.Set("Authorization", "Bearer "+s.idToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the stored bytes: %d %v", resp.StatusCode, err)
	}
	if !bytes.HasPrefix(stored, []byte("sealedfile:v1$argon2id$m=65536,t=3,p=1$")) || len(stored) != f.Size ||
		bytes.Contains(stored, plain[:64]) || bytes.Contains(stored, plain[len(plain)-64:]) {
		t.Fatalf("the stored bytes are not the sealed file: %q…", stored[:min(len(stored), 80)])
	}

	mustRunEnv(t, dir, env, "messages", "deliver-now", id)
	var link string
	for deadline := time.Now().Add(30 * time.Second); link == "" && time.Now().Before(deadline); {
		got, err := mail.WaitFor(2, 30*time.Second) // the verification email, the delivery
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range got {
			if strings.Join(m.To, ",") != "ann@example.com" {
				continue
			}
			p, err := m.Parse()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(p.Text, "deed scan.pdf") || strings.Contains(p.Text+p.HTML, srv.url+"/files/") {
				t.Fatalf("the recipient's email should name the file, without a link to it:\n%s", p.Text)
			}
			link = p.Link(srv.url + "/open/")
		}
	}
	if link == "" {
		t.Fatal("no open link reached the recipient")
	}
	b.run(t, srv, 3*time.Minute, "sealed-files.mjs", "open", link, path)

	// Nothing of the file or the passphrase rests in the data directory.
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil // a socket
		}
		for _, secret := range [][]byte{plain[:64], plain[len(plain)-64:], []byte("violet harbor quietly mends")} {
			if bytes.Contains(b, secret) {
				t.Errorf("%s holds a secret (%q…)", p, secret[:16])
			}
		}
		return nil
	})
}

package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sendlater/sendlater/mailer/smtptest"
)

// TestAttachInABrowser drives web/ui/e2e/attach.mjs against the real binary:
// a Pro author attaches two files of a few MB to a new message in the
// dialog, sees the progress bars move, has one upload's connection dropped
// after its first part and sees it resume from the server's offset, then
// downloads both and compares the bytes. The API then lists both files,
// complete, with their sizes. SCREENSHOTS (a directory) keeps the dialog's
// pictures.
func TestAttachInABrowser(t *testing.T) {
	browser := chromium(t)
	node, suite := browserSuite(t)
	mail := smtptest.Start(t)
	dir := t.TempDir()
	env := smtpEnv(mail)
	srv := startServer(t, dir, env...)

	const email, password = "attacher@example.com", "plum-kettle-orbit-47"
	body, _ := json.Marshal(map[string]string{"email": email, "password": password})
	resp, err := http.Post(srv.url+"/api/auth/signup", "application/json", bytes.NewReader(body))
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("sign up: %v %v", resp, err)
	}
	resp.Body.Close()
	mustRunEnv(t, dir, env, "users", "set-plan", email, "pro")

	// Two files of a few MB, random (nothing compresses or dedupes them), not a part's multiple.
	files := t.TempDir()
	rng := rand.New(rand.NewPCG(33, 1))
	sizes := map[string]int{"deed-scan.pdf": 3<<20 + 4321, "garden photos.zip": 2<<20 + 777}
	var paths []string
	for _, name := range []string{"deed-scan.pdf", "garden photos.zip"} {
		b := make([]byte, sizes[name])
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		p := filepath.Join(files, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	args := append([]string{filepath.Join(filepath.Dir(suite), "attach.mjs"), srv.url, email, password}, paths...)
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = append(cleanEnv(), "CHROMIUM="+browser)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the browser checks failed: %v\n%s\nserver log:\n%s", err, out, srv.logs)
	}
	t.Logf("%s", out)

	code, s := authCall(t, srv.url, "/api/auth/signin", map[string]string{"email": email, "password": password}, "")
	if code != http.StatusOK {
		t.Fatalf("sign in: %d", code)
	}
	var list struct{ Data []struct{ ID, Title string } }
	if code := apiCall(t, srv, "GET", "/api/messages", s.idToken, "", &list); code != http.StatusOK || len(list.Data) != 1 {
		t.Fatalf("the messages: %d %+v", code, list)
	}
	var got struct {
		Data []struct {
			Name, State string
			Size        int
		}
	}
	if code := apiCall(t, srv, "GET", "/api/messages/"+list.Data[0].ID+"/files", s.idToken, "", &got); code != http.StatusOK || len(got.Data) != 2 {
		t.Fatalf("the files: %d %+v", code, got)
	}
	for _, f := range got.Data {
		if f.State != "complete" || f.Size != sizes[f.Name] {
			t.Errorf("file %+v: want complete, %d bytes", f, sizes[f.Name])
		}
	}
}

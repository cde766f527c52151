package main_test

import (
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
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
	b := needBrowser(t)
	const email, password = "attacher@example.com", "plum-kettle-orbit-47"
	mail, dir, env, srv := proAuthorServer(t, email, password)

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

	b.run(t, srv, 4*time.Minute, "attach.mjs", append([]string{email, password}, paths...)...)

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

	// Delivered through the SMTP server: Dora's email lists both files, each
	// with a link of her own, which download in a fresh browser context; a
	// link of one file's id with the other's token is refused.
	mustRunEnv(t, dir, env, "messages", "deliver-now", list.Data[0].ID)
	links := recipientFileLinks(t, srv, mail, "dora@example.com")
	if len(links) != 2 {
		t.Fatalf("the recipient's links: %v", links)
	}
	var args []string
	byName := map[string]string{}
	for i, name := range []string{"deed-scan.pdf", "garden photos.zip"} {
		byName[name] = paths[i]
	}
	for name, link := range links {
		if byName[name] == "" {
			t.Fatalf("a link for %q, a file not attached", name)
		}
		args = append(args, link+"="+byName[name])
	}
	first, second := links["deed-scan.pdf"], links["garden photos.zip"]
	foreign := first[:strings.LastIndex(first, ".")] + second[strings.LastIndex(second, "."):]
	b.run(t, srv, 2*time.Minute, "attach-recipient.mjs", append([]string{foreign}, args...)...)
}

// recipientFileLinks waits for the delivery to to and returns its file
// links by file name: each link alone on its line in the text part, under
// the line naming the file ("deed-scan.pdf (3.1 MB)").
func recipientFileLinks(t *testing.T, srv *server, mail *smtptest.Server, to string) map[string]string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		got, err := mail.WaitFor(1, 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range got {
			if strings.Join(m.To, ",") != to {
				continue
			}
			p, err := m.Parse()
			if err != nil {
				t.Fatal(err)
			}
			links := map[string]string{}
			lines := strings.Split(strings.ReplaceAll(p.Text, "\r\n", "\n"), "\n")
			for i, line := range lines {
				line = strings.TrimSpace(line)
				if i > 0 && strings.HasPrefix(line, srv.url+"/files/") {
					name := strings.TrimSpace(lines[i-1])
					if at := strings.LastIndex(name, " ("); at > 0 {
						name = name[:at]
					}
					links[name] = line
				}
			}
			return links
		}
	}
	t.Fatalf("no delivery reached %s", to)
	return nil
}

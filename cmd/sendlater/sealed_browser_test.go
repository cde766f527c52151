package main_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSealedInABrowser drives web/ui/e2e/sealed.mjs against the real binary
// and the in-process SMTP server: the author seals a letter in the browser
// (weak passphrases and telling hints refused, the preview sealed, an edit
// reopening and resealing it), and no request body of the page carries the
// passphrase or the letter; `messages show` prints "sealed", even with
// --reveal; `messages deliver-now` delivers it; the recipient's email holds
// the hint and the link and not the letter; in a fresh context the link's
// page refuses a wrong passphrase and opens with the right one, axe clean.
// The data directory (the bbolt file, the outbox) holds neither the letter
// nor the passphrase.
func TestSealedInABrowser(t *testing.T) {
	b := needBrowser(t)
	const email, password = "sealer@example.com", "plum-kettle-orbit-47"
	mail, dir, env, srv := proAuthorServer(t, email, password)

	runScript := func(args ...string) {
		t.Helper()
		b.run(t, srv, 3*time.Minute, "sealed.mjs", args...)
	}
	runScript("seal", email, password)

	var list []struct {
		ID      string `json:"id"`
		Message string `json:"message"`
		Sealed  *struct {
			Envelope string `json:"envelope"`
		} `json:"sealed"`
	}
	if err := json.Unmarshal([]byte(mustRunEnv(t, dir, env, "messages", "list", "--json", "--reveal").stdout), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Sealed == nil || list[0].Sealed.Envelope != "" || list[0].Message != "" {
		t.Fatalf("the operator's list: %+v", list)
	}
	id := list[0].ID
	for _, reveal := range [][]string{nil, {"--reveal"}} {
		out := mustRunEnv(t, dir, env, append([]string{"messages", "show", id}, reveal...)...).stdout
		if !strings.Contains(out, "sealed (only the author's passphrase opens it") || strings.Contains(out, "sealed:v1") {
			t.Fatalf("messages show %v:\n%s", reveal, out)
		}
	}
	audit := mustRunEnv(t, dir, env, "audit", "list").stdout
	if !strings.Contains(audit, "sealed message: not revealed") {
		t.Fatalf("the audit log:\n%s", audit)
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
			if strings.Contains(p.Text+p.HTML, "ZEBRA") || !strings.Contains(p.Text, "Their hint: the walk we took in Lisbon") {
				t.Fatalf("the recipient's email:\n%s", p.Text)
			}
			link = p.Link(srv.url + "/open/")
		}
	}
	if link == "" {
		t.Fatal("no open link reached the recipient")
	}
	runScript("open", link)

	secrets := []string{"ZEBRA-ORCHID", "violet harbor quietly mends", "copper lanterns", "blue box"}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil // a socket
		}
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %q", path, s)
			}
		}
		return nil
	})
	if strings.Contains(srv.logs.String(), "/open/") && !strings.Contains(srv.logs.String(), "/open/…") {
		t.Errorf("the server's log holds an open token")
	}
}

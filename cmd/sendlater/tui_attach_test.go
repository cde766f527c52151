package main_test

import (
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Attaching files in `sendlater tui` in a real terminal (tmux), through the
// running server's admin socket: the message made in the form, f opens its
// files, a takes a path and uploads it with its progress, a script is
// marked executable, d removes a file; `messages files` lists what the
// TUI attached. With SENDLATER_WRITE_TRANSCRIPTS=1 the screens are
// written to docs/cli/tui-attach.txt.
func TestAttachingInTheTUIInATerminal(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	signUp(t, srv.url, "ann@example.com")
	mustRun(t, dir, "users", "set-plan", "ann@example.com", "pro")
	files := filepath.Join(dir, "papers")
	if err := os.MkdirAll(files, 0o700); err != nil {
		t.Fatal(err)
	}
	will := make([]byte, 3_200_000)
	rand.Read(will)
	copy(will, "%PDF-1.7\n")
	for name, data := range map[string][]byte{"will.pdf": will, "open-the-safe.sh": []byte("#!/bin/sh\necho 4-8-15-16\n")} {
		if err := os.WriteFile(filepath.Join(files, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	env := []string{"XDG_CONFIG_HOME=" + filepath.Join(dir, "config")}
	term := startTerminal(t, dir, env, 80, 24, "tui", "--user", "ann@example.com")
	var shots []string
	shot := func(what, s string) {
		shots = append(shots, "── "+what+" ──\n"+strings.TrimRight(s, "\n "))
	}
	term.fillNewMessage("Deeds", "The deeds are attached.")
	term.press("C-s")
	term.waitFor("The message is saved.")
	term.press("f")
	shot("f on the message: its files, none yet", term.waitFor("No files yet: a attaches one."))
	term.press("a")
	term.waitFor("Path of the file to attach")
	term.press("-l", filepath.Join(files, "will.pdf"))
	term.press("Enter")
	shot("a, the path, enter: uploaded part after part", term.waitFor("Attached will.pdf (3.2 MB)."))
	term.press("a")
	term.press("-l", filepath.Join(files, "open-the-safe.sh"))
	term.press("Enter")
	term.waitFor("Attached open-the-safe.sh")
	shot("a script: allowed, marked executable", term.waitFor("executable"))
	term.press("d")
	s := term.waitFor("and its bytes? y remove")
	shot("d: remove the selected file?", s)
	term.press("y")
	s = term.waitFor("is removed, with its bytes.")
	if strings.Count(s, "will.pdf")+strings.Count(s, "open-the-safe.sh") != 2 { // the status names the one removed
		t.Fatalf("the files after the remove:\n%s", s)
	}
	shot("y: removed", s)
	term.press("Escape")
	term.waitFor("Pro plan · 1 message")
	term.press("q")
	term.waitExit()

	var list []struct {
		ID string `json:"id"`
	}
	r := mustRun(t, dir, "messages", "list", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("messages list: %v %s", err, r.stdout)
	}
	r = mustRun(t, dir, "messages", "files", list[0].ID)
	if n := strings.Count(r.stdout, "will.pdf") + strings.Count(r.stdout, "open-the-safe.sh"); n != 1 {
		t.Fatalf("messages files after one of two was removed:\n%s", r.stdout)
	}

	if os.Getenv("SENDLATER_WRITE_TRANSCRIPTS") == "1" {
		out := "Attaching files in `sendlater tui` (80x24), screen by screen: written by\n" +
			"cmd/sendlater's TestAttachingInTheTUIInATerminal with SENDLATER_WRITE_TRANSCRIPTS=1.\n" +
			"(The folder of the files is the test's own.)\n\n" +
			strings.Join(shots, "\n\n") + "\n"
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "cli", "tui-attach.txt"), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

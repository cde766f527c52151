package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Sealing in the TUI in a real terminal (tmux, 80x24): the built binary,
// `tui --user` beside a running server. The seal page never shows the
// passphrase; the message is saved sealed; `messages show` says "sealed"
// and, with --reveal, still prints nothing of the letter (and the audit
// log says so); editing it opens the letter with the passphrase. With
// SENDLATER_WRITE_TRANSCRIPTS=1 the screens are written to
// docs/cli/tui-seal.txt.
func TestSealingInTheTUIInATerminal(t *testing.T) {
	const (
		text = "The deeds are in the blue box: ZEBRA-ORCHID-7731."
		pass = "violet harbor quietly mends seven copper lanterns"
	)
	dir := t.TempDir()
	srv := startServer(t, dir)
	signUp(t, srv.url, "ann@example.com")
	mustRun(t, dir, "users", "set-plan", "ann@example.com", "pro")

	env := []string{"XDG_CONFIG_HOME=" + filepath.Join(dir, "config")}
	term := startTerminal(t, dir, env, 80, 24, "tui", "--user", "ann@example.com")
	var shots []string
	shot := func(what, s string) {
		shots = append(shots, "── "+what+" ──\n"+strings.TrimRight(s, "\n "))
	}
	term.fillNewMessage("Deeds", text)
	term.waitFor("ctrl+l seal with a passphrase")
	shot("the form: n, the fields typed", term.waitFor("ZEBRA-ORCHID-7731."))
	term.press("C-l")
	term.waitFor("Seal this message")
	term.press("-l", "correct horse battery staple")
	term.press("Tab")
	term.press("-l", "correct horse battery staple")
	term.press("C-s")
	s := term.waitFor("This passphrase is too easy to guess")
	shot("ctrl+l, a weak passphrase typed twice, ctrl+s", s)
	term.press("BTab", "C-u")
	term.press("-l", pass)
	term.press("Tab", "C-u")
	term.press("-l", pass)
	term.press("Tab")
	term.press("-l", "Lisbon, the tram")
	term.waitFor("Strong enough")
	s = term.waitFor("Lisbon, the tram")
	if strings.Contains(s, "too easy to guess") {
		t.Fatalf("the refusal outlives the passphrase it refused:\n%s", s)
	}
	shot("a strong passphrase, twice, and a hint", s)
	for _, secret := range []string{"correct horse", "violet", "harbor"} {
		if strings.Contains(strings.Join(shots, "\n"), secret) {
			t.Fatalf("the terminal shows the passphrase:\n%s", strings.Join(shots, "\n"))
		}
	}
	term.press("Enter")
	shot("enter: back to the form", term.waitFor("sealed on save"))
	term.press("C-s")
	shot("ctrl+s: sealed (Argon2id) and saved", term.waitFor("The message is saved."))

	// The operator's view: sealed, and a reveal reveals nothing.
	var list []struct {
		ID string `json:"id"`
	}
	r := mustRun(t, dir, "messages", "list", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("messages list: %v %s", err, r.stdout)
	}
	for _, args := range [][]string{{"messages", "show", list[0].ID}, {"messages", "show", list[0].ID, "--reveal"}} {
		r = mustRun(t, dir, args...)
		if !strings.Contains(r.stdout, "sealed (only the author's passphrase opens it; Sendlater cannot)") || strings.Contains(r.stdout, "ZEBRA") || strings.Contains(r.stdout, "sealed:v1") {
			t.Fatalf("%v:\n%s", args, r.stdout)
		}
	}
	if r = mustRun(t, dir, "audit", "list"); !strings.Contains(r.stdout, "sealed message: not revealed") {
		t.Fatalf("the audit log:\n%s", r.stdout)
	}

	term.press("e")
	shot("e: the sealed message's form", term.waitFor("sealed: ctrl+l opens it"))
	term.press("C-l")
	term.waitFor("Open the sealed letter")
	term.press("-l", pass)
	term.press("Enter")
	s = term.waitFor("ZEBRA-ORCHID-7731")
	shot("ctrl+l, the passphrase, enter: the letter, open to edit", s)
	term.press("Escape")
	term.waitFor("The draft is discarded.")
	term.press("q")
	term.waitExit()

	if os.Getenv("SENDLATER_WRITE_TRANSCRIPTS") == "1" {
		out := "Sealing a message in `sendlater tui` (80x24), screen by screen: written by\n" +
			"cmd/sendlater's TestSealingInTheTUIInATerminal with SENDLATER_WRITE_TRANSCRIPTS=1.\n\n" +
			strings.Join(shots, "\n\n") + "\n"
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "cli", "tui-seal.txt"), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

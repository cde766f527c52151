package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/cli is the command reference generated from the command tree: it
// must be what the binary writes now. To refresh it: go generate ./cmd/sendlater
func TestCommandReferenceIsCurrent(t *testing.T) {
	out := t.TempDir()
	mustRun(t, t.TempDir(), "docs", "--markdown", out)
	want := readDir(t, out)
	got := readDir(t, filepath.Join("..", "..", "docs", "cli"))
	for name, body := range want {
		if got[name] != body {
			t.Errorf("docs/cli/%s is stale: run go generate ./cmd/sendlater", name)
		}
	}
	for name := range got {
		// Beside the reference, the transcripts of login (*.txt).
		if _, ok := want[name]; !ok && strings.HasSuffix(name, ".md") {
			t.Errorf("docs/cli/%s documents no command: run go generate ./cmd/sendlater (after deleting docs/cli)", name)
		}
	}
}

// The man pages go into the release archives.
func TestManPages(t *testing.T) {
	out := t.TempDir()
	mustRun(t, t.TempDir(), "docs", "--man", out)
	page, err := os.ReadFile(filepath.Join(out, "sendlater-users-disable.1"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), ".TH \"SENDLATER\" \"1\"") || !strings.Contains(string(page), "sendlater users disable") {
		t.Fatalf("man page:\n%s", page)
	}
	r := run(t, t.TempDir(), nil, "docs")
	if r.code != 2 {
		t.Fatalf("docs without a directory: %+v", r)
	}
}

func TestCompletion(t *testing.T) {
	for shell, marker := range map[string]string{
		"bash": "__start_sendlater", "zsh": "#compdef sendlater", "fish": "complete -c sendlater",
		"powershell": "Register-ArgumentCompleter",
	} {
		r := mustRun(t, t.TempDir(), "completion", shell)
		if !strings.Contains(r.stdout, marker) {
			t.Errorf("completion %s lacks %q", shell, marker)
		}
	}
	// The shells' completion asks the binary itself: subcommands come back.
	r := mustRun(t, t.TempDir(), "__complete", "users", "")
	for _, sub := range []string{"create", "disable", "enable", "delete", "export", "list"} {
		if !strings.Contains(r.stdout, sub) {
			t.Errorf("__complete users lacks %s:\n%s", sub, r.stdout)
		}
	}
	if r := run(t, t.TempDir(), nil, "completion", "tcsh"); r.code != 2 {
		t.Errorf("completion tcsh: %+v", r)
	}
}

func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".md") { // doctor.txt: a transcript (TestDoctorChecksADeployment)
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

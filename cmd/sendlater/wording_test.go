package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The CLI's wording (issue 28, item 9): what a person typed wrong is a usage
// error (exit 2) naming what is missing or refused, a file system failure
// names the file the person knows (not a temporary one) once, and a time is
// read and printed one way everywhere.

// readOnly makes path unwritable for the rest of the test: chmod for a
// normal user, the immutable attribute for root (whom modes do not stop).
func readOnly(t *testing.T, path string) {
	t.Helper()
	if os.Getuid() != 0 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, fi.Mode().Perm()&^0o222); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(path, fi.Mode().Perm()) })
		return
	}
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Skipf("root, and chattr +i fails (%v: %s): cannot make %s read-only", err, out, path)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", path).Run() })
}

// noTempName fails when s shows a temporary file's name.
func noTempName(t *testing.T, s string) {
	t.Helper()
	if regexp.MustCompile(`\.(key|sendlater-backup|sendlater-write-check)-\d+`).MatchString(s) {
		t.Errorf("the error shows a temporary file's name:\n%s", s)
	}
}

func TestWordingReadOnlyDataDir(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	readOnly(t, data)
	r := run(t, dir, nil, "serve", "--addr", "127.0.0.1:0")
	if r.code != 1 || !strings.Contains(r.stderr, "data_dir ./data is not writable") || strings.Contains(r.stderr, "key file") {
		t.Errorf("serve in a read-only data directory: exit %d, want 1 and the data directory named as not writable:\n%s", r.code, r.stderr)
	}
	noTempName(t, r.stderr)
}

func TestWordingStoreFileUnwritable(t *testing.T) {
	dir := t.TempDir()
	seed(t, dir)
	readOnly(t, filepath.Join(dir, "data", "sendlater.db"))
	r := run(t, dir, nil, "users", "list")
	if r.code != 1 || !strings.Contains(r.stderr, "cannot open the store data/sendlater.db: ") {
		t.Fatalf("users list on a read-only store file: exit %d\n%s", r.code, r.stderr)
	}
	if strings.Count(r.stderr, "sendlater.db") != 1 || strings.Contains(r.stderr, "open data/") {
		t.Errorf("the store file is named more than once:\n%s", r.stderr)
	}
}

func TestWordingBackupIntoMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	seed(t, dir)
	r := run(t, dir, nil, "backup", "nowhere/copy.db")
	want := "Error: cannot write nowhere/copy.db: the directory nowhere does not exist\n"
	if r.code != 1 || r.stderr != want {
		t.Errorf("backup into a missing directory: exit %d\n%s\nwant exit 1 and %q", r.code, r.stderr, want)
	}
	noTempName(t, r.stderr)
}

func TestWordingValidationListsFields(t *testing.T) {
	dir := t.TempDir()
	seed(t, dir)
	r := run(t, dir, nil, "users", "set-plan", "ada@example.com", "gold")
	if r.code != 2 || strings.Contains(r.stderr, "highlighted") ||
		!strings.Contains(r.stderr, "(request/validation)\n  plan: The plan must be starter, pro or business\n") {
		t.Errorf("users set-plan with a plan that does not exist: exit %d, want 2 and the field with its rule:\n%s", r.code, r.stderr)
	}
}

func TestWordingMissingArgument(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"messages", "show"}, "Error: missing ID: sendlater messages show ID\n"},
		{[]string{"messages", "reschedule", "--at", "+1d"}, "Error: missing ID: sendlater messages reschedule ID --at TIME\n"},
		{[]string{"users", "delete"}, "Error: missing ID|EMAIL: sendlater users delete ID|EMAIL --yes\n"},
		{[]string{"users", "set-plan", "ada@example.com"}, "Error: missing starter|pro|business: sendlater users set-plan ID|EMAIL starter|pro|business\n"},
		{[]string{"backup"}, "Error: missing FILE: sendlater backup FILE\n"},
		{[]string{"messages", "show", "a", "b"}, "Error: unexpected argument \"b\": sendlater messages show ID\n"},
		{[]string{"users", "sync-billing", "a", "b"}, "Error: unexpected argument \"b\": sendlater users sync-billing [ID|EMAIL]\n"},
	} {
		r := run(t, dir, nil, c.args...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, c.want) {
			t.Errorf("sendlater %s: exit %d\n%s\nwant exit 2 and %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
	}
}

func TestWordingLoginWithoutServerIsUsage(t *testing.T) {
	r := run(t, t.TempDir(), []string{"HOME=" + t.TempDir()}, "login")
	if r.code != 2 || !strings.Contains(r.stderr, `"server"`) {
		t.Errorf("login without --server: exit %d, want 2 (a usage error)\n%s", r.code, r.stderr)
	}
}

// TestWordingTimes: every flag that takes a TIME reads the same forms,
// days included, and the tables and fields print times one way.
func TestWordingTimes(t *testing.T) {
	dir := t.TempDir()
	seed(t, dir)
	for _, args := range [][]string{
		{"send-due", "--dry-run", "--at", "+30d"},
		{"send-due", "--dry-run", "--at", "2026-04-01 09:30"},
		{"send-due", "--dry-run", "--at", "7d"},
		{"messages", "list", "--due-before", "+30d"},
		{"messages", "list", "--due-before", "-24h"},
		{"audit", "list", "--since", "7d"},
		{"audit", "list", "--since", "-7d"},
		{"audit", "list", "--since", "2026-04-01T09:30:00Z"},
		{"stats", "--since", "7d"},
		{"stats", "--since", "-36h"},
	} {
		mustRun(t, dir, args...)
	}
	for _, args := range [][]string{
		{"send-due", "--dry-run", "--at", "soon"},
		{"stats", "--since", "0d"},
		{"audit", "list", "--since", "yesterday"},
	} {
		if r := run(t, dir, nil, args...); r.code != 2 {
			t.Errorf("sendlater %s: exit %d, want 2 (usage)\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}

	when := regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d UTC`)
	other := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d|\d{1,2} [A-Z][a-z]+ \d{4}`)
	r := mustRun(t, dir, "send-due", "--dry-run", "--at", "+60d")
	for _, out := range []string{r.stdout, r.stderr, mustRun(t, dir, "users", "list").stdout,
		mustRun(t, dir, "users", "show", "ada@example.com").stdout, mustRun(t, dir, "messages", "list").stdout} {
		if !when.MatchString(out) || other.MatchString(out) {
			t.Errorf("times not printed as 2006-01-02 15:04 UTC:\n%s", out)
		}
	}
}

package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A recipient's address never reaches the log, not even inside the mail
// server's refusal that quotes it.
func TestTheLogMasksAddresses(t *testing.T) {
	_, _, srv, _ := failNow(t, 1, "5.1.1 <charles@example.com>: Recipient address rejected", "delivery failed for good")
	srv.stop(t)
	log := srv.logs.String()
	if strings.Contains(log, "charles@example.com") || !strings.Contains(log, "c***@example.com") {
		t.Fatalf("the log shows the recipient's address:\n%s", log)
	}
}

// The data directory holds the store, its key and the admin socket: an
// existing one open to others is made private, and the socket is created
// private whatever the umask.
func TestTheDataDirectoryIsPrivate(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(data, 0o777); err != nil {
		t.Fatal(err)
	}
	old := syscall.Umask(0) // serve inherits it
	srv := startServer(t, dir)
	syscall.Umask(old)
	for path, want := range map[string]os.FileMode{data: 0o700, filepath.Join(data, "sendlater.sock"): 0o600,
		filepath.Join(data, "sendlater.key"): 0o600, filepath.Join(data, "sendlater.db"): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %04o, want %04o", path, got, want)
		}
	}
	srv.stop(t)
}

package bolt_test

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "sendlater.db")
	MustOpen(t, path)
	wantMode(t, dir, os.ModeDir|0o700)
	wantMode(t, path, 0o600)

}

func wantMode(tb testing.TB, path string, want os.FileMode) {
	tb.Helper()
	fi, err := os.Stat(path)
	must(tb, err)
	if fi.Mode() != want {
		tb.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
	}
}

package seal_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
)

func TestKeyFileModes(t *testing.T) {
	keyDir := filepath.Join(t.TempDir(), "secrets")
	keyFile := filepath.Join(keyDir, "store.key")
	key, err := seal.LoadOrCreateKey(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(key) != seal.KeySize {
		t.Fatalf("key of %d bytes", len(key))
	}
	wantMode(t, keyDir, os.ModeDir|0o700)
	wantMode(t, keyFile, 0o600)
	again, err := seal.LoadOrCreateKey(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(key, again) {
		t.Fatal("the second load returned another key")
	}
	entries, err := os.ReadDir(keyDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("key dir holds %d files, want 1 (no temporary left)", len(entries))
	}
}

func wantMode(tb testing.TB, path string, want os.FileMode) {
	tb.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	if fi.Mode() != want {
		tb.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
	}
}

func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := core.ErrorCode(err); got != code {
		tb.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}

func TestLoadOrCreateKeyRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"short-hex": strings.Repeat("ab", 16),
		"long-b64":  base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xfb}, 48)), // 64 characters, not hex
		"empty":     "",
		"text":      "not a key at all",
	} {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := seal.LoadOrCreateKey(file)
		if core.ErrorCode(err) != core.EInvalid {
			t.Fatalf("%s: LoadOrCreateKey error = %v, want %s", name, err, core.EInvalid)
		}
		if !strings.Contains(core.ErrorMessage(err), file) {
			t.Errorf("%s: message %q does not name the file", name, core.ErrorMessage(err))
		}
		b, _ := os.ReadFile(file)
		if string(b) != content {
			t.Errorf("%s: a refused key file was rewritten", name)
		}
	}
}

func TestParseKey(t *testing.T) {
	raw := make([]byte, seal.KeySize)
	for i := range raw {
		raw[i] = byte(i * 7)
	}
	for _, s := range []string{
		hex.EncodeToString(raw),
		strings.ToUpper(hex.EncodeToString(raw)),
		"  " + hex.EncodeToString(raw) + "\n",
		base64.StdEncoding.EncodeToString(raw),
		base64.RawStdEncoding.EncodeToString(raw),
		base64.URLEncoding.EncodeToString(raw),
		base64.RawURLEncoding.EncodeToString(raw),
	} {
		k, err := seal.ParseKey(s)
		if err != nil || !bytes.Equal(k, raw) {
			t.Errorf("ParseKey(%q) = %x, %v", s, k, err)
		}
	}
	for _, s := range []string{"", "abcd", hex.EncodeToString(raw[:31]), base64.StdEncoding.EncodeToString(raw[:31]), strings.Repeat("z", 64)} {
		_, err := seal.ParseKey(s)
		wantCode(t, err, core.EInvalid)
		if s != "" && strings.Contains(err.Error(), s) {
			t.Errorf("the error repeats the key: %v", err)
		}
		if !strings.Contains(core.ErrorMessage(err), "64 hex characters or the base64 of 32 bytes") {
			t.Errorf("unclear error: %v", err)
		}
	}
}

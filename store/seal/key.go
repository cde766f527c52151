package seal

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sendlater/sendlater/core"
)

// ParseKey reads a key given in config: 64 hex characters, or the base64
// (standard or URL alphabet, padded or not) of 32 bytes. The error never
// repeats the key.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if len(s) == 2*KeySize {
		if k, err := hex.DecodeString(s); err == nil {
			return k, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil && len(k) == KeySize {
			return k, nil
		}
	}
	return nil, core.Errorf(core.EInvalid,
		"The encryption key must be 64 hex characters or the base64 of 32 bytes; the one given has %d characters and is neither.", len(s))
}

// LoadOrCreateKey reads the key in file, or on first use creates the file
// (and its directory, mode 0700) with a new random key in hex, mode 0600.
// A file whose content is not a key is refused, never replaced.
func LoadOrCreateKey(file string) ([]byte, error) {
	b, err := os.ReadFile(file)
	if err == nil {
		k, err := ParseKey(string(b))
		if err != nil {
			return nil, core.Errorf(core.EInvalid, "The key file %s holds no valid key: %s", file, core.ErrorMessage(err))
		}
		return k, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, core.Errorf(core.EUnavailable, "Cannot read the key file %s: %v", file, err)
	}
	key := make([]byte, KeySize)
	rand.Read(key) // never fails (crypto/rand)
	if err := createKeyFile(file, []byte(hex.EncodeToString(key)+"\n")); err != nil {
		if errors.Is(err, os.ErrExist) {
			// Another process created it first: use theirs.
			return LoadOrCreateKey(file)
		}
		return nil, core.Errorf(core.EUnavailable, "Cannot create the key file %s: %v", file, err)
	}
	return key, nil
}

// createKeyFile writes content to a temporary file, syncs it and links it in
// place, so the key file is either absent or whole, even after a crash, and
// an existing file is never overwritten (os.ErrExist).
func createKeyFile(file string, content []byte) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".key-*") // mode 0600
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), file); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		err = d.Sync()
		d.Close()
		if err != nil {
			return fmt.Errorf("sync %s: %w", dir, err)
		}
	}
	return nil
}

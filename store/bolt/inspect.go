package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
	"go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Inspection is what Inspect found in a store file (`sendlater doctor`).
type Inspection struct {
	// Version is the file's schema version (how many migrations ran) and
	// Known the version this binary migrates to: Version < Known is a
	// store that the next read-write opening migrates, Version > Known
	// one written by a newer binary, which this one refuses.
	Version, Known int
	// KeyChecked: a key was given and the file holds a key check; KeyOK:
	// the key opens it.
	KeyChecked, KeyOK bool
	// Problems are what bbolt's consistency check (Tx.Check) found:
	// pages unreachable or reachable twice, keys out of order, a freelist
	// that does not add up. None: the file is sound.
	Problems []error
	// Size is the file's size in bytes.
	Size int64
}

// Inspect opens the store file at path read-only (a shared lock, waiting
// at most timeout; nothing is created or migrated), reads its schema
// version, checks key against it when key is not nil, and runs bbolt's
// consistency check over every page. A missing file is ENotFound, a file
// held by a server EUnavailable, a file that is no Sendlater store
// EInvalid.
func Inspect(path string, key []byte, timeout time.Duration) (Inspection, error) {
	var in Inspection
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return in, core.Errorf(core.ENotFound, "There is no store at %s.", path)
	} else if err != nil {
		return in, fmt.Errorf("cannot read the store %s: %w", path, err)
	}
	in.Size = fi.Size()
	bdb, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: timeout})
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		return in, core.Errorf(core.EUnavailable,
			"Another process (probably `sendlater serve`) holds %s: the store stayed locked for %s.", path, timeout)
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return in, fmt.Errorf("cannot open the store %s: %w", path, pe.Err)
		}
		return in, fmt.Errorf("cannot open the store %s: %w", path, err)
	}
	defer bdb.Close()
	in.Known = len(migrations)
	err = bdb.View(func(tx *bbolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			return core.Errorf(core.EInvalid, "The file %s is not a Sendlater store.", path)
		}
		v := meta.Get(metaVersion)
		if len(v) != 8 {
			return core.Errorf(core.EInvalid, "The store %s has no readable schema version.", path)
		}
		in.Version = int(binary.BigEndian.Uint64(v))
		if check := meta.Get(metaKeyCheck); key != nil && check != nil {
			sealer, err := seal.New(key)
			if err != nil {
				return err
			}
			in.KeyChecked, in.KeyOK = true, sealer.CheckKey(metaKeyCheck, check)
		}
		for err := range tx.Check() {
			in.Problems = append(in.Problems, err)
		}
		return nil
	})
	return in, err
}

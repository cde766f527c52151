package bolt

import (
	"slices"
	"testing"

	"go.etcd.io/bbolt"
)

// AppendMigration makes m the next schema version for one test.
func AppendMigration(tb testing.TB, m func(tx *bbolt.Tx) error) {
	old := migrations
	migrations = append(slices.Clip(old), m)
	tb.Cleanup(func() { migrations = old })
}

// SchemaVersion is the version this binary migrates to.
func SchemaVersion() int { return len(migrations) }

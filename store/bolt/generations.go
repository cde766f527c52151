package bolt

import (
	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

var _ core.UserGenerations = (*DB)(nil)

// UserGeneration implements core.UserGenerations: the user's counter in
// s.gens (core.GenerationStripes), which moves in the commit hook of a
// write (moved), so after the commit and before the write's caller returns.
func (s *DB) UserGeneration(userID string) uint64 { return s.gens.Of(userID).Load() }

// moved moves userID's generation when, and only when, tx commits. Every
// write of a user's record, messages or sessions calls it (directly or
// through changed).
func (s *DB) moved(tx *bbolt.Tx, userID string) {
	tx.OnCommit(func() { s.gens.Of(userID).Add(1) })
}

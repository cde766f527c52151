package bolt

import (
	"hash/maphash"
	"sync/atomic"

	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

var _ core.UserGenerations = (*DB)(nil)

// generations are the per-user generations of core.UserGenerations:
// counters in stripes chosen by a hash of the user id, so that memory stays
// fixed however many users there are (two users sharing a stripe see each
// other's writes as changes, which costs a read, never a stale one). A
// counter only grows, and moves in the commit hook of a write (moved), so
// after the commit and before the write's caller returns.
type generations struct {
	stripes [generationStripes]atomic.Uint64
}

const generationStripes = 1024

var stripeSeed = maphash.MakeSeed()

func (g *generations) stripe(userID string) *atomic.Uint64 {
	return &g.stripes[maphash.String(stripeSeed, userID)%generationStripes]
}

// UserGeneration implements core.UserGenerations.
func (s *DB) UserGeneration(userID string) uint64 { return s.gens.stripe(userID).Load() }

// moved moves userID's generation when, and only when, tx commits. Every
// write of a user's record, messages or sessions calls it (directly or
// through changed).
func (s *DB) moved(tx *bbolt.Tx, userID string) {
	tx.OnCommit(func() { s.gens.stripe(userID).Add(1) })
}

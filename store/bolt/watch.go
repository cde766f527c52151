package bolt

import (
	"context"

	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

var _ core.MessageWatcher = (*DB)(nil)

// WatchMessages implements core.MessageWatcher. Every write of a message goes
// through putMessage or deleteMessage, and every change of a user through
// updateUser, which tell the watchers of the owner once the transaction has
// committed.
func (s *DB) WatchMessages(ctx context.Context, owner string) (<-chan struct{}, func()) {
	return s.watchers.Watch(ctx, owner)
}

// changed moves owner's generation and tells owner's watchers about tx's
// changes when, and only when, tx commits.
func (s *DB) changed(tx *bbolt.Tx, owner string) {
	s.moved(tx, owner)
	tx.OnCommit(func() { s.watchers.Notify(owner) })
}

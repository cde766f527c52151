package postgres

import "time"

// SetSettleGather sets how long db's lone settlements wait for company,
// from the next group on.
func SetSettleGather(db *DB, d time.Duration) {
	db.settles.mu.Lock()
	db.settles.gatherFor = d
	db.settles.mu.Unlock()
}

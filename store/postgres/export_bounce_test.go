package postgres

import "time"

// SetBounceGather sets how long db's bounces gather (a gap without a new
// call, at most most), from the next group on.
func SetBounceGather(db *DB, gap, most time.Duration) {
	db.bounces.mu.Lock()
	db.bounces.gap, db.bounces.most = gap, most
	db.bounces.mu.Unlock()
}

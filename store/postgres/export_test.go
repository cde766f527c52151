package postgres

import "time"

// SetSettleGather sets how long db's lone settlements wait for company,
// from the next group on.
func SetSettleGather(db *DB, d time.Duration) {
	db.settles.mu.Lock()
	db.settles.gatherFor = d
	db.settles.mu.Unlock()
}

// SetBounceGather sets how long db's bounces gather (a gap without a new
// call, at most most), from the next group on.
func SetBounceGather(db *DB, gap, most time.Duration) {
	db.bounces.mu.Lock()
	db.bounces.gap, db.bounces.most = gap, most
	db.bounces.mu.Unlock()
}

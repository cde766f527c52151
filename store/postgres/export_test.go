package postgres

import "time"

// SetSettleGather sets how long db's lone settlements wait for company.
// Call it before db settles anything.
func SetSettleGather(db *DB, d time.Duration) { db.settles.gatherFor = d }

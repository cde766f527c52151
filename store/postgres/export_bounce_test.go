package postgres

import (
	"context"
	"time"
)

// SetBounceGather sets how long db's bounces gather (a gap without a new
// call, at most most), from the next group on.
func SetBounceGather(db *DB, gap, most time.Duration) {
	db.bounces.mu.Lock()
	db.bounces.gap, db.bounces.most = gap, most
	db.bounces.mu.Unlock()
}

// PendingBounces is how many of db's bounces wait for a group.
func PendingBounces(db *DB) int {
	db.bounces.mu.Lock()
	defer db.bounces.mu.Unlock()
	return len(db.bounces.pending)
}

// Xmin is the transaction that wrote the row of table where column = id.
func Xmin(db *DB, table, column, id string) (string, error) {
	var x string
	err := db.pool.QueryRow(context.Background(), "select xmin::text from "+table+" where "+column+" = $1", id).Scan(&x)
	return x, err
}

// SetRideAfter sets how long the oldest pending bounce waits for company
// before a settlement group takes it (negative: none).
func SetRideAfter(db *DB, d time.Duration) {
	db.bounces.mu.Lock()
	db.bounces.rideAfter = d
	db.bounces.mu.Unlock()
}

// RideCompany is how many pending bounces a settlement group takes at once.
const RideCompany = rideCompany

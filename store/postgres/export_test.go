package postgres

import "time"

// SetSettleGather sets how long db's lone settlements wait for company,
// from the next group on.
func SetSettleGather(db *DB, d time.Duration) {
	db.settles.mu.Lock()
	db.settles.gatherFor = d
	db.settles.mu.Unlock()
}

// SetMoveMarksPage sets how many messages the bounce marks' move reads at
// once, for a test to cross pages with a few.
func SetMoveMarksPage(n int) (undo func()) {
	old := moveMarksPage
	moveMarksPage = n
	return func() { moveMarksPage = old }
}

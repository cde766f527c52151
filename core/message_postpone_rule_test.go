package core_test

import (
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// A postpone on the day a message was made moves nothing, in the author's
// zone: in Tokyo the next day starts at 15:00 UTC, and from then on the
// postpone moves the date; PostponeBlockedUntil says that instant.
func TestPostponeRuleAtTheAuthorsDayBoundary(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	created := time.Date(2026, 3, 2, 1, 0, 0, 0, time.UTC) // 10:00 in Tokyo
	m := core.NewMessage("u1", core.MessageInput{Title: "T", Name: "A", Recipient: "a@example.com", Body: "b"}, created, tokyo)
	midnight := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC) // 3 March 00:00 in Tokyo
	for _, c := range []struct {
		at    time.Time
		moves bool
	}{
		{created, false}, {midnight.Add(-time.Second), false}, {midnight, true}, {midnight.Add(time.Hour), true},
	} {
		if got := m.PostponeMoves(c.at, tokyo); got != c.moves {
			t.Errorf("at %v: moves %v, want %v", c.at, got, c.moves)
		}
		until := m.PostponeBlockedUntil(c.at, tokyo)
		if c.moves && !until.IsZero() || !c.moves && !until.Equal(midnight) {
			t.Errorf("at %v: blocked until %v", c.at, until)
		}
		mm := *m
		if mm.Postpone(c.at, tokyo) != c.moves {
			t.Errorf("at %v: Postpone disagrees with PostponeMoves", c.at)
		}
	}
	// In UTC the same instants are one day: no postpone moves it until 3 March.
	if m.PostponeMoves(midnight, time.UTC) || !m.PostponeBlockedUntil(midnight, time.UTC).Equal(time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC)) {
		t.Error("the rule does not follow the author's zone")
	}
	// A month's end clamps days together: made on 29 January, due 28 February; 30 and 31 January postpone to 28 February too.
	jan := core.NewMessage("u1", core.MessageInput{Title: "T", Name: "A", Recipient: "a@example.com", Body: "b"}, time.Date(2026, 1, 29, 9, 0, 0, 0, time.UTC), time.UTC)
	if got := jan.PostponeBlockedUntil(time.Date(2026, 1, 30, 9, 0, 0, 0, time.UTC), time.UTC); !got.Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("blocked until %v, want 1 February", got)
	}
	if got := core.PostponeNoEffect("March 2, 2026"); got != "Postponing today would not move the date: it is already March 2, 2026." {
		t.Error(got)
	}
	if got := core.PostponedTo("April 3, 2026"); got != "The message is postponed! It will be delivered on April 3, 2026." {
		t.Error(got)
	}
}

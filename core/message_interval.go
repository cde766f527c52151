package core

import (
	"time"
)

// Interval is how long after creation (or a postpone) a message is delivered.
type Interval string

const (
	Interval1M  Interval = "1M"
	Interval6M  Interval = "6M"
	Interval12M Interval = "12M"

	DefaultInterval = Interval1M
)

// Months returns the number of months of the interval, or 0 when it is not
// one of the known intervals.
func (i Interval) Months() int {
	switch i {
	case Interval1M:
		return 1
	case Interval6M:
		return 6
	case Interval12M:
		return 12
	}
	return 0
}

// Valid reports whether i is one of 1M, 6M or 12M.
func (i Interval) Valid() bool { return i.Months() > 0 }

// AddMonths adds months to t in loc, keeping the wall-clock time and clamping
// the day to the end of the target month: Jan 31 + 1 month is Feb 28 (or 29).
func AddMonths(t time.Time, months int, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	t = t.In(loc)
	y, m, d := t.Date()
	first := time.Date(y, m+time.Month(months), 1, 0, 0, 0, 0, loc)
	if last := daysIn(first.Year(), first.Month(), loc); d > last {
		d = last
	}
	hh, mm, ss := t.Clock()
	return time.Date(first.Year(), first.Month(), d, hh, mm, ss, t.Nanosecond(), loc)
}

func daysIn(y int, m time.Month, loc *time.Location) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, loc).Day()
}

// SameDay reports whether a and b fall on the same calendar day in loc.
func SameDay(a, b time.Time, loc *time.Location) bool {
	if loc == nil {
		loc = time.UTC
	}
	ay, am, ad := a.In(loc).Date()
	by, bm, bd := b.In(loc).Date()
	return ay == by && am == bm && ad == bd
}

// LoadLocation returns the IANA zone name's location, or UTC for an empty or
// unknown name.
func LoadLocation(name string) *time.Location {
	if name == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

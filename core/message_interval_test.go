package core_test

import (
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

func mustLoc(tb testing.TB, name string) *time.Location {
	tb.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		tb.Fatal(err)
	}
	return loc
}

func TestAddMonthsClampsToMonthEnd(t *testing.T) {
	utc := time.UTC
	tests := []struct {
		from   time.Time
		months int
		want   time.Time
	}{
		{time.Date(2026, 1, 31, 9, 30, 0, 0, utc), 1, time.Date(2026, 2, 28, 9, 30, 0, 0, utc)},
		{time.Date(2028, 1, 31, 9, 30, 0, 0, utc), 1, time.Date(2028, 2, 29, 9, 30, 0, 0, utc)},
		{time.Date(2026, 3, 31, 0, 0, 0, 0, utc), 6, time.Date(2026, 9, 30, 0, 0, 0, 0, utc)},
		{time.Date(2026, 8, 31, 23, 59, 0, 0, utc), 6, time.Date(2027, 2, 28, 23, 59, 0, 0, utc)},
		{time.Date(2027, 2, 28, 12, 0, 0, 0, utc), 12, time.Date(2028, 2, 28, 12, 0, 0, 0, utc)},
		{time.Date(2028, 2, 29, 12, 0, 0, 0, utc), 12, time.Date(2029, 2, 28, 12, 0, 0, 0, utc)},
		{time.Date(2026, 12, 15, 8, 0, 0, 0, utc), 1, time.Date(2027, 1, 15, 8, 0, 0, 0, utc)},
	}
	for _, tt := range tests {
		if got := core.AddMonths(tt.from, tt.months, utc); !got.Equal(tt.want) {
			t.Errorf("AddMonths(%v, %d) = %v, want %v", tt.from, tt.months, got, tt.want)
		}
	}
}

func TestAddMonthsKeepsWallClockAcrossDST(t *testing.T) {
	berlin := mustLoc(t, "Europe/Berlin")
	// 10:00 in winter (CET) becomes 10:00 in summer (CEST): one hour less of real time.
	from := time.Date(2026, 2, 20, 10, 0, 0, 0, berlin)
	got := core.AddMonths(from, 6, berlin)
	if want := time.Date(2026, 8, 20, 10, 0, 0, 0, berlin); !got.Equal(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if _, off := got.Zone(); off != 2*3600 {
		t.Fatalf("offset %d, want CEST", off)
	}
}

func TestAddMonthsUsesTheAuthorsZone(t *testing.T) {
	// 2026-01-30 20:00 in New York is already Jan 31 in UTC, which clamps.
	ny := mustLoc(t, "America/New_York")
	from := time.Date(2026, 1, 30, 20, 0, 0, 0, ny)
	got := core.AddMonths(from, 1, ny)
	if want := time.Date(2026, 2, 28, 20, 0, 0, 0, ny); !got.Equal(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if gotUTC := core.AddMonths(from, 1, time.UTC); gotUTC.Equal(got) {
		t.Fatal("the zone must matter for month arithmetic")
	}
}

func TestSameDayIsTheAuthorsCalendarDay(t *testing.T) {
	tokyo := mustLoc(t, "Asia/Tokyo")
	a := time.Date(2026, 5, 1, 14, 0, 0, 0, time.UTC) // May 1 23:00 in Tokyo
	b := time.Date(2026, 5, 1, 16, 0, 0, 0, time.UTC) // May 2 01:00 in Tokyo
	if !core.SameDay(a, b, time.UTC) {
		t.Error("same day in UTC")
	}
	if core.SameDay(a, b, tokyo) {
		t.Error("different days in Tokyo")
	}
}

func TestIntervals(t *testing.T) {
	for iv, months := range map[core.Interval]int{"1M": 1, "6M": 6, "12M": 12, "2M": 0, "": 0} {
		if got := iv.Months(); got != months {
			t.Errorf("%q.Months() = %d, want %d", iv, got, months)
		}
	}
	if core.LoadLocation("Not/AZone") != time.UTC || core.LoadLocation("") != time.UTC {
		t.Error("unknown zones fall back to UTC")
	}
}

package cli_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/internal/cli"
)

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"now":                       now,
		"+36h":                      now.Add(36 * time.Hour),
		" +90m ":                    now.Add(90 * time.Minute),
		"2026-04-01T09:30:00Z":      time.Date(2026, 4, 1, 9, 30, 0, 0, time.UTC),
		"2026-04-01T09:30:00+02:00": time.Date(2026, 4, 1, 7, 30, 0, 0, time.UTC),
		"2026-04-01 09:30":          time.Date(2026, 4, 1, 9, 30, 0, 0, time.UTC),
		"2026-04-01T09:30":          time.Date(2026, 4, 1, 9, 30, 0, 0, time.UTC),
		"2026-04-01":                time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC),
	} {
		got, err := cli.ParseWhen(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseWhen(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "tomorrow", "+3 days", "01/04/2026"} {
		if _, err := cli.ParseWhen(bad, now); err == nil || !strings.Contains(err.Error(), "RFC 3339") {
			t.Errorf("ParseWhen(%q): %v, want an error that shows the forms", bad, err)
		}
	}
}

// TestParseWhenDays: a day offset reads in every TIME flag (issue 28: "+30d"
// was refused by send-due --at while stats --since took "7d").
func TestParseWhenDays(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	for _, c := range []struct {
		in          string
		when, since time.Time
	}{
		{"+30d", now.Add(30 * day), now.Add(30 * day)},
		{"-7d", now.Add(-7 * day), now.Add(-7 * day)},
		{"7d", now.Add(7 * day), now.Add(-7 * day)},
		{"24h", now.Add(day), now.Add(-day)},
		{"+1d12h", now.Add(36 * time.Hour), now.Add(36 * time.Hour)},
		{"2026-04-01 09:30", time.Date(2026, 4, 1, 9, 30, 0, 0, time.UTC), time.Date(2026, 4, 1, 9, 30, 0, 0, time.UTC)},
	} {
		if got, err := cli.ParseWhen(c.in, now); err != nil || !got.Equal(c.when) {
			t.Errorf("ParseWhen(%q) = %v, %v; want %v", c.in, got, err, c.when)
		}
		if got, err := cli.ParseSince(c.in, now); err != nil || !got.Equal(c.since) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", c.in, got, err, c.since)
		}
	}
	for _, bad := range []string{"+d", "++3d", "+-3d", "3dd", "1.5d", "d"} {
		if got, err := cli.ParseWhen(bad, now); err == nil {
			t.Errorf("ParseWhen(%q) = %v, want an error", bad, got)
		}
	}
}

func TestTableAndCells(t *testing.T) {
	var b strings.Builder
	if err := cli.PrintTable(&b, []string{"ID", "TITLE"}, [][]string{{"a1", "short"}, {"b22", cli.Clip("a title\nover two lines", 10)}}); err != nil {
		t.Fatal(err)
	}
	if want := "ID   TITLE\na1   short\nb22  a title o…\n"; b.String() != want {
		t.Fatalf("table:\n%q\nwant\n%q", b.String(), want)
	}
	if cli.When(time.Time{}) != "-" || cli.OrDash("") != "-" || cli.OrDash("x") != "x" {
		t.Fatal("empty cells are not a dash")
	}
	if got := cli.When(time.Date(2026, 4, 1, 9, 30, 0, 0, time.FixedZone("CEST", 7200))); got != "2026-04-01 07:30 UTC" {
		t.Fatalf("When: %q", got)
	}
}

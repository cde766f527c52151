// Package cli holds what the command line and the terminal UI share for
// talking to a person: reading the times they type, printing aligned tables,
// fields and JSON.
package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// ParseWhen reads a time typed by a person: RFC 3339, a date and time
// ("2026-04-01 09:30", UTC), a date (midnight UTC), "now", or an offset from
// now: "+36h", "+30d", "-24h", "-7d" (d is a day of 24 hours). An offset
// without a sign ("7d") is in the future; ParseSince reads it as the past.
func ParseWhen(s string, now time.Time) (time.Time, error) {
	return parseWhen(s, now, 1)
}

// ParseSince is ParseWhen for a flag that looks back (--since): an offset
// without a sign ("7d", "24h") is before now.
func ParseSince(s string, now time.Time) (time.Time, error) {
	return parseWhen(s, now, -1)
}

func parseWhen(s string, now time.Time, unsigned time.Duration) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "now" {
		return now, nil
	}
	sign, rest := unsigned, s
	if r, ok := strings.CutPrefix(s, "+"); ok {
		sign, rest = 1, r
	} else if r, ok := strings.CutPrefix(s, "-"); ok {
		sign, rest = -1, r
	}
	if d, err := ParseDuration(rest); err == nil {
		return now.Add(sign * d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot read the time %q: use RFC 3339 (2026-04-01T09:30:00Z), \"2026-04-01 09:30\" (UTC), 2026-04-01, now, or an offset such as +30d, +36h, -24h", s)
}

// ParseDuration is time.ParseDuration that also reads days ("7d", "1d12h"),
// a day being 24 hours. It refuses a sign: callers say which way.
func ParseDuration(s string) (time.Duration, error) {
	if s == "" || s[0] == '+' || s[0] == '-' {
		return 0, fmt.Errorf("cannot read the duration %q: use e.g. 30d, 36h or 90m", s)
	}
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		n, err := strconv.Atoi(s[:i])
		if err != nil || n < 0 || n > 100000 {
			return 0, fmt.Errorf("cannot read the duration %q: use e.g. 30d, 36h or 90m", s)
		}
		days, s = time.Duration(n)*24*time.Hour, s[i+1:]
		if s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("cannot read the duration %q: use e.g. 30d, 36h or 90m", s)
	}
	return days + d, nil
}

// PrintTable prints rows under a header as aligned columns.
func PrintTable(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// PrintFields prints key: value lines, aligned.
func PrintFields(w io.Writer, kv [][2]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, p := range kv {
		fmt.Fprintf(tw, "%s:\t%s\n", p[0], p[1])
	}
	return tw.Flush()
}

// PrintJSON prints v as indented JSON.
func PrintJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// When formats a time for tables: UTC, minutes; "-" for none.
func When(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// Clip shortens s to n runes for a table cell, on one line.
func Clip(s string, n int) string {
	r := []rune(strings.ReplaceAll(s, "\n", " "))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}

// OrDash is s, or "-" when it is empty.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

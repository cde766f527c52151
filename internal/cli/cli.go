// Package cli holds what the command line and the terminal UI share for
// talking to a person: reading the times they type, printing aligned tables,
// fields and JSON.
package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// ParseWhen reads a time typed by a person: RFC 3339, a date and time
// ("2026-04-01 09:30", UTC), a date (midnight UTC), "now", or an offset from
// now ("+36h", "-24h").
func ParseWhen(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "now" {
		return now, nil
	}
	if rest, ok := strings.CutPrefix(s, "+"); ok {
		d, err := time.ParseDuration(rest)
		if err == nil {
			return now.Add(d), nil
		}
	}
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		d, err := time.ParseDuration(rest)
		if err == nil {
			return now.Add(-d), nil
		}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot read the time %q: use RFC 3339 (2026-04-01T09:30:00Z), \"2026-04-01 09:30\" (UTC), 2026-04-01, now, +36h or -24h", s)
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

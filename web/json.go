package web

import "time"

// The JSON shapes of this file and of json_*.go are the one Go wire form of
// Sendlater's types: the API and the admin socket write them, APIClient and
// AdminClient read them back into core types, and the CLI's --json prints
// them. Times are milliseconds since the epoch, as API.md sends them.

// millis is a time in milliseconds since the epoch; the zero time is 0.
func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// optMillis is millis for an optional time: nil for the zero time.
func optMillis(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	ms := t.UnixMilli()
	return &ms
}

func fromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

func fromOptMillis(ms *int64) time.Time {
	if ms == nil {
		return time.Time{}
	}
	return fromMillis(*ms)
}

// each converts every element of xs: a list between the wire and core.
func each[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

package postgres

import (
	"fmt"
	"strings"
	"time"
)

// Times are stored as unix nanoseconds, NULL for the zero time (see
// migrations/0001_schema.sql).

// nanos is t as a column value.
func nanos(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

// at is a scan target that reads such a column into *t, in UTC.
func at(t *time.Time) timeColumn { return timeColumn{t} }

type timeColumn struct{ t *time.Time }

func (c timeColumn) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*c.t = time.Time{}
	case int64:
		*c.t = time.Unix(0, v).UTC()
	default:
		return fmt.Errorf("a time column holds %T", src)
	}
	return nil
}

// list is a string list as a column value: NULL when empty, so it reads
// back as nil, as the bbolt store's records do.
func list(ss []string) any {
	if len(ss) == 0 {
		return nil
	}
	return ss
}

// nullIfEmpty is a column value that is NULL for "" or nil.
func nullIfEmpty[T string | []byte](v T) any {
	if len(v) == 0 {
		return nil
	}
	return v
}

// excluded is a column list ("a, b") as the values an upsert proposed
// ("excluded.a, excluded.b").
func excluded(columns string) string { return qualified("excluded", columns) }

// qualified is a column list with each column qualified by table.
func qualified(table, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = table + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

package textlog

import (
	"log/slog"
	"strconv"
	"time"
)

// Line is one record written in one pass by its caller, without a
// slog.Record: the access log's line of every request (web). The record
// is built of its attributes as they come, in a pooled buffer, and written
// as Handle would write the same record, byte for byte
// (TestLineSameAsHandle). It skips the Record (whose attributes past the
// fifth are allocated), the passes over its attributes and their boxing as
// slog.Values. A Line is used once: begun by Handler.Line, its attributes
// added, then End.
type Line struct {
	h  *Handler
	bp *[]byte
	b  []byte
}

// Line begins a record of level and msg at t, as Handle would write it
// (the caller checks Enabled first).
func (h *Handler) Line(t time.Time, level slog.Level, msg string) Line {
	bp := buffers.Get().(*[]byte)
	b := (*bp)[:0]
	sep := ""
	if !t.IsZero() {
		b = append(b, "time="...)
		b = appendRFC3339Millis(b, t.Round(0))
		sep = " "
	}
	b = append(b, sep...)
	b = append(b, "level="...)
	b = appendString(b, level.String())
	b = append(b, " msg="...)
	b = appendString(b, msg)
	return Line{h: h, bp: bp, b: b}
}

// Key is an attribute's key as a line writes it before the value
// (" key="), formatted once: a line written for every request names the
// same keys every time.
type Key string

// NewKey is key formatted as Handle formats it (quoted where slog's text
// format quotes it).
func NewKey(key string) Key { return Key(" " + string(appendString(nil, key)) + "=") }

// String adds the attribute slog.String(key, v).
func (l *Line) String(key Key, v string) {
	l.b = append(l.b, key...)
	l.b = appendString(l.b, v)
}

// Int adds the attribute slog.Int(key, v).
func (l *Line) Int(key Key, v int) {
	l.b = append(l.b, key...)
	l.b = strconv.AppendInt(l.b, int64(v), 10)
}

// Float64 adds the attribute slog.Float64(key, v).
func (l *Line) Float64(key Key, v float64) {
	l.b = append(l.b, key...)
	l.b = strconv.AppendFloat(l.b, v, 'g', -1, 64)
}

// Millis adds the attribute slog.Float64(key, float64(us)/1000): a
// duration in milliseconds to the microsecond, as the access line has it.
// Below a million milliseconds the shortest form of us/1000 is its
// integer part and up to three decimals without trailing zeros (two
// different decimals of at most three places are 0.001 apart, far more
// than a float64's spacing there), written here without strconv's search
// for the shortest digits (TestMillisIsFloat64s); anything else goes
// through Float64.
func (l *Line) Millis(key Key, us int64) {
	if us < 0 || us >= 1e9 {
		l.Float64(key, float64(us)/1000)
		return
	}
	l.b = append(l.b, key...)
	l.b = strconv.AppendInt(l.b, us/1000, 10)
	frac := us % 1000
	if frac == 0 {
		return
	}
	digits := [4]byte{'.', byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	n := len(digits)
	for digits[n-1] == '0' {
		n--
	}
	l.b = append(l.b, digits[:n]...)
}

// End writes the line, in one Write call, and gives its buffer back.
func (l *Line) End() error {
	b := append(l.b, '\n')
	_, err := l.h.w.Write(b)
	if cap(b) <= 16<<10 {
		*l.bp = b
		buffers.Put(l.bp)
	}
	l.h, l.bp, l.b = nil, nil, nil
	return err
}

// Package textlog is slog's text format, written faster for the records a
// busy server logs most: the access log's line of every request. A record
// whose attributes are all strings, numbers, booleans or durations is
// formatted here in one pass into a pooled buffer, byte for byte as
// slog.TextHandler would (TestSameAsSlog); any other record, and any logger
// with attributes or groups of its own, goes to slog.TextHandler itself.
// slog's handler spends most of an access line's cost on its general
// machinery (docs/benchmarks.md, issue 14).
package textlog

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// Handler writes slog's text format to its writer.
type Handler struct {
	level slog.Leveler
	w     *lockedWriter
	slow  *slog.TextHandler // the same output, for what the fast path does not take
}

// New is a handler writing records of level or above to w, as
// slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}) would. Each
// record is one Write call, made under a lock of the handler's, unless w
// says it keeps concurrent writes whole itself (a WritesWhole method, as
// logbuf.Writer has): a busy server's every access line took both locks.
func New(w io.Writer, level slog.Leveler) *Handler {
	if level == nil {
		level = slog.LevelInfo
	}
	lw := &lockedWriter{w: w}
	_, lw.whole = w.(interface{ WritesWhole() })
	return &Handler{level: level, w: lw, slow: slog.NewTextHandler(lw, &slog.HandlerOptions{Level: level})}
}

func (h *Handler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

// WithAttrs and WithGroup hand the logger to slog's handler: loggers with
// attributes of their own log rarely (a request's errors).
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h // what slog's would write too
	}
	return h.slow.WithAttrs(attrs)
}

func (h *Handler) WithGroup(name string) slog.Handler { return h.slow.WithGroup(name) }

var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if !flat(r) {
		return h.slow.Handle(ctx, r)
	}
	bp := buffers.Get().(*[]byte)
	b := (*bp)[:0]
	sep := ""
	if !r.Time.IsZero() {
		b = append(b, "time="...)
		b = appendRFC3339Millis(b, r.Time.Round(0))
		sep = " "
	}
	b = append(b, sep...)
	b = append(b, "level="...)
	b = appendString(b, r.Level.String())
	b = append(b, " msg="...)
	b = appendString(b, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		b = append(b, ' ')
		b = appendString(b, a.Key)
		b = append(b, '=')
		b = appendValue(b, a.Value)
		return true
	})
	b = append(b, '\n')
	_, err := h.w.Write(b)
	if cap(b) <= 16<<10 {
		*bp = b
		buffers.Put(bp)
	}
	return err
}

// flat reports whether every attribute of r is of a kind the fast path
// writes.
func flat(r slog.Record) bool {
	ok := true
	r.Attrs(func(a slog.Attr) bool {
		switch a.Value.Kind() {
		case slog.KindString, slog.KindInt64, slog.KindUint64, slog.KindFloat64, slog.KindBool, slog.KindDuration:
		default:
			ok = false
		}
		return ok
	})
	return ok
}

func appendValue(b []byte, v slog.Value) []byte {
	switch v.Kind() {
	case slog.KindString:
		return appendString(b, v.String())
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10)
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10)
	case slog.KindFloat64:
		return strconv.AppendFloat(b, v.Float64(), 'g', -1, 64)
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool())
	default: // slog.KindDuration; flat lets nothing else through
		return append(b, v.Duration().String()...)
	}
}

// appendString is s as slog's text format writes it: quoted when empty or
// when it holds a space, '=', '"', a control character or a rune that is
// invalid, a space or not printable.
func appendString(b []byte, s string) []byte {
	if needsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

func needsQuoting(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c <= ' ' || c == '=' || c == '"' {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}

// appendRFC3339Millis is slog's: RFC 3339 with exactly three digits of
// milliseconds. The date, time of day and zone of the second last written
// are kept (lastSecond): a busy server writes many lines a second, and only
// the milliseconds change between them.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	t = t.Truncate(time.Millisecond)
	c := lastSecond.Load()
	if c == nil || c.unix != t.Unix() || c.loc != t.Location() {
		if c = newSecond(t); c == nil {
			return appendRFC3339MillisSlow(b, t)
		}
		lastSecond.Store(c)
	}
	ms := t.Nanosecond() / 1e6
	b = append(b, c.head...)
	b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	return append(b, c.zone...)
}

// second is one second of one location as RFC 3339 writes it: its date and
// time of day, and its zone ("Z", "+01:00").
type second struct {
	unix       int64
	loc        *time.Location
	head, zone string
}

var lastSecond atomic.Pointer[second]

// newSecond is t's second, or nil when its year is not of four digits.
func newSecond(t time.Time) *second {
	const headLen = len("2006-01-02T15:04:05")
	f := t.Format(time.RFC3339) // no fraction: t's second
	if len(f) <= headLen || f[headLen] != 'Z' && f[headLen] != '+' && f[headLen] != '-' {
		return nil
	}
	return &second{unix: t.Unix(), loc: t.Location(), head: f[:headLen], zone: f[headLen:]}
}

// appendRFC3339MillisSlow is slog's own way, for the years newSecond
// leaves out.
func appendRFC3339MillisSlow(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...) // drop the fourth digit
}

// lockedWriter makes each Write whole against every other, the fast path's
// and slog's handler's alike; a writer that does so itself (whole) is
// written to as it is.
type lockedWriter struct {
	mu    sync.Mutex
	w     io.Writer
	whole bool
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	if l.whole {
		return l.w.Write(p)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Package logbuf gathers a busy server's log lines and writes them in
// batches: one write a few milliseconds after the first line of a batch, or
// as soon as a batch fills, instead of one write per line. A server that
// answers thousands of requests a second logs an access line for each; a
// system call each cost a tenth of a quick read's CPU (docs/benchmarks.md).
//
// Nothing that matters waits: a record at warning level or above is written
// at once, with whatever was gathered before it (Handler), and Close writes
// what is left. What a crash can lose is at most Delay's worth of
// information-level lines, never a warning or an error (docs/api.md, Access log).
package logbuf

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Writer gathers writes to W and passes them on in order, in batches. Safe
// for concurrent use; a write is never split, so lines stay whole.
type Writer struct {
	w     io.Writer
	delay time.Duration
	limit int

	mu     sync.Mutex
	buf    []byte
	timer  *time.Timer
	closed bool
	err    error // the last write's, reported by Flush
}

// New returns a Writer that writes to w at most delay after the first
// gathered byte, or once limit bytes are gathered.
func New(w io.Writer, delay time.Duration, limit int) *Writer {
	return &Writer{w: w, delay: delay, limit: limit}
}

// Write gathers p. After Close it writes p through.
func (b *Writer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return b.w.Write(p)
	}
	b.buf = append(b.buf, p...)
	switch {
	case len(b.buf) >= b.limit:
		b.flushLocked()
	case b.timer == nil:
		b.timer = time.AfterFunc(b.delay, func() { b.Flush() })
	}
	return len(p), nil
}

// Flush writes what was gathered.
func (b *Writer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
	return b.err
}

// Close writes what was gathered; later writes go through at once.
func (b *Writer) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
	b.closed = true
	return b.err
}

func (b *Writer) flushLocked() {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	if len(b.buf) == 0 {
		return
	}
	if _, err := b.w.Write(b.buf); err != nil {
		b.err = err // a log that cannot be written loses the batch, as it would a line
	}
	if cap(b.buf) > 4*b.limit {
		b.buf = nil // one huge line does not keep its memory
	} else {
		b.buf = b.buf[:0]
	}
}

// Handler passes records to h, which writes to w, and flushes w after a
// record at warning level or above, so what needs attention is never held.
func Handler(h slog.Handler, w *Writer) slog.Handler { return &flushing{h, w} }

type flushing struct {
	slog.Handler
	w *Writer
}

func (f *flushing) Handle(ctx context.Context, r slog.Record) error {
	err := f.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		f.w.Flush()
	}
	return err
}

func (f *flushing) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &flushing{f.Handler.WithAttrs(attrs), f.w}
}

func (f *flushing) WithGroup(name string) slog.Handler {
	return &flushing{f.Handler.WithGroup(name), f.w}
}

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
// for concurrent use; a write is never split, so lines stay whole. A batch
// is written outside the lock the gathering takes: lines logged while a
// batch goes out gather in the other buffer instead of waiting for the
// system call (which, on a busy server, held every request that finished
// meanwhile).
type Writer struct {
	w     io.Writer
	delay time.Duration
	limit int

	mu     sync.Mutex // guards what follows, up to wmu
	buf    []byte
	spare  []byte // the other buffer, when no batch being written holds it
	timer  *time.Timer
	closed bool

	// wmu is held while a batch is written, taken before mu is let go,
	// so that batches go out in the order they were gathered.
	wmu sync.Mutex
	err error // the last write's, reported by Flush; guarded by wmu
}

// New returns a Writer that writes to w at most delay after the first
// gathered byte, or once limit bytes are gathered.
func New(w io.Writer, delay time.Duration, limit int) *Writer {
	return &Writer{w: w, delay: delay, limit: limit}
}

// Write gathers p. After Close it writes p through.
func (b *Writer) Write(p []byte) (int, error) {
	b.mu.Lock()
	if b.closed { // through, after any batch still being written
		b.wmu.Lock()
		b.mu.Unlock()
		defer b.wmu.Unlock()
		return b.w.Write(p)
	}
	b.buf = append(b.buf, p...)
	switch {
	case len(b.buf) >= b.limit:
		b.flushAndUnlock()
		return len(p), nil
	case b.timer == nil:
		b.timer = time.AfterFunc(b.delay, func() { b.Flush() })
	}
	b.mu.Unlock()
	return len(p), nil
}

// WritesWhole says that concurrent writes are kept whole and in order
// (textlog.New then takes no lock of its own around them).
func (b *Writer) WritesWhole() {}

// Flush writes what was gathered, after any batch still being written.
func (b *Writer) Flush() error {
	b.mu.Lock()
	return b.flushAndUnlock()
}

// Close writes what was gathered; later writes go through at once.
func (b *Writer) Close() error {
	b.mu.Lock()
	b.closed = true // set before the batch is taken: nothing gathers after it
	return b.flushAndUnlock()
}

// flushAndUnlock, called with b.mu held, takes the batch gathered, lets
// b.mu go and writes the batch; it returns once every batch taken before
// it is written, with the last write's error.
func (b *Writer) flushAndUnlock() error {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	batch := b.buf
	b.buf, b.spare = b.spare[:0], nil
	b.wmu.Lock() // before b.mu goes: batches are written in the order taken
	b.mu.Unlock()
	if len(batch) > 0 {
		if _, err := b.w.Write(batch); err != nil {
			b.err = err // a log that cannot be written loses the batch, as it would a line
		}
	}
	err := b.err
	b.wmu.Unlock()
	if cap(batch) <= 4*b.limit { // one huge line does not keep its memory
		b.mu.Lock()
		if b.spare == nil {
			b.spare = batch[:0]
		}
		b.mu.Unlock()
	}
	return err
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

// Unwrap is the handler under a Handler (and true), for a caller that
// writes its information-level lines to it directly (web's access log,
// through textlog.Line): below warning level a Handler only passes records
// on. Any other handler is returned as it is, with false.
func Unwrap(h slog.Handler) (slog.Handler, bool) {
	if f, ok := h.(*flushing); ok {
		return f.Handler, true
	}
	return h, false
}

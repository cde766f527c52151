package tracing

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The batcher's defaults, the SDK batch processor's: a batch of up to 512
// spans every 5 s, at most 2048 waiting (more are dropped), 30 s an export.
const (
	batchSize     = 512
	batchInterval = 5 * time.Second
	batchQueue    = 2048
	exportTimeout = 30 * time.Second
)

// batcher is a span processor that exports ended spans in batches, like
// the SDK's batch processor, without waking a goroutine for each span:
// the SDK's hands every span to its exporting goroutine over a channel, so
// each recorded span cost a goroutine wake-up (a thread woken and put back
// to sleep on a 2-core machine), which made a recorded create cost several
// times what its spans do (docs/bench-trace-overhead.md). Here a span is
// appended under a mutex; the exporter wakes when a batch is full or the
// interval passes.
type batcher struct {
	exp      sdktrace.SpanExporter
	size     int
	max      int
	interval time.Duration

	mu      sync.Mutex
	queue   []sdktrace.ReadOnlySpan
	full    chan struct{} // a batch is waiting (buffered 1: one wake-up a batch)
	stop    chan struct{}
	done    chan struct{}
	flushes chan chan struct{} // ForceFlush's requests
	stopped atomic.Bool
	dropped atomic.Int64 // spans dropped on a full queue
	export  sync.Mutex   // one export at a time
}

var _ sdktrace.SpanProcessor = (*batcher)(nil)

func newBatcher(exp sdktrace.SpanExporter, size, max int, interval time.Duration) *batcher {
	b := &batcher{exp: exp, size: size, max: max, interval: interval,
		full: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		flushes: make(chan chan struct{})}
	go b.run()
	return b
}

func (b *batcher) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues s; the exporter is woken only when a batch is full.
func (b *batcher) OnEnd(s sdktrace.ReadOnlySpan) {
	if b.stopped.Load() || !s.SpanContext().IsSampled() {
		return
	}
	b.mu.Lock()
	if len(b.queue) >= b.max {
		b.mu.Unlock()
		b.dropped.Add(1)
		return
	}
	b.queue = append(b.queue, s)
	full := len(b.queue) >= b.size
	b.mu.Unlock()
	if full {
		select {
		case b.full <- struct{}{}:
		default: // woken already: a failed send, no wake-up
		}
	}
}

func (b *batcher) run() {
	defer close(b.done)
	t := time.NewTicker(b.interval)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
		case <-b.full:
		case flushed := <-b.flushes:
			b.exportAll(context.Background())
			close(flushed)
			continue
		}
		b.exportAll(context.Background())
	}
}

// exportAll exports what is queued, a batch at a time.
func (b *batcher) exportAll(ctx context.Context) error {
	b.export.Lock()
	defer b.export.Unlock()
	for {
		b.mu.Lock()
		n := min(len(b.queue), b.size)
		if n == 0 {
			b.mu.Unlock()
			return nil
		}
		batch := make([]sdktrace.ReadOnlySpan, n)
		copy(batch, b.queue)
		b.queue = append(b.queue[:0], b.queue[n:]...)
		b.mu.Unlock()
		ectx, cancel := context.WithTimeout(ctx, exportTimeout)
		err := b.exp.ExportSpans(ectx, batch)
		cancel()
		if err != nil {
			return err
		}
	}
}

// ForceFlush exports every span queued before it returns.
func (b *batcher) ForceFlush(ctx context.Context) error {
	if b.stopped.Load() {
		return nil
	}
	flushed := make(chan struct{})
	select {
	case b.flushes <- flushed:
	case <-b.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-flushed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown exports what is queued and stops the exporter; spans ended
// after it are dropped.
func (b *batcher) Shutdown(ctx context.Context) error {
	if b.stopped.Swap(true) {
		return nil
	}
	close(b.stop)
	<-b.done
	err := b.exportAll(ctx)
	if serr := b.exp.Shutdown(ctx); err == nil {
		err = serr
	}
	return err
}

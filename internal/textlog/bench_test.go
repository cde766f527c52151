package textlog

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// BenchmarkAccessLine is the access log's line of one request, as web
// writes it (a record without a caller), through slog's text handler and
// through this one, side by side.
func BenchmarkAccessLine(b *testing.B) {
	for _, c := range []struct {
		name string
		h    slog.Handler
	}{
		{"slog", slog.NewTextHandler(io.Discard, nil)},
		{"textlog", New(io.Discard, nil)},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
				r.AddAttrs(slog.String("request_id", "0123456789abcdef"), slog.String("method", "GET"),
					slog.String("path", "/api/me"), slog.Int("status", 200), slog.Int("bytes", 412),
					slog.Float64("duration_ms", 0.183), slog.String("remote", "127.0.0.1"))
				c.h.Handle(ctx, r)
			}
		})
	}
}

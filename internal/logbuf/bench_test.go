package logbuf

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkAccessLine is one access log line as the server writes it, to a
// file: one write per line (direct) against lines gathered (batched).
func BenchmarkAccessLine(b *testing.B) {
	for _, c := range []struct {
		name string
		wrap func(io.Writer) (io.Writer, func())
	}{
		{"direct", func(w io.Writer) (io.Writer, func()) { return w, func() {} }},
		{"batched", func(w io.Writer) (io.Writer, func()) {
			l := New(w, 50*time.Millisecond, 32<<10)
			return l, func() { l.Close() }
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			f, err := os.Create(filepath.Join(b.TempDir(), "log"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			w, done := c.wrap(f)
			defer done()
			log := slog.New(slog.NewTextHandler(w, nil))
			ctx := context.Background()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					log.LogAttrs(ctx, slog.LevelInfo, "request", slog.String("request_id", "0123456789abcdef"),
						slog.String("method", "GET"), slog.String("path", "/api/me"), slog.Int("status", 200),
						slog.Int("bytes", 412), slog.Float64("duration_ms", 0.183), slog.String("remote", "127.0.0.1"))
				}
			})
		})
	}
}

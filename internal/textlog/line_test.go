package textlog

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// TestLineSameAsHandle writes records through Line and through Handle and
// slog's own handler, and fails unless all three wrote the same bytes:
// every quoting rule in keys, values and the message, numbers at their
// edges, levels, times in several zones (the kept second among them) and
// a zero time.
func TestLineSameAsHandle(t *testing.T) {
	ctx := context.Background()
	zones := []*time.Location{time.UTC, time.FixedZone("x", 5*3600+1800), time.FixedZone("y", -8*3600)}
	rng := rand.New(rand.NewPCG(35, 35))
	for i := range 2000 {
		at := time.Date(2026, 11, 28, 7, 0, i%3, rng.IntN(1e9), zones[i%len(zones)])
		if i%97 == 0 {
			at = time.Time{}
		}
		level := []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelInfo + 2}[i%5]
		msg := strs[rng.IntN(len(strs))]
		s1, s2 := strs[rng.IntN(len(strs))], strs[rng.IntN(len(strs))]
		n := []int{0, -1, 200, math.MaxInt64, math.MinInt64, rng.Int()}[i%6]
		f := []float64{0, 0.183, 1e21, 1e-7, math.NaN(), math.Inf(1), rng.Float64() * 1000}[i%7]

		var line, handled, want bytes.Buffer
		l := New(&line, slog.LevelDebug).Line(at, level, msg)
		l.String(NewKey(s1), s2)
		l.Int(NewKey("status"), n)
		l.Float64(NewKey("duration_ms"), f)
		l.String(NewKey("remote"), s1)
		if err := l.End(); err != nil {
			t.Fatal(err)
		}
		r := slog.NewRecord(at, level, msg, 0)
		r.AddAttrs(slog.String(s1, s2), slog.Int("status", n), slog.Float64("duration_ms", f), slog.String("remote", s1))
		if err := New(&handled, slog.LevelDebug).Handle(ctx, r.Clone()); err != nil {
			t.Fatal(err)
		}
		if err := slog.NewTextHandler(&want, &slog.HandlerOptions{Level: slog.LevelDebug}).Handle(ctx, r.Clone()); err != nil {
			t.Fatal(err)
		}
		if line.String() != want.String() || handled.String() != want.String() {
			t.Fatalf("Line wrote\n%q\nHandle\n%q\nslog\n%q", line.String(), handled.String(), want.String())
		}
	}
}

// TestLineAndHandleStayWhole writes lines from eight goroutines, Handle's records
// among them, and checks every line came out whole: a Line's buffer is
// its own until End, and given back only after the write.
func TestLineAndHandleStayWhole(t *testing.T) {
	var out bytes.Buffer
	h := New(&out, slog.LevelInfo)
	at := time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				if g%2 == 0 {
					l := h.Line(at, slog.LevelInfo, "request")
					l.Int(NewKey("g"), g)
					l.Int(NewKey("i"), i)
					l.End()
					continue
				}
				r := slog.NewRecord(at, slog.LevelInfo, "request", 0)
				r.AddAttrs(slog.Int("g", g), slog.Int("i", i))
				h.Handle(context.Background(), r)
			}
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, line := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
		var g, i int
		if _, err := fmtSscanf(string(line), &g, &i); err != nil {
			t.Fatalf("torn line %q: %v", line, err)
		}
		seen[string(line)] = true
	}
	if len(seen) != 8*500 {
		t.Fatalf("%d distinct lines, want %d", len(seen), 8*500)
	}
}

// fmtSscanf reads a TestLineAndHandleStayWhole line's g and i.
func fmtSscanf(line string, g, i *int) (int, error) {
	return fmt.Sscanf(line, "time=2026-11-28T07:00:00.000Z level=INFO msg=request g=%d i=%d", g, i)
}

// TestMillisIsFloat64s compares Millis with slog's own handler writing
// slog.Float64(key, float64(us)/1000): every microsecond count below 300
// ms, random ones up to past the fast path's end, its edges and negative
// counts.
func TestMillisIsFloat64s(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(35, 36))
	edges := []int64{0, 1, 10, 100, 999, 1000, 1001, 999_999_999, 1e9, 1e9 + 1, 1e12 + 7, -1, -1500, math.MaxInt64, math.MinInt64}
	key := NewKey("duration_ms")
	var line, want bytes.Buffer
	check := func(us int64) {
		line.Reset()
		want.Reset()
		l := New(&line, slog.LevelInfo).Line(time.Time{}, slog.LevelInfo, "m")
		l.Millis(key, us)
		if err := l.End(); err != nil {
			t.Fatal(err)
		}
		r := slog.NewRecord(time.Time{}, slog.LevelInfo, "m", 0)
		r.AddAttrs(slog.Float64("duration_ms", float64(us)/1000))
		if err := slog.NewTextHandler(&want, nil).Handle(ctx, r); err != nil {
			t.Fatal(err)
		}
		if line.String() != want.String() {
			t.Fatalf("Millis(%d) wrote %q, slog %q", us, line.String(), want.String())
		}
	}
	for us := range int64(300_000) {
		check(us)
	}
	for range 200_000 {
		check(rng.Int64N(2e9))
	}
	for _, us := range edges {
		check(us)
	}
}

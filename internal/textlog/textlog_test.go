package textlog

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

// same logs r through the handler and through slog.TextHandler and fails
// unless the two wrote the same bytes.
func same(t *testing.T, r slog.Record) {
	t.Helper()
	var fast, want bytes.Buffer
	ctx := context.Background()
	if err := New(&fast, slog.LevelDebug).Handle(ctx, r.Clone()); err != nil {
		t.Fatal(err)
	}
	if err := slog.NewTextHandler(&want, &slog.HandlerOptions{Level: slog.LevelDebug}).Handle(ctx, r.Clone()); err != nil {
		t.Fatal(err)
	}
	if fast.String() != want.String() {
		t.Fatalf("wrote\n%q\nslog writes\n%q", fast.String(), want.String())
	}
}

// strs are strings on both sides of every quoting rule of slog's text
// format.
var strs = []string{
	"", "GET", "/api/me", "127.0.0.1", "::1", "a b", "a=b", `say "hi"`, `back\slash`, "tab\there",
	"line\nbreak", "\x00", "\x7f", "café", "日本語", "\u00a0nbsp", "\u2028", "\xff\xfe", "e\u0301",
	"emoji 🙂", "🙂", "-", "=", `"`, "\\", "0.5", "ümlaut=x", strings.Repeat("long", 300),
}

func TestSameAsSlog(t *testing.T) {
	at := time.Date(2026, 11, 27, 9, 5, 3, 999_999_999, time.UTC)
	// The access log's line.
	r := slog.NewRecord(at, slog.LevelInfo, "request", 0)
	r.AddAttrs(slog.String("request_id", "0123456789abcdef"), slog.String("method", "GET"),
		slog.String("path", "/api/me"), slog.Int("status", 200), slog.Int("bytes", 412),
		slog.Float64("duration_ms", 0.183), slog.String("remote", "127.0.0.1"))
	same(t, r)

	// Every quoting rule, in keys, values and the message.
	for _, s := range strs {
		r := slog.NewRecord(at, slog.LevelWarn, s, 0)
		r.AddAttrs(slog.String(s, s), slog.String("k", s))
		same(t, r)
	}
	// Every kind the fast path takes, at its edges; levels; times.
	for _, a := range []slog.Attr{
		slog.Int64("i", math.MinInt64), slog.Int64("i", math.MaxInt64), slog.Uint64("u", math.MaxUint64),
		slog.Float64("f", 0), slog.Float64("f", math.Copysign(0, -1)), slog.Float64("f", 1e21), slog.Float64("f", 1e-7),
		slog.Float64("f", math.NaN()), slog.Float64("f", math.Inf(-1)), slog.Float64("f", 123456.789),
		slog.Bool("b", true), slog.Bool("b", false), slog.Duration("d", 0), slog.Duration("d", 1500*time.Microsecond),
		slog.Duration("d", -time.Hour), slog.Int("", 1),
	} {
		r := slog.NewRecord(at, slog.LevelError, "m", 0)
		r.AddAttrs(a)
		same(t, r)
	}
	for _, l := range []slog.Level{slog.LevelDebug, slog.LevelDebug - 3, slog.LevelInfo + 2, slog.LevelError + 8} {
		same(t, slog.NewRecord(at, l, "m", 0))
	}
	for _, tm := range []time.Time{
		{}, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 999_500_000, time.UTC),
		time.Date(1999, 12, 31, 23, 59, 59, 1_000_000, time.FixedZone("x", -(5*3600+30*60))), time.Now(),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		same(t, slog.NewRecord(tm, slog.LevelInfo, "m", 0))
	}
	// What the fast path leaves to slog: groups, errors, values of any kind,
	// times as attributes.
	r = slog.NewRecord(at, slog.LevelInfo, "m", 0)
	r.AddAttrs(slog.Group("g", slog.Int("a", 1)), slog.Any("err", errors.New("x y")), slog.Time("t", at),
		slog.Any("n", nil), slog.Any("b", []byte("hi")))
	same(t, r)

	// Random records of every kind.
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return strs[rng.IntN(len(strs))] }
	for range 2000 {
		r := slog.NewRecord(at.Add(time.Duration(rng.Int64N(1e15))), slog.Level(rng.IntN(20)-8), pick(), 0)
		for range rng.IntN(8) {
			switch rng.IntN(6) {
			case 0:
				r.AddAttrs(slog.String(pick(), pick()))
			case 1:
				r.AddAttrs(slog.Int64(pick(), rng.Int64()-rng.Int64()))
			case 2:
				r.AddAttrs(slog.Uint64(pick(), rng.Uint64()))
			case 3:
				r.AddAttrs(slog.Float64(pick(), rng.NormFloat64()*math.Pow(10, float64(rng.IntN(40)-20))))
			case 4:
				r.AddAttrs(slog.Bool(pick(), rng.IntN(2) == 0))
			case 5:
				r.AddAttrs(slog.Duration(pick(), time.Duration(rng.Int64()-rng.Int64())))
			}
		}
		same(t, r)
	}
}

// FuzzSameAsSlog: any message, key and string value is written as slog
// writes it.
func FuzzSameAsSlog(f *testing.F) {
	for _, s := range strs {
		f.Add(s, s, s, int64(len(s)))
	}
	f.Fuzz(func(t *testing.T, msg, key, val string, n int64) {
		r := slog.NewRecord(time.Unix(0, n), slog.LevelInfo, msg, 0)
		r.AddAttrs(slog.String(key, val), slog.Int64(val, n), slog.Float64(key, float64(n)/7))
		same(t, r)
	})
}

// TestLevelsAndDerivedLoggers: records under the level are not enabled,
// and a logger with attributes or a group of its own writes what slog's
// would.
func TestLevelsAndDerivedLoggers(t *testing.T) {
	var fast, want bytes.Buffer
	opts := &slog.HandlerOptions{Level: slog.LevelWarn}
	lf := slog.New(New(&fast, slog.LevelWarn))
	lw := slog.New(slog.NewTextHandler(&want, opts))
	for _, l := range []*slog.Logger{lf, lw} {
		l.Info("not written")
		l.With("request_id", "abc").Warn("with", "n", 1)
		l.WithGroup("g").Error("grouped", "n", 2)
	}
	strip := func(s string) string { // the times differ by the call
		var out []string
		for _, line := range strings.Split(s, "\n") {
			_, rest, _ := strings.Cut(line, " ")
			out = append(out, rest)
		}
		return strings.Join(out, "\n")
	}
	if strip(fast.String()) != strip(want.String()) || !strings.Contains(fast.String(), "request_id=abc") {
		t.Fatalf("wrote\n%s\nslog writes\n%s", fast.String(), want.String())
	}
	if New(&fast, nil).Enabled(context.Background(), slog.LevelDebug) {
		t.Fatal("no level given: debug is enabled; want info, as slog's default")
	}
}

// TestLinesStayWhole: lines logged at once by many goroutines, on the fast
// path and on slog's, are never interleaved.
func TestLinesStayWhole(t *testing.T) {
	var buf bytes.Buffer // not safe for concurrent use: the handler's lock is
	l := slog.New(New(&buf, slog.LevelInfo))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				if i%2 == 0 {
					l.Info("request", "g", g, "i", i, "path", strings.Repeat("p", 100))
				} else {
					l.With("g", g).Info("request", "i", i, "path", strings.Repeat("p", 100))
				}
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 1600 {
		t.Fatalf("%d lines, want 1600", len(lines))
	}
	for _, line := range lines {
		if !strings.HasPrefix(line, "time=") || !strings.HasSuffix(line, strings.Repeat("p", 100)) {
			t.Fatalf("a broken line: %q", line)
		}
	}
}

// TestKeptSecondNeverStale: times of other seconds and other zones, in
// turn and from several goroutines at once, each get their own second and
// zone, never the one kept from the line before.
func TestKeptSecondNeverStale(t *testing.T) {
	locs := []*time.Location{time.UTC, time.Local, time.FixedZone("a", 5*3600+30*60), time.FixedZone("b", -3600)}
	if ny, err := time.LoadLocation("America/New_York"); err == nil {
		locs = append(locs, ny)
	}
	base := time.Date(2026, 3, 8, 6, 59, 58, 0, time.UTC) // New York's clocks move at 07:00 UTC
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for range 20000 {
				tm := base.Add(time.Duration(rng.Int64N(int64(4 * time.Second)))).In(locs[rng.IntN(len(locs))])
				got := string(appendRFC3339Millis(nil, tm))
				if want := string(appendRFC3339MillisSlow(nil, tm)); got != want {
					t.Errorf("%v: %s, want %s", tm, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

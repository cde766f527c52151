package logbuf

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sendlater/sendlater/internal/textlog"
)

// sink is a log destination that records each write it gets.
type sink struct {
	mu     sync.Mutex
	writes []string
}

func (s *sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = append(s.writes, string(p))
	return len(p), nil
}

func (s *sink) got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.writes...)
}

func TestLinesAreGatheredAndWrittenTogetherInOrder(t *testing.T) {
	s := &sink{}
	w := New(s, 30*time.Millisecond, 1<<20)
	for _, l := range []string{"a\n", "b\n", "c\n"} {
		w.Write([]byte(l))
	}
	if got := s.got(); len(got) != 0 {
		t.Fatalf("written at once: %q", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(s.got()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := s.got(); len(got) != 1 || got[0] != "a\nb\nc\n" {
		t.Fatalf("writes %q, want one write of the three lines in order", got)
	}
}

func TestAFullBatchIsWrittenAtOnce(t *testing.T) {
	s := &sink{}
	w := New(s, time.Hour, 8)
	w.Write([]byte("12345\n"))
	w.Write([]byte("67890\n"))
	if got := s.got(); len(got) != 1 || got[0] != "12345\n67890\n" {
		t.Fatalf("writes %q, want the batch once it reached its limit", got)
	}
	w.Write([]byte("x\n"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("after\n"))
	if got := s.got(); strings.Join(got, "|") != "12345\n67890\n|x\n|after\n" {
		t.Fatalf("writes %q, want the rest at Close and later lines through at once", got)
	}
}

func TestWarningsAreNotHeld(t *testing.T) {
	s := &sink{}
	w := New(s, time.Hour, 1<<20)
	log := slog.New(Handler(slog.NewTextHandler(w, nil), w).WithAttrs([]slog.Attr{slog.String("p", "1")}).WithGroup("g"))
	log.Info("request")
	if got := s.got(); len(got) != 0 {
		t.Fatalf("an info line was written at once: %q", got)
	}
	log.Warn("store unreachable")
	got := s.got()
	if len(got) != 1 || !strings.Contains(got[0], "msg=request") || !strings.Contains(got[0], "msg=\"store unreachable\"") ||
		strings.Index(got[0], "request") > strings.Index(got[0], "unreachable") {
		t.Fatalf("writes %q, want the info line, then the warning, at once", got)
	}
}

func TestConcurrentLinesStayWhole(t *testing.T) {
	var out bytes.Buffer
	var mu sync.Mutex
	w := New(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) }), time.Millisecond, 256)
	log := slog.New(slog.NewTextHandler(w, nil))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				log.Info("request", "worker", g)
			}
		}()
	}
	wg.Wait()
	w.Close()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 1600 {
		t.Fatalf("%d lines, want 1600", len(lines))
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "time=") || !strings.Contains(l, " msg=request worker=") {
			t.Fatalf("a line was cut: %q", l)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// serialSink records writes and fails the test if two overlap.
type serialSink struct {
	t        *testing.T
	inflight atomic.Int32
	sink
}

func (s *serialSink) Write(p []byte) (int, error) {
	if s.inflight.Add(1) != 1 {
		s.t.Error("two writes at once")
	}
	defer s.inflight.Add(-1)
	time.Sleep(50 * time.Microsecond) // a slow destination: gathering goes on meanwhile
	return s.sink.Write(p)
}

// Lines logged while a batch is being written (outside the lock) gather
// in the other buffer: every line still comes out whole, once, in each
// writer's order, with the destination written by one batch at a time,
// also across Close.
func TestBatchesWrittenOutsideTheLockStayWholeAndInOrder(t *testing.T) {
	s := &serialSink{t: t}
	w := New(s, time.Millisecond, 256)
	const writers, lines = 8, 2000
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range lines {
				w.Write(fmt.Appendf(nil, "g%d n%d\n", g, n))
				if n == lines/2 && g == 0 {
					w.Flush()
				}
			}
		}()
	}
	wg.Wait()
	w.Write([]byte("last\n"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("after\n"))
	all := strings.Join(s.got(), "")
	got := strings.Split(strings.TrimSuffix(all, "\n"), "\n")
	if len(got) != writers*lines+2 || got[len(got)-2] != "last" || got[len(got)-1] != "after" {
		t.Fatalf("%d lines, ending %q, want %d ending last, after", len(got), got[len(got)-2:], writers*lines+2)
	}
	next := make([]int, writers)
	for _, l := range got[:len(got)-2] {
		var g, n int
		if _, err := fmt.Sscanf(l, "g%d n%d", &g, &n); err != nil || n != next[g] {
			t.Fatalf("line %q out of order or broken (want n%d)", l, next[g])
		}
		next[g]++
	}
}

// TestTextlogWithoutItsLockStaysWhole: textlog over a Writer takes no lock
// of its own (WritesWhole); its one-pass lines (textlog.Line) and slog's
// records (a logger with attributes of its own goes to slog's handler)
// from eight goroutines still come out whole, each once, in each
// goroutine's order, through batches small enough to be written while
// lines gather.
func TestTextlogWithoutItsLockStaysWhole(t *testing.T) {
	s := &serialSink{t: t}
	w := New(s, time.Millisecond, 512)
	h := textlog.New(w, slog.LevelInfo)
	at := time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)
	kg, ki := textlog.NewKey("g"), textlog.NewKey("i")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			log := slog.New(h).With("with", "x")
			for i := range 300 {
				if i%2 == 0 {
					l := h.Line(at, slog.LevelInfo, "request")
					l.Int(kg, g)
					l.Int(ki, i)
					l.End()
				} else {
					log.Info("request", "g", g, "i", i)
				}
			}
		})
	}
	wg.Wait()
	w.Close()
	next := map[int]int{}
	for line := range strings.Lines(strings.Join(s.got(), "")) {
		var g, i int
		rest := line[strings.Index(line, " g=")+1:]
		if _, err := fmt.Sscanf(rest, "g=%d i=%d", &g, &i); err != nil || !strings.HasPrefix(line, "time=") || !strings.HasSuffix(line, "\n") {
			t.Fatalf("a line was cut: %q", line)
		}
		if i != next[g] {
			t.Fatalf("worker %d: line %d after %d", g, i, next[g]-1)
		}
		next[g]++
	}
	for g := range 8 {
		if next[g] != 300 {
			t.Fatalf("worker %d: %d lines, want 300", g, next[g])
		}
	}
}

package stats_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sendlater/sendlater/internal/stats"
)

func sample(n int, shift time.Duration, r *rand.Rand) []time.Duration {
	s := make([]time.Duration, n)
	for i := range s {
		// A long-tailed sample, like request times on a loaded machine.
		s[i] = time.Duration(r.ExpFloat64()*float64(time.Millisecond)) + time.Millisecond + shift
	}
	return s
}

func TestKSTellsAShiftFromNoise(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	same := stats.KSTest(sample(1000, 0, r), sample(1000, 0, r))
	if same.P < 0.01 {
		t.Fatalf("one distribution: %+v", same)
	}
	// An fsync's worth (0.2 ms) on a third of the mean.
	shifted := stats.KSTest(sample(1000, 0, r), sample(1000, 200*time.Microsecond, r))
	if shifted.P > 1e-6 || shifted.D < 0.1 {
		t.Fatalf("shifted: %+v", shifted)
	}
	// Identical samples: D 0, P 1.
	a := sample(200, 0, r)
	if ks := stats.KSTest(a, a); ks.D != 0 || ks.P != 1 {
		t.Fatalf("identical: %+v", ks)
	}
}

func TestKSKnownValue(t *testing.T) {
	// D of two disjoint samples is 1.
	a := []time.Duration{1, 2, 3, 4}
	b := []time.Duration{5, 6, 7, 8}
	if ks := stats.KSTest(a, b); ks.D != 1 {
		t.Fatalf("disjoint: %+v", ks)
	}
	// Interleaved halves: D = 1/4 (after 1 and 2: 2/4 against 1/4).
	if ks := stats.KSTest([]time.Duration{1, 2, 5, 6}, []time.Duration{2, 3, 6, 7}); ks.D != 0.25 {
		t.Fatalf("interleaved: %+v", ks)
	}
}

func TestQuantile(t *testing.T) {
	s := []time.Duration{5, 1, 4, 2, 3}
	if q := stats.Quantile(s, 0.5); q != 3 {
		t.Fatalf("median %v", q)
	}
	if q := stats.Quantile(s, 0.95); q != 5 {
		t.Fatalf("p95 %v", q)
	}
}

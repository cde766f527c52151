// Package stats holds the statistics the timing tests and the load
// generator use to compare two samples of durations on a noisy machine.
package stats

import (
	"math"
	"slices"
	"time"
)

// KS is the two-sample Kolmogorov–Smirnov test of samples a and b: D is the
// largest distance between their empirical distribution functions, P the
// probability of a distance at least D if both came from one distribution
// (the asymptotic Kolmogorov distribution, good for samples of a hundred
// or more). It compares whole distributions and depends on ranks only, so
// a slow outlier moves it no more than any other sample: with the two kinds
// of request interleaved at random, a loaded machine slows both alike and
// leaves P uniform, while a difference of one fsync in a thousand requests
// drives it to zero.
type KS struct {
	D float64
	P float64
}

// KSTest compares a and b.
func KSTest(a, b []time.Duration) KS {
	x, y := slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	n, m := float64(len(x)), float64(len(y))
	var d float64
	for i, j := 0, 0; i < len(x) && j < len(y); {
		v := min(x[i], y[j])
		for i < len(x) && x[i] == v {
			i++
		}
		for j < len(y) && y[j] == v {
			j++
		}
		d = max(d, math.Abs(float64(i)/n-float64(j)/m))
	}
	ne := n * m / (n + m)
	return KS{D: d, P: kolmogorovQ((math.Sqrt(ne) + 0.12 + 0.11/math.Sqrt(ne)) * d)}
}

// kolmogorovQ is P(K > lambda) for the Kolmogorov distribution.
func kolmogorovQ(lambda float64) float64 {
	if lambda < 0.2 {
		return 1
	}
	var sum float64
	sign := 1.0
	for j := 1; j <= 100; j++ {
		term := sign * math.Exp(-2*float64(j*j)*lambda*lambda)
		sum += term
		if math.Abs(term) < 1e-12 {
			break
		}
		sign = -sign
	}
	return math.Min(math.Max(2*sum, 0), 1)
}

// Quantile is the q-quantile (0..1) of a sample, by nearest rank.
func Quantile(s []time.Duration, q float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	x := slices.Sorted(slices.Values(s))
	i := int(math.Ceil(q*float64(len(x)))) - 1
	return x[min(max(i, 0), len(x)-1)]
}

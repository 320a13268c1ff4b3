// Package workload implements the benchmark workloads of
// docs/workloads.md exactly (generator, draw order, operation order,
// checksum and result lines), generic over the timer implementation, so that
// the wheel and the heap baselines run the very same operations; and the
// clock workloads (CLOCK-NEW, CLOCK-STEP, defined there as this project's
// additions), generic over the simulated clock; and the simulation
// workloads (MM1, MM10, RPC, this project's additions too), generic over
// the event engine (Sim). It serves twsim and the bench module; it is no
// part of the library's API.
package workload

import "math"

// SplitMix64 is the workloads' random generator; all arithmetic wraps.
type SplitMix64 struct{ s uint64 }

// NewSplitMix64 returns a generator seeded with seed.
func NewSplitMix64(seed uint64) *SplitMix64 { return &SplitMix64{s: seed} }

// Next returns the next 64 random bits.
func (r *SplitMix64) Next() uint64 {
	r.s += 0x9E3779B97F4A7C15
	z := r.s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// R53 returns 53 random bits.
func (r *SplitMix64) R53() uint64 { return r.Next() >> 11 }

// Unif returns a float64 in [0, 1), exactly r53 * 2^-53.
func (r *SplitMix64) Unif() float64 { return float64(r.R53()) * 0x1p-53 }

// UniformInt returns an integer in [lo, hi] from one r53 draw.
func (r *SplitMix64) UniformInt(lo, hi int64) int64 {
	return lo + int64(r.R53()%uint64(hi-lo+1))
}

// ExpSample returns trunc(mean * -DetLog(1 - Unif())) from one r53 draw.
func (r *SplitMix64) ExpSample(mean float64) int64 {
	x := 1.0 - r.Unif()
	return int64(float64(mean * -DetLog(x)))
}

const (
	sqrtHalf = 0x1.6a09e667f3bcdp-1
	ln2      = 0x1.62e42fefa39efp-1
)

// DetLog is the workloads' deterministic ln(x) for x in (0, 1]: IEEE double
// + - * / only, each rounded, with no fused multiply-add (every product is
// converted with float64(...) before it is added, which forbids fusing).
func DetLog(x float64) float64 {
	m, e := math.Frexp(x)
	if m < sqrtHalf {
		m = m + m
		e = e - 1
	}
	f := m - 1.0
	t := f + 2.0
	s := f / t
	z := float64(s * s)
	p := 1.0 / 21.0
	for k := 9; k >= 0; k-- {
		p = float64(p*z) + 1.0/float64(2*k+1)
	}
	a := float64(float64(e) * ln2)
	b := float64(2.0 * s)
	c := float64(b * p)
	return a + c
}

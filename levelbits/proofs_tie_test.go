package levelbits_test

// The proofs in proofs/levels.mlw assume of every level bits_ok: b >= 1
// (LB2) and s + b <= 62 (LB3, with s the bits of the levels below). This
// test checks that New accepts exactly the layouts that satisfy it, so the
// assumption covers every layout a wheel can have.

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gotimingwheel/timingwheel/levelbits"
)

// layoutOK is the proofs' assumption for every level, in order.
func layoutOK(bits []int) bool {
	if len(bits) == 0 {
		return false
	}
	s := 0
	for _, b := range bits {
		if b < 1 || s+b > 62 {
			return false
		}
		s += b
	}
	return true
}

func TestProofTieLayouts(t *testing.T) {
	ones := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = 1
		}
		return out
	}
	cases := [][]int{{}, {0}, {-1}, {1}, {62}, {63}, {61, 1}, {61, 2}, {1, 61}, {1, 62},
		{31, 31}, {31, 32}, ones(62), ones(63), {11, 10, 10, 10, 10, 10, 1}, {11, 10, 10, 10, 10, 10, 2},
		{math.MaxInt, math.MaxInt}, {5, 0, 5}}
	r := rand.New(rand.NewPCG(34, 7))
	for range 300 {
		n := 1 + r.IntN(10)
		bits := make([]int, n)
		for i := range bits {
			bits[i] = r.IntN(16) - 1
		}
		cases = append(cases, bits)
	}
	for _, bits := range cases {
		_, err := levelbits.New(bits...)
		if ok := layoutOK(bits); ok != (err == nil) {
			t.Fatalf("New(%v): %v, want accepted %v", bits, err, ok)
		}
	}
}

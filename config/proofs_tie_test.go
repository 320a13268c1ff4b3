package config_test

// The tie between package config and proofs/time.mlw (module FloorPow2):
// FloorPow2 computes min(bits.Len64(d) - 1, 61), and the proved facts
// about that formula (CF1, a power of two <= d, the largest such unless
// capped) hold of the Go function, checked here in exact arithmetic on
// every power of two and its neighbours, the extremes and random values.

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/config"
)

// lenRef is bits.Len64 by its definition (time.mlw's is_len64): the number
// of halvings that take x to 0.
func lenRef(x uint64) int {
	n := 0
	for ; x != 0; x >>= 1 {
		n++
	}
	return n
}

func TestProofTieFloorPow2(t *testing.T) {
	ds := []time.Duration{1, 2, 3, math.MaxInt64, math.MaxInt64 - 1}
	for e := 0; e < 63; e++ {
		p := time.Duration(1) << uint(e)
		ds = append(ds, p-1, p, p+1)
	}
	r := rand.New(rand.NewPCG(34, 6))
	for range 200 {
		ds = append(ds, time.Duration(r.Int64N(math.MaxInt64)+1), time.Duration(r.Int64N(1<<uint(r.IntN(63)))+1))
	}
	for _, d := range ds {
		if d <= 0 {
			continue
		}
		p, err := config.FloorPow2(d)
		if err != nil {
			t.Fatalf("FloorPow2(%d): %v", int64(d), err)
		}
		// The formula the proof models.
		if want := config.AlarmPrecision(min(lenRef(uint64(d))-1, config.MaxPrecisionLog2)); p != want {
			t.Fatalf("FloorPow2(%d) = %d, want min(Len64 - 1, 61) = %d", int64(d), p, want)
		}
		// The proved facts, in exact arithmetic.
		bd := big.NewInt(int64(d))
		pow := new(big.Int).Lsh(big.NewInt(1), uint(p))
		next := new(big.Int).Lsh(big.NewInt(1), uint(p)+1)
		if p < 0 || p > config.MaxPrecisionLog2 || pow.Cmp(bd) > 0 ||
			p < config.MaxPrecisionLog2 && bd.Cmp(next) >= 0 ||
			p == config.MaxPrecisionLog2 && d < 1<<61 {
			t.Fatalf("FloorPow2(%d) = 2^%d: not the largest power of two <= d capped at 2^61", int64(d), p)
		}
		if p.Duration() != time.Duration(pow.Int64()) {
			t.Fatalf("precision 2^%d: Duration %d", p, p.Duration())
		}
	}
	for _, d := range []time.Duration{0, -1, math.MinInt64} {
		if _, err := config.FloorPow2(d); !errors.Is(err, config.ErrNonPositivePrecision) {
			t.Fatalf("FloorPow2(%d): %v, want ErrNonPositivePrecision", int64(d), err)
		}
	}
}

// TestProofTieCF1: the proofs assume CF1, 0 <= A <= 61, of every wheel;
// New accepts exactly those exponents.
func TestProofTieCF1(t *testing.T) {
	for a := -2; a <= 64; a++ {
		_, err := config.New(config.AlarmPrecision(a))
		if ok := a >= 0 && a <= 61; ok != (err == nil) {
			t.Fatalf("New(2^%d ns): %v, want accepted %v", a, err, ok)
		}
	}
}

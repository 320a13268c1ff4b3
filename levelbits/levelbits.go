// Package levelbits describes the levels of a timing wheel: how many key bits
// each level distinguishes, finest level first.
//
// A LevelBits value [b0 b1 ... bn] gives level i 2^bi slots. Level 0 tells apart
// single keys; each higher level tells apart groups as wide as all the lower
// levels together. The sum of the bits is the number of key bits the wheel can
// hold at once, at most MaxNumBits.
//
// Invariant LB1: len(bits) >= 1; LB2: every bi > 0; LB3: sum(bi) <= MaxNumBits.
package levelbits

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gotimingwheel/timingwheel/invariant"
)

// MaxNumBits is the most key bits the levels may hold in total: keys and times
// are non-negative int64 values below 2^62.
const MaxNumBits = 62

// Errors returned by New and NewExtended, usable with errors.Is.
var (
	ErrNoLevels        = errors.New("levelbits: no levels")
	ErrNonPositiveBits = errors.New("levelbits: level bits must be positive")
	ErrTooManyBits     = errors.New("levelbits: too many bits in total")
)

// LevelBits is an immutable list of per-level bit counts. The zero value has no
// levels and is not valid; make one with New, NewExtended or Default.
type LevelBits struct {
	bits []int
}

// New returns the level bits [bits...]. It fails with ErrNoLevels when bits is
// empty, ErrNonPositiveBits when some bit count is <= 0 (checked first), and
// ErrTooManyBits when the sum exceeds MaxNumBits.
func New(bits ...int) (LevelBits, error) {
	if len(bits) == 0 {
		return LevelBits{}, fmt.Errorf("%w: got [], want at least one level", ErrNoLevels)
	}
	for i, b := range bits {
		if b <= 0 {
			return LevelBits{}, fmt.Errorf("%w: %v has %d at level %d, want every level >= 1",
				ErrNonPositiveBits, bits, b, i)
		}
	}
	sum := 0
	for _, b := range bits {
		if b > MaxNumBits || sum+b > MaxNumBits {
			sum = MaxNumBits + 1 // saturate: absurd inputs must not overflow
			break
		}
		sum += b
	}
	if sum > MaxNumBits {
		return LevelBits{}, fmt.Errorf("%w: %v sums to more than %d",
			ErrTooManyBits, bits, MaxNumBits)
	}
	return LevelBits{bits: append([]int(nil), bits...)}, nil
}

// NewExtended is New followed by appending levels of 1 bit until the sum is
// MaxNumBits, so that the levels reach every key.
func NewExtended(bits ...int) (LevelBits, error) {
	lb, err := New(bits...)
	if err != nil {
		return lb, err
	}
	for n := lb.NumBits(); n < MaxNumBits; n++ {
		lb.bits = append(lb.bits, 1)
	}
	return lb, nil
}

// Default returns [11 10 10 10 10 10 1]: 62 bits, 2^11 slots at level 0.
func Default() LevelBits {
	return LevelBits{bits: []int{11, 10, 10, 10, 10, 10, 1}}
}

// Bits returns a copy of the per-level bit counts, finest level first.
func (lb LevelBits) Bits() []int { return append([]int(nil), lb.bits...) }

// Len returns the number of levels.
func (lb LevelBits) Len() int { return len(lb.bits) }

// At returns the bits of level i. It panics if i is out of range.
func (lb LevelBits) At(i int) int { return lb.bits[i] }

// NumBits returns the sum of the bits of all levels.
func (lb LevelBits) NumBits() int {
	n := 0
	for _, b := range lb.bits {
		n += b
	}
	return n
}

// Trim returns level bits that sum to at most maxNumBits: levels are kept in
// order, the first level that would overflow is cut down to the bits that
// remain, and the levels after it are dropped. If lb already fits it is
// returned unchanged. A maxNumBits <= 0 yields the zero LevelBits, which is
// invalid.
func (lb LevelBits) Trim(maxNumBits int) LevelBits {
	if lb.NumBits() <= maxNumBits {
		return lb
	}
	var out []int
	remaining := maxNumBits
	for _, b := range lb.bits {
		if remaining <= 0 {
			break
		}
		if b >= remaining {
			out = append(out, remaining)
			break
		}
		out = append(out, b)
		remaining -= b
	}
	return LevelBits{bits: out}
}

// String formats lb as "[11 10 10 10 10 10 1]".
func (lb LevelBits) String() string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, b := range lb.bits {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(strconv.Itoa(b))
	}
	sb.WriteByte(']')
	return sb.String()
}

// Equal reports whether lb and other have the same levels.
func (lb LevelBits) Equal(other LevelBits) bool {
	if len(lb.bits) != len(other.bits) {
		return false
	}
	for i := range lb.bits {
		if lb.bits[i] != other.bits[i] {
			return false
		}
	}
	return true
}

// Invariant checks LB1 (at least one level), LB2 (every level has at least one
// bit) and LB3 (at most MaxNumBits in total), in that order. It returns nil or
// an *invariant.Violation naming the first one broken. docs/invariants.md
// states each and names the function that checks it (checkLB1 checks LB1).
func (lb LevelBits) Invariant() error {
	if err := lb.checkLB1(); err != nil {
		return err
	}
	if err := lb.checkLB2(); err != nil {
		return err
	}
	return lb.checkLB3()
}

// checkLB1: there is at least one level: len(bits) >= 1.
func (lb LevelBits) checkLB1() error {
	if len(lb.bits) == 0 {
		return invariant.Errorf("LB1", "no levels")
	}
	return nil
}

// checkLB2: every level has at least one bit: b_i >= 1 for every i.
func (lb LevelBits) checkLB2() error {
	for i, b := range lb.bits {
		if b <= 0 {
			return invariant.Errorf("LB2", "level %d has %d bits in %v", i, b, lb)
		}
	}
	return nil
}

// checkLB3: the levels hold at most MaxNumBits (62) bits: sum(b_i) <= 62.
func (lb LevelBits) checkLB3() error {
	if sum := lb.NumBits(); sum > MaxNumBits {
		return invariant.Errorf("LB3", "%v sums to %d > %d", lb, sum, MaxNumBits)
	}
	return nil
}

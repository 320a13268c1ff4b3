package harness

import (
	"encoding/binary"
	"math/rand"
	"slices"
	"sync"

	"pgregory.net/rapid"
)

// Source supplies the choices a generator makes. The same generators run on
// rapid (which shrinks failing cases), on gopter's random numbers and on raw
// bytes (for go test -fuzz), so all of them explore the same operations.
type Source interface {
	// Intn returns a value in [0, n); n >= 1.
	Intn(label string, n int) int
	// Int64Range returns a value in [lo, hi]; lo <= hi.
	Int64Range(label string, lo, hi int64) int64
	// Choose is Intn where first is the simplest value, the one a shrinker
	// should reach for: rapid draws 0 as first and shrinks towards it. The
	// other sources ignore first, so that a fuzz input keeps its meaning.
	Choose(label string, n, first int) int
}

// RapidSource draws the choices from rapid, labelled.
type RapidSource struct{ T *rapid.T }

// Intn implements Source.
func (s RapidSource) Intn(label string, n int) int { return intn(n).Draw(s.T, label) }

// Choose implements Source. rapid favours small draws and can make a draw
// that stays small cheaply smaller, while each draw of 2 or more that
// cannot shrink costs its shrinker hundreds of runs a round; so the value
// the failures found most need is 0.
func (s RapidSource) Choose(label string, n, first int) int { return (s.Intn(label, n) + first) % n }

// intns holds rapid's generators of [0, n), made once each.
var intns sync.Map

func intn(n int) *rapid.Generator[int] {
	if g, ok := intns.Load(n); ok {
		return g.(*rapid.Generator[int])
	}
	g, _ := intns.LoadOrStore(n, rapid.IntRange(0, n-1))
	return g.(*rapid.Generator[int])
}

// Int64Range implements Source. A range with negative and positive values
// is drawn as one number u >= 0 that counts 0, -1, 1, -2, 2, ... (and on
// along the longer side): rapid's signed draw flips a biased coin for the
// sign, a draw its shrinker cannot make small when the value is negative,
// which multiplies the time shrinking takes.
func (s RapidSource) Int64Range(label string, lo, hi int64) int64 {
	if lo >= 0 || hi <= 0 {
		return rapid.Int64Range(lo, hi).Draw(s.T, label)
	}
	neg, pos := uint64(-(lo+1))+1, uint64(hi)
	return zigzag(rapid.Uint64Range(0, neg+pos).Draw(s.T, label), neg, pos)
}

// zigzag maps u in [0, neg+pos] onto [-neg, pos]: 0, -1, 1, -2, 2, ... while
// both sides last, then on along the longer one.
func zigzag(u, neg, pos uint64) int64 {
	switch k := min(neg, pos); {
	case u > 2*k && pos > neg:
		return int64(u - k)
	case u > 2*k:
		return int64(-(u - k))
	case u%2 == 1:
		return int64(-((u + 1) / 2))
	}
	return int64(u / 2)
}

// RandSource draws the choices from a random generator (gopter's).
type RandSource struct{ R *rand.Rand }

// Intn implements Source.
func (s RandSource) Intn(_ string, n int) int { return s.R.Intn(n) }

// Choose implements Source.
func (s RandSource) Choose(label string, n, _ int) int { return s.Intn(label, n) }

// Int64Range implements Source.
func (s RandSource) Int64Range(_ string, lo, hi int64) int64 {
	span := uint64(hi - lo)
	if span == ^uint64(0) {
		return lo + int64(s.R.Uint64())
	}
	return lo + int64(s.R.Uint64()%(span+1))
}

// ByteSource reads choices from a fuzz input. A choice among at most 256
// values takes one byte; a wider one takes as many bytes as the width of the
// range needs, little-endian, reduced modulo the range. Once the input is
// used up every choice is the smallest value and Exhausted reports true.
type ByteSource struct {
	Data []byte
	pos  int
}

// Exhausted reports whether the input is used up.
func (s *ByteSource) Exhausted() bool { return s.pos >= len(s.Data) }

// Intn implements Source.
func (s *ByteSource) Intn(_ string, n int) int {
	if n <= 1 {
		return 0
	}
	return int(s.uniform(uint64(n-1)) % uint64(n))
}

// Choose implements Source.
func (s *ByteSource) Choose(label string, n, _ int) int { return s.Intn(label, n) }

// Int64Range implements Source.
func (s *ByteSource) Int64Range(_ string, lo, hi int64) int64 {
	return lo + int64(s.uniform(uint64(hi-lo))) // hi - lo fits: both are in [-2^62-1, 2^62]
}

// uniform reads a value in [0, span].
func (s *ByteSource) uniform(span uint64) uint64 {
	if span == 0 {
		return 0
	}
	n := 1
	for n < 8 && span>>(8*n) != 0 {
		n++
	}
	var buf [8]byte
	k := copy(buf[:n], s.Data[min(s.pos, len(s.Data)):])
	s.pos += k
	if k == 0 {
		s.pos = len(s.Data) + 1
	}
	v := binary.LittleEndian.Uint64(buf[:])
	if span == ^uint64(0) {
		return v
	}
	return v % (span + 1)
}

// weighted picks an index with probability proportional to its weight. Zero
// weights are never picked; at least one weight must be positive.
func weighted(src Source, label string, weights []int) int {
	if _, ok := src.(RapidSource); ok {
		return rapidWeighted(src, label, weights)
	}
	return pick(src.Intn(label, sum(weights)), weights)
}

// rapidWeighted is weighted for rapid, which favours small draws and
// shrinks a draw cheaply only to 0 or 1 (see Choose): a coin picks the
// heaviest index or one of the rest, among which the heaviest comes first.
// Both are then cheap to shrink to, and the two stay about as frequent as
// weighted makes them under rapid's bias (the heaviest, Add, about half of
// the time).
func rapidWeighted(src Source, label string, weights []int) int {
	top := slices.Index(weights, slices.Max(weights))
	rest := slices.Clone(weights)
	rest[top] = 0
	if sum(rest) == 0 || src.Intn(label, 2) == 0 {
		return top
	}
	second := slices.Index(rest, slices.Max(rest))
	r := src.Intn(label+"Rest", sum(rest))
	if r == 0 {
		return second
	}
	rest[second]--
	return pick(r-1, rest)
}

// pick returns the index whose share of [0, sum(weights)) holds r.
func pick(r int, weights []int) int {
	for i, w := range weights {
		if r < w {
			return i
		}
		r -= w
	}
	panic("proptest: weighted with no positive weight")
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

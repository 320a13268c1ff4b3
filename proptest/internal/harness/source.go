package harness

import (
	"encoding/binary"
	"math/rand"

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
}

// RapidSource draws the choices from rapid, labelled.
type RapidSource struct{ T *rapid.T }

// Intn implements Source.
func (s RapidSource) Intn(label string, n int) int { return rapid.IntRange(0, n-1).Draw(s.T, label) }

// Int64Range implements Source.
func (s RapidSource) Int64Range(label string, lo, hi int64) int64 {
	return rapid.Int64Range(lo, hi).Draw(s.T, label)
}

// RandSource draws the choices from a random generator (gopter's).
type RandSource struct{ R *rand.Rand }

// Intn implements Source.
func (s RandSource) Intn(_ string, n int) int { return s.R.Intn(n) }

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
	total := 0
	for _, w := range weights {
		total += w
	}
	r := src.Intn(label, total)
	for i, w := range weights {
		if r < w {
			return i
		}
		r -= w
	}
	panic("proptest: weighted with no positive weight")
}

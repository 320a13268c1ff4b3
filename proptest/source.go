package proptest

import (
	"encoding/binary"

	"pgregory.net/rapid"
)

// source supplies the choices a generator makes. The same generators run on
// rapid (which shrinks failing cases) and on raw bytes (for go test -fuzz), so
// a fuzz input and a rapid run explore the same operations.
type source interface {
	// intn returns a value in [0, n); n >= 1.
	intn(label string, n int) int
	// int64Range returns a value in [lo, hi]; lo <= hi.
	int64Range(label string, lo, hi int64) int64
}

type rapidSource struct{ t *rapid.T }

func (s rapidSource) intn(label string, n int) int {
	return rapid.IntRange(0, n-1).Draw(s.t, label)
}

func (s rapidSource) int64Range(label string, lo, hi int64) int64 {
	return rapid.Int64Range(lo, hi).Draw(s.t, label)
}

// byteSource reads choices from a fuzz input. A choice among at most 256
// values takes one byte; a wider one takes as many bytes as the width of
// the range needs, little-endian, reduced modulo the range. Once the input is
// used up every choice is the smallest value and exhausted reports true.
type byteSource struct {
	data []byte
	pos  int
}

func (s *byteSource) exhausted() bool { return s.pos >= len(s.data) }

func (s *byteSource) next(n int) uint64 {
	var buf [8]byte
	k := copy(buf[:n], s.data[min(s.pos, len(s.data)):])
	s.pos += k
	if k == 0 {
		s.pos = len(s.data) + 1
	}
	return binary.LittleEndian.Uint64(buf[:])
}

func (s *byteSource) intn(_ string, n int) int {
	if n <= 1 {
		return 0
	}
	return int(s.uniform(uint64(n-1)) % uint64(n))
}

func (s *byteSource) int64Range(_ string, lo, hi int64) int64 {
	span := uint64(hi - lo) // hi - lo fits: both are in [-2^62-1, 2^62]
	return lo + int64(s.uniform(span))
}

// uniform reads a value in [0, span].
func (s *byteSource) uniform(span uint64) uint64 {
	if span == 0 {
		return 0
	}
	n := 1
	for n < 8 && span>>(8*n) != 0 {
		n++
	}
	v := s.next(n)
	if span == ^uint64(0) {
		return v
	}
	return v % (span + 1)
}

// weighted picks an index with probability proportional to its weight. Zero
// weights are never picked; at least one weight must be positive.
func weighted(src source, label string, weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	r := src.intn(label, total)
	for i, w := range weights {
		if r < w {
			return i
		}
		r -= w
	}
	panic("proptest: weighted with no positive weight")
}

package queue

import "math/bits"

// bitmap is a fixed-size set of slot indices with a fast "next set bit" scan.
// A level keeps one so that advancing and finding the minimum skip empty
// slots: their cost follows the occupied slots, not the distance advanced.
type bitmap []uint64

func newBitmap(n int) bitmap { return make(bitmap, (n+63)/64) }

func (b bitmap) set(i int)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitmap) unset(i int)    { b[i>>6] &^= 1 << (uint(i) & 63) }
func (b bitmap) has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }

// next returns the smallest set index >= from, or -1. from must be >= 0.
func (b bitmap) next(from int) int {
	w := from >> 6
	if w >= len(b) {
		return -1
	}
	if x := b[w] >> (uint(from) & 63); x != 0 {
		return from + bits.TrailingZeros64(x)
	}
	for w++; w < len(b); w++ {
		if b[w] != 0 {
			return w<<6 + bits.TrailingZeros64(b[w])
		}
	}
	return -1
}

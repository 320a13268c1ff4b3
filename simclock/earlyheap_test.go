package simclock

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// refSorted returns es in (at, seq) order by a plain insertion sort, the
// reference for the early heap's own order.
func refSorted(es []entry) []entry {
	out := make([]entry, 0, len(es))
	for _, e := range es {
		i := len(out)
		for i > 0 && (e.at < out[i-1].at || e.at == out[i-1].at && e.seq < out[i-1].seq) {
			i--
		}
		out = slices.Insert(out, i, e)
	}
	return out
}

// randomEntries returns n entries with distinct sequence numbers and times
// drawn from span values, so that small spans make many ties in time.
func randomEntries(r *rand.Rand, n int, span int64) []entry {
	es := make([]entry, n)
	for i, o := range r.Perm(n) {
		es[i] = entry{at: r.Int64N(span), seq: uint64(o) + 1}
	}
	return es
}

// The early heap's sort (a heapsort, used when a compaction or leaving tiny
// mode needs the entries in order) and its pops put entries in (time,
// scheduling order) order, ties in time included, at lengths from 0 to past
// tinyMax.
func TestEarlyHeapOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 11))
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 100, tinyMax - 1, tinyMax, tinyMax + 3} {
		for _, span := range []int64{1, 3, 1 << 40} {
			es := randomEntries(r, n, span)
			want := refSorted(es)

			h := earlyHeap(slices.Clone(es))
			h.sort()
			if !slices.Equal(h, want) {
				t.Fatalf("n=%d span=%d: sort gave %v, want %v", n, span, h, want)
			}

			var p earlyHeap
			for _, e := range es {
				p.push(e)
			}
			got := make([]entry, 0, n)
			for len(p) > 0 {
				got = append(got, p.pop())
			}
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d span=%d: pops gave %v, want %v", n, span, got, want)
			}
		}
	}
}

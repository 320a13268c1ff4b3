package pool

import (
	"runtime"
	"testing"
)

// TestFreeStackBounded frees more records than the free stack's bound: the
// stack stops at its bound (AP9), the rest go on the free list, and the
// records are all reused before the pool makes a new one.
func TestFreeStackBounded(t *testing.T) {
	const n = 5 * stackMin
	p := NewPool[int](0)
	idx := make([]uint32, n)
	for k := range idx {
		idx[k] = p.alloc(int64(k), k, 1)
	}
	for _, i := range idx {
		p.release(i)
	}
	if err := p.Invariant(); err != nil {
		t.Fatal(err)
	}
	if cap(p.free) > p.stackMax() || p.stackMax() >= n {
		t.Fatalf("free stack has room for %d, bound %d, for %d free records", cap(p.free), p.stackMax(), n)
	}
	if p.list == 0 {
		t.Fatal("no free record went on the list")
	}
	seen := make(map[uint32]bool, n)
	for k := range n {
		i := p.alloc(0, k, 1)
		if seen[i] {
			t.Fatalf("record %d handed out twice", i)
		}
		seen[i] = true
	}
	if p.Len() != n {
		t.Fatalf("the pool made new records while %d were free: %d records, want %d", n, p.Len(), n)
	}
	if err := p.Invariant(); err != nil {
		t.Fatal(err)
	}
}

// TestCapacityAllocatesOnce: a pool made with a capacity holds that many
// records (flat), or the fewest segments that hold them, and allocates
// nothing more while it holds at most that many, however many it frees at
// once: its first fill and drain, which would grow a free stack made on
// demand, included. runtime.MemStats counts the whole process, so each
// capacity gets up to three fresh pools: an allocation of the runtime's
// own fails one, a pool that allocates fails all three.
func TestCapacityAllocatesOnce(t *testing.T) {
	for _, n := range []int{1, 100, 20 * stackMin, segSize - 1, segSize, 2*segSize - 1} {
		want := n // flat
		if n+1 > segSize {
			want = (n+segSize)/segSize*segSize - 1
		}
		var m uint64
		for range 3 {
			p := NewPool[int](n)
			if p.Cap() != want {
				t.Fatalf("capacity %d: Cap %d, want %d", n, p.Cap(), want)
			}
			idx := make([]uint32, n)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range 2 {
				for k := range idx {
					idx[k] = p.alloc(0, k, 1)
				}
				for _, i := range idx {
					p.release(i)
				}
			}
			runtime.ReadMemStats(&after)
			if err := p.Invariant(); err != nil {
				t.Fatal(err)
			}
			if m = after.Mallocs - before.Mallocs; m == 0 {
				break
			}
		}
		if m != 0 {
			t.Errorf("capacity %d: %d allocations in two fills and drains, want 0", n, m)
		}
	}
}

// TestShrinkSplitsFree: after a Shrink, the free records below the cut are
// on the stack (up to its bound for the new array) and the list, and Alloc
// takes them lowest index first, each once, before it makes a new record.
func TestShrinkSplitsFree(t *testing.T) {
	const n = 6 * stackMin
	p := NewPool[int](0)
	for k := range n {
		p.alloc(0, k, 1)
	}
	for i := uint32(1); i < n; i++ { // every record but the last
		p.release(i)
	}
	// A worn free record just below the last keeps the cut there, so that
	// Shrink moves the last record to index 1 and keeps 2 .. n-2 free.
	p.Rec(n - 1).setGen(wornGen)
	p.Shrink(func(from, to uint32) {})
	if err := p.Invariant(); err != nil {
		t.Fatal(err)
	}
	if p.Len() != n-1 || p.Live() != 1 || p.Rec(1).State() != 1 {
		t.Fatalf("fixture: %d records, %d live, record 1 in state %d", p.Len(), p.Live(), p.Rec(1).State())
	}
	if p.list == 0 || len(p.free) != p.stackMax() {
		t.Fatalf("want a full stack (%d of %d) and a list (head %d)", len(p.free), p.stackMax(), p.list)
	}
	for want := uint32(2); want < n; want++ {
		if i := p.alloc(0, 0, 1); i != want {
			t.Fatalf("Alloc after Shrink took record %d, want %d (the lowest free)", i, want)
		}
	}
	if i := p.alloc(0, 0, 1); i != n {
		t.Fatalf("Alloc with no free record took %d, want the new record %d", i, n)
	}
	if err := p.Invariant(); err != nil {
		t.Fatal(err)
	}
}

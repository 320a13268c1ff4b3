package pool

import (
	"testing"
)

// TestGrowthFlatThenSegments: a pool grown on demand to three segments and
// more stays flat up to segSize records, with lengths doubling from the
// sentinel; its full flat slice becomes segment 0 without a copy, growth
// in segment mode moves no record, the pool never holds a segment or more
// it does not use, and every record keeps its time, value and state.
func TestGrowthFlatThenSegments(t *testing.T) {
	const n = 3*segSize + 10
	p := NewPool[int](0)
	lengths := []int{p.Cap() + 1}
	var rec1, recSeg1 *Record[int] // record 1 once the flat slice is full; record segSize once it exists
	for k := 1; k <= n; k++ {
		if i := p.alloc(int64(k), k, 1); i != uint32(k) {
			t.Fatalf("Alloc %d took record %d", k, i)
		}
		if p.recs.segs == nil {
			if l := len(p.recs.flat); l != lengths[len(lengths)-1] {
				lengths = append(lengths, l)
			}
			if len(p.recs.flat) == segSize {
				rec1 = p.Rec(1)
			}
		} else if p.Rec(1) != rec1 {
			t.Fatalf("after Alloc %d record 1 moved: the full flat slice was copied", k)
		}
		if k == segSize {
			recSeg1 = p.Rec(segSize)
		}
		if recSeg1 != nil && p.Rec(segSize) != recSeg1 {
			t.Fatalf("after Alloc %d record %d moved: growth in segment mode copied a segment", k, segSize)
		}
		if p.Cap() < p.Len() || p.Cap()-p.Len() >= segSize {
			t.Fatalf("after Alloc %d: %d records held for %d in use, want fewer than a segment more", k, p.Cap(), p.Len())
		}
	}
	want := []int{1}
	for l := 1; l < segSize; {
		l = min(segSize, l+max(l, flatMin))
		want = append(want, l)
	}
	if len(lengths) != len(want) {
		t.Fatalf("flat lengths %v, want %v", lengths, want)
	}
	for k := range want {
		if lengths[k] != want[k] {
			t.Fatalf("flat lengths %v, want %v", lengths, want)
		}
	}
	if len(p.recs.segs) != 4 || len(p.recs.flat) != 0 {
		t.Fatalf("%d records in %d segments and %d flat, want 4 and 0", n, len(p.recs.segs), len(p.recs.flat))
	}
	checkValues(t, p, n)
}

// checkValues checks that records 1 to n hold times and values 1 to n, in
// state 1, through Rec and through a view, and that the pool is valid.
func checkValues(t *testing.T, p *Pool[int], n int) {
	t.Helper()
	recs := p.Records()
	for k := 1; k <= n; k++ {
		if r := p.Rec(uint32(k)); r.Value != k || r.Time != int64(k) || r.State() != 1 {
			t.Fatalf("record %d: time %d, value %d, state %d", k, r.Time, r.Value, r.State())
		}
		if r := recs.At(uint32(k)); r.Value != k || r.Time != int64(k) {
			t.Fatalf("Records().At(%d): time %d, value %d", k, r.Time, r.Value)
		}
	}
	if err := p.Invariant(); err != nil {
		t.Fatal(err)
	}
}

// TestGrowthFromCapacity: a flat pool made with a capacity that is not a
// power of two grows to a full flat slice, no longer, then to segments.
func TestGrowthFromCapacity(t *testing.T) {
	const c = 40000
	p := NewPool[int](c)
	for k := 1; k <= segSize+5; k++ {
		p.alloc(int64(k), k, 1)
		if k == c+1 || k == segSize+1 {
			if err := p.Invariant(); err != nil {
				t.Fatalf("after Alloc %d: %v", k, err)
			}
		}
	}
	if len(p.recs.segs) != 2 {
		t.Fatalf("%d records in %d segments, want 2", segSize+5, len(p.recs.segs))
	}
	checkValues(t, p, segSize+5)
}

// TestShrinkSegments: Shrink of a pool of four segments to 10 records
// leaves a flat slice of exactly those; to segSize+5 and to 2*segSize-1
// records (the second ends at a segment's end) it keeps the segments they
// need, with the records beyond zero (AP11). Every handle still finds its
// value, and the pool grows again from there.
func TestShrinkSegments(t *testing.T) {
	for _, keep := range []int{10, segSize + 5, 2*segSize - 1} {
		p := NewPool[*int](0)
		const n = 3*segSize + 10
		hs := make([]Handle, n+1)
		for k := 1; k <= n; k++ {
			v := k
			hs[k] = p.Handle(p.alloc(0, &v, 1))
		}
		// Keep the last keep records, so that Shrink moves them all down.
		for k := 1; k <= n-keep; k++ {
			i, _ := p.lookup(hs[k])
			p.release(i)
		}
		p.Shrink(func(from, to uint32) {})
		if err := p.Invariant(); err != nil {
			t.Fatalf("keep %d: %v", keep, err)
		}
		wantHeld, wantSegs := keep+1, 0
		if keep+1 > segSize {
			wantSegs = (keep + segSize) / segSize
			wantHeld = wantSegs * segSize
		}
		if p.Cap() != wantHeld-1 || len(p.recs.segs) != wantSegs {
			t.Fatalf("keep %d: Cap %d in %d segments, want %d in %d", keep, p.Cap(), len(p.recs.segs), wantHeld-1, wantSegs)
		}
		for k := n - keep + 1; k <= n; k++ {
			if i, ok := p.lookup(hs[k]); !ok || *p.Rec(i).Value != k {
				t.Fatalf("keep %d: handle %d lost its value", keep, k)
			}
		}
		for k := range segSize + 10 {
			v := -k
			p.alloc(0, &v, 1)
		}
		if err := p.Invariant(); err != nil {
			t.Fatalf("keep %d, grown again: %v", keep, err)
		}
	}
}

// TestResetClearsEverySegment: Reset of a pool of three segments of
// pointer values leaves every record zero (AP11), so that the pool keeps
// no value alive, and the pool refills without growing.
func TestResetClearsEverySegment(t *testing.T) {
	const n = 2*segSize + 10
	p := NewPool[*int](0)
	for k := range n {
		v := k
		p.alloc(1, &v, 1)
	}
	held := p.Cap()
	p.Reset()
	if err := p.Invariant(); err != nil {
		t.Fatal(err)
	}
	for i := range held + 1 {
		if r := p.Rec(uint32(i)); *r != (Record[*int]{}) {
			t.Fatalf("record %d after Reset: %+v, want zero", i, *r)
		}
	}
	for range n {
		p.alloc(1, nil, 1)
	}
	if p.Cap() != held {
		t.Fatalf("refilled to %d records: Cap %d, was %d", n, p.Cap(), held)
	}
}

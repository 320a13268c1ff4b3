package pool

// Corruption tests: each builds a valid pool, breaks exactly one fact, and
// checks that Invariant reports the invariant that fact belongs to.

import (
	"slices"
	"testing"

	"github.com/gotimingwheel/timingwheel/internal/invtest"
)

// newFixture returns a valid pool with records 1..5, of which 2 and 4 are
// free (the free stack is [2 4], 4 on top) and 1, 3, 5 live.
func newFixture(t *testing.T) *Pool[string] {
	t.Helper()
	p := NewPool[string](0)
	for _, v := range []string{"a", "b", "c", "d", "e"} {
		p.alloc(0, v, 1)
	}
	p.release(2)
	p.release(4)
	if err := p.Invariant(); err != nil {
		t.Fatalf("fixture is not valid: %v", err)
	}
	if !slices.Equal(p.free, []uint32{2, 4}) || p.Live() != 3 {
		t.Fatalf("fixture: free stack %v, live %d", p.free, p.Live())
	}
	return p
}

func TestFixtureValid(t *testing.T) {
	p := newFixture(t)
	// The free stack is used last-freed first.
	if i := p.alloc(0, "x", 1); i != 4 {
		t.Fatalf("Alloc reused %d, want 4", i)
	}
	if err := p.Invariant(); err != nil {
		t.Fatal(err)
	}
}

func TestCorruptAP1(t *testing.T) {
	t.Run("sentinel not free", func(t *testing.T) {
		p := newFixture(t)
		p.Rec(0).SetState(1)
		invtest.Expect(t, p.Invariant(), "AP1")
	})
	t.Run("sentinel missing", func(t *testing.T) {
		p := newFixture(t)
		p.n = 0
		invtest.Expect(t, p.Invariant(), "AP1")
	})
}

func TestCorruptAP2(t *testing.T) {
	t.Run("live record on the free stack", func(t *testing.T) {
		p := newFixture(t)
		p.free[0] = 3 // 3 is live
		invtest.Expect(t, p.Invariant(), "AP2")
	})
	t.Run("record twice", func(t *testing.T) {
		p := newFixture(t)
		p.free[0] = 4
		invtest.Expect(t, p.Invariant(), "AP2")
	})
	t.Run("index beyond the records", func(t *testing.T) {
		p := newFixture(t)
		p.free[0] = 99
		invtest.Expect(t, p.Invariant(), "AP2")
	})
	t.Run("the sentinel", func(t *testing.T) {
		p := newFixture(t)
		p.free[0] = 0
		invtest.Expect(t, p.Invariant(), "AP2")
	})
	t.Run("index one past the records", func(t *testing.T) {
		p := newFixture(t)
		p.free[0] = uint32(p.n)
		invtest.Expect(t, p.Invariant(), "AP2")
	})
	t.Run("live record on the free list", func(t *testing.T) {
		p, live := newListFixture(t)
		p.Rec(p.list).Pos = live
		invtest.Expect(t, p.Invariant(), "AP2")
	})
	t.Run("free list cycle", func(t *testing.T) {
		p, _ := newListFixture(t)
		p.Rec(p.Rec(p.list).Pos).Pos = p.list
		invtest.Expect(t, p.Invariant(), "AP2")
	})
	t.Run("free list beyond the records", func(t *testing.T) {
		p, _ := newListFixture(t)
		p.Rec(p.list).Pos = uint32(p.n)
		invtest.Expect(t, p.Invariant(), "AP2")
	})
	t.Run("record on the stack and the list", func(t *testing.T) {
		p, _ := newListFixture(t)
		p.Rec(p.list).Pos = p.free[0]
		invtest.Expect(t, p.Invariant(), "AP2")
	})
}

// newListFixture returns a valid pool whose free stack is full and whose
// free list holds three records, and the index of its one live record.
func newListFixture(t *testing.T) (*Pool[string], uint32) {
	t.Helper()
	p := NewPool[string](0)
	n := uint32(stackMin + 4)
	for i := uint32(1); i <= n; i++ {
		p.alloc(0, "v", 1)
	}
	for i := uint32(1); i < n; i++ {
		p.release(i)
	}
	if err := p.Invariant(); err != nil {
		t.Fatalf("fixture is not valid: %v", err)
	}
	k := 0
	for i := p.list; i != 0; i = p.Rec(i).Pos {
		k++
	}
	if len(p.free) != p.stackMax() || cap(p.free) != p.stackMax() || k != 3 {
		t.Fatalf("fixture: free stack %d of %d (bound %d), %d on the list, want a full stack and 3",
			len(p.free), cap(p.free), p.stackMax(), k)
	}
	return p, n
}

func TestCorruptAP9(t *testing.T) {
	t.Run("above a sixteenth", func(t *testing.T) {
		p, _ := newListFixture(t)
		free := make([]uint32, len(p.free), p.stackMax()+1) // room beyond the bound
		copy(free, p.free)
		p.free = free
		invtest.Expect(t, p.Invariant(), "AP9")
	})
	t.Run("above the records of a small pool", func(t *testing.T) {
		p := newFixture(t) // 6 records, far below stackMin
		free := make([]uint32, len(p.free), p.recs.held()+1)
		copy(free, p.free)
		p.free = free
		invtest.Expect(t, p.Invariant(), "AP9")
	})
}

func TestCorruptAP3(t *testing.T) {
	t.Run("live count", func(t *testing.T) {
		p := newFixture(t)
		p.live++
		invtest.Expect(t, p.Invariant(), "AP3")
	})
}

func TestCorruptAP7(t *testing.T) {
	t.Run("free record off the stack, not retired", func(t *testing.T) {
		p := newFixture(t)
		p.free = p.free[1:] // record 2 is free but off the stack, at generation 1
		invtest.Expect(t, p.Invariant(), "AP7")
	})
	t.Run("retired count", func(t *testing.T) {
		p := newFixture(t)
		p.retired++
		invtest.Expect(t, p.Invariant(), "AP7")
	})
}

func TestCorruptAP4(t *testing.T) {
	p := newFixture(t)
	p.owner = 0
	invtest.Expect(t, p.Invariant(), "AP4")
}

// newShrunk returns a valid pool in which Shrink moved record 5 to index 2,
// so the forwarding maps hold one entry.
func newShrunk(t *testing.T) (*Pool[string], Handle) {
	t.Helper()
	p := NewPool[string](0)
	for _, v := range []string{"a", "b", "c", "d", "e"} {
		p.alloc(0, v, 1)
	}
	h := p.Handle(5)
	p.release(2)
	p.release(4)
	p.Shrink(func(from, to uint32) {})
	if len(p.fwd) != 1 {
		t.Fatalf("Shrink moved %d records, want 1", len(p.fwd))
	}
	if err := p.Invariant(); err != nil {
		t.Fatalf("fixture is not valid: %v", err)
	}
	if i, ok := p.lookup(h); !ok || p.Rec(i).Value != "e" {
		t.Fatalf("moved handle finds %d, %v", i, ok)
	}
	return p, h
}

func TestCorruptAP5(t *testing.T) {
	t.Run("reverse entry missing", func(t *testing.T) {
		p, _ := newShrunk(t)
		clear(p.rev)
		invtest.Expect(t, p.Invariant(), "AP5")
	})
	t.Run("maps disagree", func(t *testing.T) {
		p, h := newShrunk(t)
		j := p.fwd[h]
		p.rev[j] = Handle{h.owner, h.index, h.gen + 1}
		invtest.Expect(t, p.Invariant(), "AP5")
	})
	t.Run("forwarding to a free record", func(t *testing.T) {
		p, h := newShrunk(t)
		j := p.fwd[h]
		// Free the target behind the maps' back (Free would drop the entry),
		// keeping the free stack and the counts right.
		p.Rec(j).SetState(StateFree)
		p.free = append(p.free, j)
		p.live--
		invtest.Expect(t, p.Invariant(), "AP5")
	})
}

func TestCorruptAP6(t *testing.T) {
	t.Run("handle of a moved record names another live record", func(t *testing.T) {
		// Records 5 and 6 move down to 1 and 2; their handles still name
		// (5, gen) and (6, gen). Records appended afterwards reuse indices 5
		// and 6 with generations above every one issued, so the old handles
		// cannot name them, unless a generation is corrupted.
		p := NewPool[string](0)
		for _, v := range []string{"a", "b", "c", "d", "e", "f"} {
			p.alloc(0, v, 1)
		}
		p.release(1)
		p.release(2)
		p.Shrink(func(from, to uint32) {})
		p.alloc(0, "g", 1)
		p.alloc(0, "h", 1)
		if err := p.Invariant(); err != nil {
			t.Fatalf("fixture is not valid: %v", err)
		}
		o, ok := p.rev[1]
		if !ok || int(o.index) >= p.n || p.Rec(o.index).State() == StateFree {
			t.Fatalf("fixture: record 1 came from %v (moved: %v), want a live index", o, ok)
		}
		p.Rec(o.index).setGen(o.gen)
		invtest.Expect(t, p.Invariant(), "AP6")
	})
}

func TestCorruptAP12(t *testing.T) {
	t.Run("room counted for no maps", func(t *testing.T) {
		p, _ := newShrunk(t)
		p.fwd, p.rev = nil, nil
		invtest.Expect(t, p.Invariant(), "AP12")
	})
	t.Run("maps kept with no room counted", func(t *testing.T) {
		p := newFixture(t)
		p.fwd, p.rev = map[Handle]uint32{}, map[uint32]Handle{}
		invtest.Expect(t, p.Invariant(), "AP12")
	})
	t.Run("more entries than room counted", func(t *testing.T) {
		p := NewPool[string](0)
		for _, v := range []string{"a", "b", "c", "d", "e", "f"} {
			p.alloc(0, v, 1)
		}
		p.release(1)
		p.release(2)
		p.Shrink(func(from, to uint32) {})
		if len(p.fwd) != 2 || p.Invariant() != nil {
			t.Fatalf("fixture: %d moved, %v", len(p.fwd), p.Invariant())
		}
		p.fwdCap = 1
		invtest.Expect(t, p.Invariant(), "AP12")
	})
}

func TestCorruptAP8(t *testing.T) {
	p := newFixture(t)
	p.nextGen = wornGen + 1 // as if Shrink had cut a worn record
	invtest.Expect(t, p.Invariant(), "AP8")
}

// newSegmented returns a valid pool in segment mode, of three segments,
// with segSize+2 records in use.
func newSegmented(t *testing.T) *Pool[string] {
	t.Helper()
	p := NewPool[string](2*segSize + 5)
	for range segSize + 1 {
		p.alloc(0, "v", 1)
	}
	if err := p.Invariant(); err != nil || len(p.recs.segs) != 3 {
		t.Fatalf("fixture: %d segments, %v", len(p.recs.segs), err)
	}
	return p
}

func TestCorruptAP10(t *testing.T) {
	t.Run("flat pool beyond a segment", func(t *testing.T) {
		p := newFixture(t)
		flat := make([]Record[string], segSize+1)
		copy(flat, p.recs.flat)
		p.recs.flat = flat
		invtest.Expect(t, p.Invariant(), "AP10")
	})
	t.Run("flat pool holds fewer than in use", func(t *testing.T) {
		p := newFixture(t)
		p.recs.flat = p.recs.flat[:p.n-1]
		invtest.Expect(t, p.Invariant(), "AP10")
	})
	t.Run("flat slice in segment mode", func(t *testing.T) {
		p := newSegmented(t)
		p.recs.flat = p.recs.segs[0][:]
		invtest.Expect(t, p.Invariant(), "AP10")
	})
	t.Run("one segment", func(t *testing.T) {
		p := NewPool[string](segSize + 5)
		p.recs.segs = p.recs.segs[:1]
		invtest.Expect(t, p.Invariant(), "AP10")
	})
	t.Run("more in use than held", func(t *testing.T) {
		p := newSegmented(t)
		p.n = 3*segSize + 1
		invtest.Expect(t, p.Invariant(), "AP10")
	})
	t.Run("a segment twice", func(t *testing.T) {
		p := newSegmented(t)
		p.recs.segs[2] = p.recs.segs[1]
		invtest.Expect(t, p.Invariant(), "AP10")
	})
	t.Run("nil segment", func(t *testing.T) {
		p := newSegmented(t)
		p.recs.segs[2] = nil
		invtest.Expect(t, p.Invariant(), "AP10")
	})
}

func TestCorruptAP11(t *testing.T) {
	t.Run("flat record beyond those in use", func(t *testing.T) {
		p := NewPool[string](10)
		p.alloc(0, "a", 1)
		p.Rec(5).Value = "stale"
		invtest.Expect(t, p.Invariant(), "AP11")
	})
	t.Run("last word of the last record held", func(t *testing.T) {
		p := newSegmented(t)
		p.Rec(3*segSize - 1).gs = 1 << stateBits
		invtest.Expect(t, p.Invariant(), "AP11")
	})
	t.Run("first record beyond those in use, in segment mode", func(t *testing.T) {
		p := newSegmented(t)
		p.Rec(uint32(p.n)).Time = 1
		invtest.Expect(t, p.Invariant(), "AP11")
	})
}

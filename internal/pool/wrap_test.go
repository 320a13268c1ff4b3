package pool

// Handles never alias: each way a stale or foreign handle could name a live
// record after a counter wraps is tested by setting the counter next to its
// limit, instead of looping billions (owners) or millions (generations) of
// times.

import (
	"math"
	"testing"
	"unsafe"

	"github.com/gotimingwheel/timingwheel/levelbits"
)

// raiseOwnerCounter moves the process-wide owner counter up to at least v.
// It never lowers it, so no test can make an ID repeat.
func raiseOwnerCounter(v uint64) {
	for {
		cur := lastOwner.Load()
		if cur >= v || lastOwner.CompareAndSwap(cur, v) {
			return
		}
	}
}

// A record's generation is 25 bits. A record freed at the last generation is
// retired: it never returns to the free stack, so the handles it issued at
// the last two generations stay rejected, and the next Alloc takes a new
// record.
func TestGenerationNeverWraps(t *testing.T) {
	p := NewPool[string](0)
	i := p.alloc(10, "a", 1)
	p.Rec(i).setGen(MaxGen - 1) // as if freed 2^25-2 times
	h1 := p.Handle(i)
	p.release(i) // generation MaxGen, back on the free stack
	if j := p.alloc(20, "b", 1); j != i {
		t.Fatalf("Alloc took record %d, want %d (the top of the free stack)", j, i)
	}
	h2 := p.Handle(i)
	if Gen(h2) != MaxGen {
		t.Fatalf("reused record has generation %d, want %d", Gen(h2), uint32(MaxGen))
	}
	if _, ok := p.lookup(h1); ok {
		t.Fatal("handle of the previous generation accepted")
	}
	p.release(i) // the last generation is spent: retired
	if p.Retired() != 1 {
		t.Fatalf("Retired() = %d, want 1", p.Retired())
	}
	k := p.alloc(30, "c", 1)
	if k == i {
		t.Fatalf("Alloc reused retired record %d", i)
	}
	for _, h := range []Handle{h1, h2} {
		if _, ok := p.lookup(h); ok {
			t.Fatalf("stale handle %v accepted after retirement", h)
		}
	}
	if j, ok := p.lookup(p.Handle(k)); !ok || j != k || p.Rec(j).Value != "c" {
		t.Fatalf("new record's handle finds %d, %v", j, ok)
	}
	if err := p.Invariant(); err != nil {
		t.Fatal(err)
	}

	// Shrink keeps the retired record in place and never moves a live record
	// into it, and still releases what lies above. Records 1 (retired), 2
	// ("c"), then 3..9 of which only 9 stays live.
	var hs []Handle
	for v := range 7 {
		hs = append(hs, p.Handle(p.alloc(int64(50+v), "x", 1)))
	}
	for _, h := range hs[:6] {
		j, _ := p.lookup(h)
		p.release(j)
	}
	p.Shrink(func(from, to uint32) {
		if to == i {
			t.Fatalf("Shrink moved record %d into the retired record %d", from, to)
		}
	})
	if p.n != 4 { // sentinel, retired 1, "c" at 2, the last "x" moved to 3
		t.Fatalf("after Shrink %d records, want 4", p.n)
	}
	if p.Rec(i).Gen() != MaxGen || p.Rec(i).State() != StateFree || p.Retired() != 1 {
		t.Fatalf("retired record %d: generation %d, state %d, Retired %d", i, p.Rec(i).Gen(), p.Rec(i).State(), p.Retired())
	}
	if j, ok := p.lookup(hs[6]); !ok || p.Rec(j).Value != "x" {
		t.Fatalf("live handle %v lost by Shrink: %d, %v", hs[6], j, ok)
	}
	if err := p.Invariant(); err != nil {
		t.Fatal(err)
	}
	// Refill: no record is ever put at the retired index, and no old handle
	// names a new record.
	for v := range 20 {
		if j := p.alloc(int64(100+v), "y", 1); j == i {
			t.Fatalf("Alloc reused retired record %d", i)
		}
	}
	for _, h := range append([]Handle{h1, h2}, hs[:6]...) {
		if _, ok := p.lookup(h); ok {
			t.Fatalf("stale handle %v accepted after Shrink and refill", h)
		}
	}
	if err := p.Invariant(); err != nil {
		t.Fatal(err)
	}

	// Reset takes a new owner: the spent record is usable again, and every
	// old handle stays rejected.
	p.Reset()
	if p.Retired() != 0 {
		t.Fatalf("Retired() = %d after Reset, want 0", p.Retired())
	}
	j := p.alloc(40, "d", 1)
	for _, h := range []Handle{h1, h2} {
		if _, ok := p.lookup(h); ok {
			t.Fatalf("handle %v from before Reset accepted (record %d)", h, j)
		}
	}
	if err := p.Invariant(); err != nil {
		t.Fatal(err)
	}
}

// Owner IDs are 64 bits: pools created on both sides of 2^32, whose IDs agree
// in their low 32 bits, do not accept each other's handles, and neither does
// a pool reset there.
func TestOwnerIDsDoNotWrapAt32Bits(t *testing.T) {
	raiseOwnerCounter(1<<32 - 2)
	a := NewPool[int](0)
	a.alloc(0, 1, 1)
	ha := a.Handle(1)

	raiseOwnerCounter(a.Owner() + 1<<32 - 1)
	b := NewPool[int](0) // owner a.Owner() + 2^32
	if b.Owner()-a.Owner() != 1<<32 {
		t.Fatalf("owners %d and %d, want 2^32 apart", a.Owner(), b.Owner())
	}
	b.alloc(0, 2, 1) // the same index and generation as ha
	if Index(b.Handle(1)) != Index(ha) || Gen(b.Handle(1)) != Gen(ha) {
		t.Fatalf("fixture: handles %v and %v differ in more than the owner", b.Handle(1), ha)
	}
	if _, ok := b.lookup(ha); ok {
		t.Fatalf("pool %d accepts handle %v of pool %d", b.Owner(), ha, a.Owner())
	}
	if _, ok := a.lookup(b.Handle(1)); ok {
		t.Fatalf("pool %d accepts handle %v of pool %d", a.Owner(), b.Handle(1), b.Owner())
	}

	// A Reset crossing the same boundary: the handle kept across it is
	// rejected.
	raiseOwnerCounter(a.Owner() + 2<<32 - 1)
	a.Reset()
	a.alloc(0, 3, 1)
	if _, ok := a.lookup(ha); ok {
		t.Fatalf("handle %v kept across Reset accepted by owner %d", ha, a.Owner())
	}
}

// The counter panics rather than wrap to an ID in use.
func TestOwnerIDExhaustionPanics(t *testing.T) {
	saved := lastOwner.Load()
	defer lastOwner.Store(saved)
	lastOwner.Store(math.MaxUint64)
	defer func() {
		if recover() == nil {
			t.Fatal("NewOwnerID wrapped to 0 without a panic")
		}
	}()
	NewOwnerID()
}

// A record with an 8-byte value is 24 bytes: the generation and the state
// share a word. Every state fits in the state's bits, and setting either half
// keeps the other.
func TestRecordPacking(t *testing.T) {
	if n := unsafe.Sizeof(Record[int64]{}); n != 24 {
		t.Fatalf("a record with an int64 value is %d bytes, want 24", n)
	}
	const levels = levelbits.MaxNumBits // that many levels of one bit each
	states := []uint8{StateFree, StateDue, StateFiring}
	for l := 0; l < levels; l++ {
		states = append(states, uint8(l+1))
	}
	seen := map[uint8]bool{}
	for _, s := range states {
		if s >= 1<<stateBits || seen[s] {
			t.Fatalf("state %#x is not below 2^%d or is used twice", s, stateBits)
		}
		seen[s] = true
		for _, g := range []uint32{0, 1, MaxGen - 1, MaxGen} {
			var r Record[int64]
			r.setGen(g)
			r.SetState(s)
			if r.Gen() != g || r.State() != s {
				t.Fatalf("setGen(%d), SetState(%#x): read back generation %d, state %#x", g, s, r.Gen(), r.State())
			}
			r.setGen(g ^ 1)
			if r.Gen() != g^1 || r.State() != s {
				t.Fatalf("setGen(%d) after SetState(%#x): read back generation %d, state %#x", g^1, s, r.Gen(), r.State())
			}
		}
	}
}

// Shrink keeps a worn record in place rather than cutting it: records
// appended later would otherwise start at a generation above its own, near
// the last, and retire after a few frees each, one record lost per add.
func TestShrinkKeepsWornRecords(t *testing.T) {
	p := NewPool[int](0)
	a, b := p.alloc(0, 1, 1), p.alloc(0, 2, 1)
	p.Rec(b).setGen(MaxGen - 2) // as if freed 2^25-3 times
	p.release(a)
	p.release(b) // generation MaxGen-1, free
	p.Shrink(func(from, to uint32) {})
	if err := p.Invariant(); err != nil {
		t.Fatalf("after Shrink: %v", err)
	}
	// The free stack hands back the record just freed: b until it retires
	// (two frees), then a record that is not worn. Had Shrink cut b, every
	// record appended after it would start near MaxGen and retire at once.
	for k := range 1000 {
		p.release(p.alloc(0, k, 1))
	}
	if p.Retired() > 1 {
		t.Fatalf("after 1000 adds and frees, %d records retired, want at most b", p.Retired())
	}
	if err := p.Invariant(); err != nil {
		t.Fatal(err)
	}
}

// A record reused 2^25 times for real (no generation set by hand) retires at
// its 2^25-th free: every handle it issued stays rejected, and the next
// Alloc takes a new record.
func TestGenerationWrapForReal(t *testing.T) {
	if testing.Short() {
		t.Skip("2^25 allocations")
	}
	p := NewPool[int](0)
	first := p.Handle(p.alloc(0, 0, 1))
	i := Index(first)
	p.release(i)
	for range MaxGen - 1 {
		if j := p.alloc(0, 0, 1); j != i {
			t.Fatalf("Alloc took record %d, want %d", j, i)
		}
		p.release(i)
	}
	// MaxGen frees so far: the record is at the last generation.
	last := p.Handle(p.alloc(0, 0, 1))
	if Gen(last) != MaxGen || p.Retired() != 0 {
		t.Fatalf("after %d frees: generation %d, %d retired; want %d, 0", MaxGen, Gen(last), p.Retired(), MaxGen)
	}
	p.release(i) // the 2^25-th
	if p.Retired() != 1 {
		t.Fatalf("after 2^25 frees %d records retired, want 1", p.Retired())
	}
	if j := p.alloc(0, 0, 1); j == i {
		t.Fatalf("Alloc reused the retired record %d", i)
	}
	for _, h := range []Handle{first, last} {
		if _, ok := p.lookup(h); ok {
			t.Fatalf("handle %v of the retired record is accepted", h)
		}
	}
	if err := p.Invariant(); err != nil {
		t.Fatal(err)
	}
}

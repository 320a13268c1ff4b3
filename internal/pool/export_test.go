package pool

// SegSize is the number of records in a segment.
const SegSize = segSize

// AgeFreeHead ages the record on top of the free stack (the next Alloc's)
// as if it had been reused until its generation were MaxGen - k, so that
// model tests reach the last generations in a few steps. It reports false
// when the stack is empty.
func AgeFreeHead[T any](p *Pool[T], k uint32) bool {
	if len(p.free) == 0 {
		return false
	}
	r := p.Rec(p.free[len(p.free)-1])
	r.setGen(max(r.Gen(), MaxGen-k))
	return true
}

// HighestWorn returns the highest index of a worn record (generation
// wornGen or above, MaxGen included), or 0 when there is none.
func HighestWorn[T any](p *Pool[T]) int {
	for i := p.n - 1; i > 0; i-- {
		if p.Rec(uint32(i)).Gen() >= wornGen {
			return i
		}
	}
	return 0
}

// alloc is Alloc for tests that keep the index.
func (p *Pool[T]) alloc(time int64, v T, state uint8) uint32 {
	h, _ := p.Alloc(time, v, state)
	return h.index
}

// release is Free for tests that hold only the index.
func (p *Pool[T]) release(i uint32) { p.Free(i, p.Rec(i)) }

// lookup is Lookup reporting whether a was found.
func (p *Pool[T]) lookup(a Handle) (uint32, bool) {
	i, r := p.Lookup(a)
	return i, r != nil
}

// Owner returns the ID of the pool that issued a.
func Owner(a Handle) uint64 { return a.owner }

// Gen returns the record generation a was issued with.
func Gen(a Handle) uint32 { return a.gen }

// Owner returns the pool's owner ID, which every handle it issues carries.
func (p *Pool[T]) Owner() uint64 { return p.owner }

// Retired returns the number of records retired because their generation
// reached MaxGen (2^25-1).
func (p *Pool[T]) Retired() int { return p.retired }

// forwarding returns the entries of the pool's forwarding maps, how many
// entries the maps were made for (what BytesHeld counts), and whether they
// are allocated.
func forwarding[T any](p *Pool[T]) (entries, room int, made bool) {
	return len(p.fwd), p.fwdCap, p.fwd != nil
}

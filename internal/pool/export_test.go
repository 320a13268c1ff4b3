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

package pool

// AgeFreeHead ages the record at the head of the free list as if it had been
// reused until its generation were MaxGen - k, so that model tests reach the
// last generations in a few steps. It reports false when the list is empty.
func AgeFreeHead[T any](p *Pool[T], k uint32) bool {
	if p.free == 0 {
		return false
	}
	r := &p.recs[p.free]
	r.setGen(max(r.Gen(), MaxGen-k))
	return true
}

// HighestWorn returns the highest index of a worn record (generation
// wornGen or above, MaxGen included), or 0 when there is none.
func HighestWorn[T any](p *Pool[T]) int {
	for i := len(p.recs) - 1; i > 0; i-- {
		if p.recs[i].Gen() >= wornGen {
			return i
		}
	}
	return 0
}

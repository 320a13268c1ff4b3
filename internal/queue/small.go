package queue

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/gotimingwheel/timingwheel/internal/checked"
)

// Small mode: a queue that holds few elements keeps them in a radix heap
// instead of on the levels. How it works, its caps and why:
// docs/design.md, "Small mode"; invariants PQ14 and PQ15.

// posBits is how many bits of a record's Next hold its position in its
// bucket; the bucket number is above them.
const posBits = 26

// rpos is what a record's Next holds in small mode: bucket b, position p.
func rpos(b, p int) uint32 { return uint32(b)<<posBits | uint32(p) }

// entryOf returns the bucket and position a record's Next names in small
// mode, and whether that entry exists and holds record i.
func (r *radix) entryOf(next, i uint32) (b, p int, ok bool) {
	b, p = int(next>>posBits), int(next&(1<<posBits-1))
	return b, p, b < len(r.b) && p < len(r.b[b].e) && r.b[b].e[p].idx == i
}

// rent is one entry of a bucket: a key and a record index (0: a tombstone).
// It holds no pointer, so entries past a bucket's length are left as they
// are.
type rent struct {
	key int64
	idx uint32
}

// radix is the small mode's radix heap. Its bucket vectors exist up to the
// highest bucket ever used (at most 63: keys are below 2^62, so k XOR last
// has at most 62 bits), so that a small queue
// whose keys lie close together holds a few bucket headers, not 63.
type radix struct {
	last int64     // the base: at most every key held and MinAllowedKey
	occ  uint64    // bit b is set iff bucket b holds an element
	n    int       // elements held
	b    []rbucket // the buckets 0 to len(b)-1
}

// rbucket is one bucket of the radix heap.
type rbucket struct {
	e    []rent // its entries, in arrival order, with tombstones
	live uint32 // its elements (entries other than tombstones)
}

// reach makes buckets 0 to b exist, new ones empty, in one allocation at
// most (the first key of a new queue often lands in bucket 20 or more).
func (r *radix) reach(b int) {
	n := len(r.b)
	r.b = slices.Grow(r.b, b+1-n)[:b+1]
	clear(r.b[n:])
}

// smallCapFor returns how many elements small mode holds for a level 0 of
// 2^b0 slots, however the keys lie: up to one eighth of the slots, at most
// smallMax, and 0 (no small mode) below 8 slots, where the levels are small
// anyway (and the exhaustive tests drive the levels' code).
func smallCapFor(b0 uint) int {
	if b0 >= 11 {
		return smallMax
	}
	return min(smallMax, 1<<b0>>3)
}

// wideCapFor returns the most elements small mode holds, for a level 0 of
// 2^b0 slots, while more than half its keys lie beyond level 0: 16 times
// the slots, at most wideMax, never below smallCapFor(b0).
func wideCapFor(b0 uint) int {
	if b0 >= 11 {
		return wideMax
	}
	return max(smallCapFor(b0), min(wideMax, 16<<b0))
}

// makeRoom is called by an Add in small mode that finds curCap elements. It
// doubles curCap when it may grow and more than half the keys lie beyond
// level 0's range, and reports whether it did; otherwise the caller spills.
func (q *Queue[T]) makeRoom() bool {
	if q.curCap >= q.wideCap {
		return false
	}
	q.syncLevels() // level 0's range decides
	beyond, max0 := 0, q.levels[0].maxKey
	for b := range q.rad.b {
		for _, e := range q.rad.b[b].e {
			if e.idx != 0 && e.key > max0 {
				beyond++
			}
		}
	}
	if 2*beyond <= q.rad.n {
		return false
	}
	q.curCap = min(2*q.curCap, q.wideCap)
	return true
}

// syncLevels brings the levels' geometry, which small mode lets lag,
// up to MinAllowedKey; whatever reads it in small mode (makeRoom, spill)
// calls this first. The layout is a function of level 0's minimum alone, so
// bringing it up once equals bringing it up at every step.
func (q *Queue[T]) syncLevels() {
	if q.levels[0].minKey < q.minAllowed {
		q.setMin(q.minAllowed) // the levels hold nothing: no cascade
	}
}

// enterSmall starts small mode, empty.
func (q *Queue[T]) enterSmall() {
	q.small = true
	q.curCap = q.smallCap
	q.smallReset()
}

// bucketOf returns the bucket of key k against the base.
func (r *radix) bucketOf(k int64) int { return bits.Len64(uint64(k ^ r.last)) }

// smallLen returns the number of elements in small mode.
func (q *Queue[T]) smallLen() int { return q.rad.n }

// smallPut puts record i, whose key is key (at least MinAllowedKey), in
// small mode, after every element with its key: at the end of its bucket,
// its position in its record.
func (q *Queue[T]) smallPut(i uint32, key int64) {
	r := &q.rad
	if r.n == 0 {
		// Empty: start afresh, the base as close to the keys as the rules
		// allow, and the cap back at smallCap, so that a queue whose keys
		// were spread once does not keep a large cap for keys that are not.
		r.last = q.minAllowed
		q.curCap = q.smallCap
	}
	b := r.bucketOf(key)
	if b >= len(r.b) {
		r.reach(b)
	}
	bk := &r.b[b]
	rec := q.rec(i)
	rec.Next = rpos(b, len(bk.e))
	rec.SetState(1)
	bk.e = append(bk.e, rent{key, i})
	bk.live++
	r.occ |= 1 << (b & 63) // b < 64; the mask spares Go's check for shifts of 64 or more
	r.n++
	if checked.On {
		q.chk.bucketEntry(b, len(bk.e)-1)
	}
}

// smallFind returns the bucket and position of record i, whose key is key.
// It panics if the record is not there (a corrupt queue).
func (q *Queue[T]) smallFind(i uint32, key int64) (b, p int) {
	b, p, ok := q.rad.entryOf(q.rec(i).Next, i)
	if !ok || q.rad.b[b].e[p].key != key {
		panic("priorityqueue: record not in the small-mode buckets")
	}
	return b, p
}

// smallDel takes record i, whose key is key, out of small mode, leaving a
// tombstone.
func (q *Queue[T]) smallDel(i uint32, key int64) {
	b, p := q.smallFind(i, key)
	r := &q.rad
	bk := &r.b[b]
	bk.e[p].idx = 0
	bk.live--
	r.n--
	if bk.live == 0 {
		bk.e = bk.e[:0]
		r.occ &^= 1 << b
	} else if n := len(bk.e); n >= compactMin && n > 2*int(bk.live) {
		q.rcompact(b)
	}
	if checked.On {
		q.chk.bucket(b)
	}
}

// rcompact rewrites bucket b without tombstones, in order.
func (q *Queue[T]) rcompact(b int) {
	bk := &q.rad.b[b]
	w := 0
	for _, e := range bk.e {
		if e.idx != 0 {
			q.rec(e.idx).Next = rpos(b, w)
			bk.e[w] = e
			w++
		}
	}
	bk.e, bk.live = bk.e[:w], uint32(w)
	if w == 0 {
		q.rad.occ &^= 1 << (b & 63) // as in smallPut
	}
	if checked.On {
		q.chk.bucket(b)
	}
}

// rlowest returns the lowest occupied bucket and its smallest key; false
// when small mode holds nothing.
func (q *Queue[T]) rlowest() (b int, k int64, ok bool) {
	r := &q.rad
	if r.occ == 0 {
		return 0, 0, false
	}
	b = bits.TrailingZeros64(r.occ)
	if b == 0 {
		return 0, r.last, true
	}
	k = math.MaxInt64
	for _, e := range r.b[b].e {
		if e.idx != 0 {
			k = min(k, e.key)
		}
	}
	return b, k, true
}

// rsplit redistributes bucket b > 0, whose smallest key is m, against m:
// m becomes the base, and each of the bucket's elements goes, in order, to
// the end of a lower bucket (those of key m to bucket 0).
func (q *Queue[T]) rsplit(b int, m int64) {
	r := &q.rad
	r.last = m
	bs, recs := r.b, q.pool.Records()
	es := bs[b].e
	bs[b] = rbucket{} // keep es apart while the lower buckets grow
	occ := r.occ &^ (1 << b)
	for _, e := range es {
		if e.idx == 0 {
			continue
		}
		nb := bits.Len64(uint64(e.key ^ m)) // below b: no bucket to add
		bk := &bs[nb]
		// rpos(nb, len(bk.e)) written out: the compiler does not inline
		// rpos in this loop, and a call per element moved shows on
		// HOLD-EXACT (figures in the commit message).
		recs.At(e.idx).Next = uint32(nb)<<posBits | uint32(len(bk.e))
		bk.e = append(bk.e, e)
		bk.live++
		occ |= 1 << (nb & 63) // as in smallPut
		if checked.On {
			q.chk.bucketEntry(nb, len(bk.e)-1)
		}
	}
	r.occ = occ
	bs[b].e = es[:0]
	if checked.On {
		q.chk.bucket(b)
	}
}

// smallMinKey returns the smallest key in small mode, which must hold
// something.
func (q *Queue[T]) smallMinKey() int64 {
	_, k, _ := q.rlowest()
	return k
}

// rtake0 appends bucket 0's elements, in order, to the due buffer and
// empties it, without touching their records, and returns how many it
// moved.
func (q *Queue[T]) rtake0() int {
	r := &q.rad
	bk := &r.b[0]
	for _, e := range bk.e {
		if e.idx != 0 {
			q.dueBuf = append(q.dueBuf, e.idx)
		}
	}
	c := int(bk.live)
	bk.e, bk.live = bk.e[:0], 0
	r.occ &^= 1
	r.n -= c
	if checked.On {
		q.chk.bucket(0)
	}
	return c
}

// rtakeLone takes the one element of bucket b > 0, whose key is m, to the
// due buffer, and makes m the base: what rsplit(b, m) and rtake0 would do,
// without moving the element to bucket 0 first. The buckets above b keep
// their elements (rsplit's reasoning).
func (q *Queue[T]) rtakeLone(b int, m int64) int {
	r := &q.rad
	bk := &r.b[b]
	for _, e := range bk.e {
		if e.idx != 0 {
			q.dueBuf = append(q.dueBuf, e.idx)
			break
		}
	}
	bk.e, bk.live = bk.e[:0], 0
	r.occ &^= 1 << (b & 63) // as in smallPut
	r.n--
	r.last = m
	if checked.On {
		q.chk.bucket(b)
	}
	return 1
}

// collectSmall is CollectTo in small mode: the due elements are bucket 0's,
// after splitting the lowest bucket while it holds keys below key, or the
// lowest bucket's one element (rtakeLone).
func (q *Queue[T]) collectSmall(key int64, limit int) int64 {
	n := 0
	for {
		b, k := bits.TrailingZeros64(q.rad.occ), q.minKey
		if !q.minValid || q.rad.occ == 0 {
			var ok bool
			if b, k, ok = q.rlowest(); !ok {
				break
			}
			q.minKey, q.minValid = k, true
		} // else the cached minimum is the lowest bucket's: no scan
		if k >= key {
			break
		}
		if limit > 0 && n >= limit {
			key = k
			break
		}
		if b > 0 && q.rad.b[b].live == 1 {
			n += q.rtakeLone(b, k) // k < key, as below
		} else {
			if b > 0 {
				q.rsplit(b, k) // k < key: the new base stays at most MinAllowedKey
			}
			n += q.rtake0()
		}
		q.minValid = false
	}
	q.dueLen += n
	q.minAllowed = key // the levels' geometry lags (syncLevels)
	return key
}

// smallFirstWithKey returns the element of key k that removal would take
// first in small mode, or 0.
func (q *Queue[T]) smallFirstWithKey(k int64) uint32 {
	first := uint32(0)
	q.smallEachWithKey(k, func(i uint32) bool { first = i; return false })
	return first
}

// smallEachWithKey calls f on the elements of key k in small mode, in
// order.
func (q *Queue[T]) smallEachWithKey(k int64, f func(i uint32) bool) {
	b := q.rad.bucketOf(k)
	if q.rad.n == 0 || k < q.rad.last || b >= len(q.rad.b) {
		return
	}
	for _, e := range q.rad.b[b].e {
		if e.idx != 0 && e.key == k && !f(e.idx) {
			return
		}
	}
}

// smallEach calls f on every element in small mode until f returns false,
// and reports whether it went to the end.
func (q *Queue[T]) smallEach(f func(i uint32) bool) bool {
	for b := range q.rad.b {
		for _, e := range q.rad.b[b].e {
			if e.idx != 0 && !f(e.idx) {
				return false
			}
		}
	}
	return true
}

// smallReset empties small mode, keeping the buckets' capacity.
func (q *Queue[T]) smallReset() {
	r := &q.rad
	for b := range r.b {
		r.b[b].e, r.b[b].live = r.b[b].e[:0], 0
	}
	r.occ, r.n, r.last = 0, 0, q.minAllowed
}

// smallMoved tells small mode that Shrink moved record from, whose Next it
// kept, to index to.
func (q *Queue[T]) smallMoved(from, to uint32) {
	b, p, ok := q.rad.entryOf(q.rec(to).Next, from)
	if !ok {
		panic("priorityqueue: moved record not in the small-mode buckets")
	}
	q.rad.b[b].e[p].idx = to
}

// smallClip rewrites the buckets without tombstones at their exact size,
// and drops the empty buckets above the highest occupied one (Shrink).
func (q *Queue[T]) smallClip() {
	r := &q.rad
	for b := range r.b {
		if r.b[b].live == 0 {
			r.b[b].e = nil
			continue
		}
		q.rcompact(b)
		r.b[b].e = slices.Clip(r.b[b].e)
	}
	hi := 64 - bits.LeadingZeros64(r.occ)
	r.b = slices.Clip(r.b[:hi])
	if hi == 0 {
		r.b = nil
	}
}

// smallBytes returns the bytes the buckets hold.
func (q *Queue[T]) smallBytes() int {
	n := 0
	for b := range q.rad.b {
		n += cap(q.rad.b[b].e)
	}
	return n*int(unsafe.Sizeof(rent{})) + cap(q.rad.b)*int(unsafe.Sizeof(rbucket{}))
}

// spill leaves small mode: it moves the elements bucket by bucket, each
// bucket's in order, to the back of their slots on the lowest level covering
// each (as Add puts them), so every key's elements sit on one level in
// insertion order, unsorted (docs/design.md, "Spill"). Placing reads and
// writes only the levels and the records, so the buckets are emptied after.
func (q *Queue[T]) spill() {
	q.syncLevels()
	q.small = false
	for b := range q.rad.b {
		for _, e := range q.rad.b[b].e {
			if e.idx != 0 {
				q.place(e.idx, e.key)
			}
		}
	}
	q.smallReset()
}

// unspill enters small mode from the levels (Shrink does, when they hold
// at most smallCap elements): it gathers the elements level by level from
// the top, each slot in order, sorts them stably by key and puts them in
// that order. For each key the elements on higher levels are the older
// ones, and within a slot they are in insertion order (PQ-ORDER), so each
// key's elements go in in insertion order.
func (q *Queue[T]) unspill() {
	var all []rent
	for l := len(q.levels) - 1; l >= 0; l-- {
		lv := &q.levels[l]
		if lv.length == 0 {
			continue
		}
		for s := lv.occupied.next(0); s >= 0; s = lv.occupied.next(s + 1) {
			q.each(l, s, func(i uint32) bool {
				all = append(all, rent{q.keyOf(q.rec(i)), i})
				return true
			})
			q.empty(l, s)
		}
	}
	slices.SortStableFunc(all, func(a, b rent) int { return cmp.Compare(a.key, b.key) })
	q.enterSmall()
	for _, e := range all {
		q.smallPut(e.idx, e.key)
	}
}

// removeAtMinSmall is RemoveAtMinKey's choice in small mode: the elements
// of key k (MinAllowedKey) with a time <= maxTime leave, in order, for the
// due list; the others keep their order.
func (q *Queue[T]) removeAtMinSmall(k, maxTime int64) {
	b, m, ok := q.rlowest()
	if !ok || m != k {
		return // nothing of key k: every key is at least MinAllowedKey
	}
	if b > 0 {
		q.rsplit(b, k) // k = MinAllowedKey: the base may be it
	}
	es := q.rad.b[0].e
	chosen := q.scratch[:0]
	for j, e := range es {
		if e.idx != 0 && q.rec(e.idx).Time <= maxTime {
			chosen = append(chosen, e.idx)
			es[j].idx = 0
		}
	}
	q.rad.n -= len(chosen)
	q.rcompact(0) // the others keep their order
	for _, i := range chosen {
		q.toDue(i)
	}
	q.scratch = chosen[:0]
}

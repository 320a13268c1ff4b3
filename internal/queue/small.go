package queue

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/gotimingwheel/timingwheel/internal/checked"
	"github.com/gotimingwheel/timingwheel/internal/pool"
)

// Small mode's radix heap: docs/design.md, "Small mode"; PQ14, PQ15.

// posBits is how many low bits of a record's Pos hold its position in its
// bucket (rpos); the bucket number is above them.
const posBits = 26

func rpos(b, p int) uint32 { return uint32(b)<<posBits | uint32(p) }

// entryOf returns the bucket and position a record's Pos names, and
// whether that entry exists and holds record i.
func (r *radix) entryOf(next, i uint32) (b, p int, ok bool) {
	b, p = int(next>>posBits), int(next&(1<<posBits-1))
	return b, p, b < len(r.b) && p < len(r.b[b].e) && r.b[b].e[p].idx == i
}

// rent is one entry of a bucket: a key and a record index (0: a tombstone).
type rent struct {
	key int64
	idx uint32
}

// radix is small mode's radix heap; its buckets exist up to the highest
// ever used (at most 63).
type radix struct {
	last int64     // the base: at most every key held and MinAllowedKey
	occ  uint64    // bit b is set iff bucket b holds an element
	n    int       // elements held
	b    []rbucket // the buckets 0 to len(b)-1
}

type rbucket struct {
	e    []rent // its entries, in arrival order, with tombstones
	live uint32 // its elements (entries other than tombstones)
}

// reach makes buckets 0 to b exist, in one allocation at most.
func (r *radix) reach(b int) {
	n := len(r.b)
	r.b = slices.Grow(r.b, b+1-n)[:b+1]
	clear(r.b[n:])
}

// smallCapFor returns smallCap for a level 0 of 2^b0 slots: an eighth of the
// slots, at most smallMax (0 below 8 slots: no small mode).
func smallCapFor(b0 uint) int {
	if b0 >= 11 {
		return smallMax
	}
	return min(smallMax, 1<<b0>>3)
}

// wideCapFor returns wideCap for a level 0 of 2^b0 slots: 16 times the
// slots, at most wideMax, at least smallCapFor(b0).
func wideCapFor(b0 uint) int {
	if b0 >= 11 {
		return wideMax
	}
	return max(smallCapFor(b0), min(wideMax, 16<<b0))
}

// makeRoom doubles curCap, for an Add that finds small mode full, when it
// may grow and more than half the keys lie beyond level 0, and reports
// whether it did; otherwise the caller spills.
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

// syncLevels brings the levels' geometry, which small mode lets lag, up to
// MinAllowedKey, for what reads it in small mode (makeRoom, spill).
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

func (r *radix) bucketOf(k int64) int { return bits.Len64(uint64(k ^ r.last)) }

// smallPut appends record i (rec), of key key, to its bucket.
func (q *Queue[T]) smallPut(i uint32, rec *pool.Record[T], key int64) {
	r := &q.rad
	if r.n == 0 {
		// Empty: the base as close to the keys as allowed, the cap reset.
		r.last = q.minAllowed
		q.curCap = q.smallCap
	}
	b := r.bucketOf(key)
	if b >= len(r.b) {
		r.reach(b)
	}
	bk := &r.b[b]
	rec.Pos = rpos(b, len(bk.e))
	rec.SetState(1)
	bk.e = append(bk.e, rent{key, i})
	bk.live++
	r.occ |= 1 << (b & 63) // b < 64: the mask spares Go's code for larger shifts
	r.n++
	if checked.On {
		q.chk.bucketEntry(b, len(bk.e)-1)
	}
}

// smallDel takes record i (rec), of key key, out of small mode,
// leaving a tombstone; it panics on a corrupt queue.
func (q *Queue[T]) smallDel(i uint32, rec *pool.Record[T], key int64) {
	b, p, ok := q.rad.entryOf(rec.Pos, i)
	if !ok || q.rad.b[b].e[p].key != key {
		panic("priorityqueue: record not in the small-mode buckets")
	}
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
			q.rec(e.idx).Pos = rpos(b, w)
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

// rlowest returns the lowest occupied bucket and its smallest key, or false.
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

// rsplit redistributes bucket b > 0, whose smallest key is m, in order, to
// lower buckets against m, the new base.
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
		// rpos written out: Go leaves a call to it in this loop, which costs
		// HOLD-EXACT more than 5% (bench/: BenchmarkWorkload/HOLD-EXACT,
		// and the figures in the commit that wrote this).
		recs.At(e.idx).Pos = uint32(nb)<<posBits | uint32(len(bk.e))
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

// rtake0 moves bucket 0's elements, in order, to the due buffer without
// touching their records, and returns how many.
func (q *Queue[T]) rtake0() int {
	bk := &q.rad.b[0]
	for _, e := range bk.e {
		if e.idx != 0 {
			q.dueBuf = append(q.dueBuf, e.idx)
		}
	}
	r := &q.rad
	c := int(bk.live)
	bk.e, bk.live = bk.e[:0], 0
	r.occ &^= 1
	r.n -= c
	if checked.On {
		q.chk.bucket(0)
	}
	return c
}

// rtakeMin moves the elements of key k, the smallest key, from the lowest
// bucket b to the due buffer, in order, and returns how many; it marks
// their records due if mark (for a key not below MinAllowedKey), else
// leaves them untouched. A lone element in bucket b > 0 needs no split: the base
// moves to k, which agrees with the old base on every bit that places the
// higher buckets' keys, so they stay where they are (PQ15).
func (q *Queue[T]) rtakeMin(b int, k int64, mark bool) int {
	r := &q.rad
	bk := &r.b[b]
	if b == 0 || bk.live != 1 {
		if b > 0 {
			q.rsplit(b, k)
		}
		c := q.rtake0()
		if mark {
			for _, i := range q.dueBuf[len(q.dueBuf)-c:] {
				q.rec(i).SetState(pool.StateDue)
			}
		}
		return c
	}
	i := q.rtakeLone(b, k)
	if mark {
		q.rec(i).SetState(pool.StateDue)
	}
	q.dueBuf = append(q.dueBuf, i)
	return 1
}

// rtakeLone takes the one element of bucket b, of key k, the smallest, out
// of the radix heap and returns its record index; the base moves to k
// (see rtakeMin).
func (q *Queue[T]) rtakeLone(b int, k int64) uint32 {
	r := &q.rad
	bk := &r.b[b]
	i := bk.e[r.lone(b)].idx
	bk.e, bk.live = bk.e[:0], 0
	r.occ &^= 1 << (b & 63) // as in smallPut
	r.n--
	r.last = k
	if checked.On {
		q.chk.bucket(b)
	}
	return i
}

// lone returns the position of the one element of bucket b.
func (r *radix) lone(b int) int {
	j := 0
	for r.b[b].e[j].idx == 0 {
		j++
	}
	return j
}

// collectSmall is CollectTo in small mode: the due elements are bucket 0's,
// after splitting the lowest bucket while it holds keys below key.
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
		n += q.rtakeMin(b, k, false) // k < key: the new base stays at most MinAllowedKey
		q.minValid = false
	}
	q.dueLen += n
	q.minAllowed = key // the levels' geometry lags (syncLevels)
	return key
}

// smallEachWithKey calls f on the elements of key k in order.
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

// smallClip rewrites the buckets without tombstones at their exact size and
// drops the empty ones on top (Shrink).
func (q *Queue[T]) smallClip() {
	r := &q.rad
	for b := range r.b {
		if r.b[b].live == 0 {
			r.b[b].e = nil
			continue
		}
		q.rcompact(b)
		r.b[b].e = fit(r.b[b].e)
	}
	hi := 64 - bits.LeadingZeros64(r.occ)
	r.b = fit(r.b[:hi])
}

// smallBytes returns the bytes the buckets hold.
func (q *Queue[T]) smallBytes() int {
	n := 0
	for b := range q.rad.b {
		n += cap(q.rad.b[b].e)
	}
	return n*int(unsafe.Sizeof(rent{})) + cap(q.rad.b)*int(unsafe.Sizeof(rbucket{}))
}

// spill leaves small mode: each bucket's elements, in order, go where Add
// would put them (docs/design.md, "Spill").
func (q *Queue[T]) spill() {
	q.syncLevels()
	q.small = false
	for b := range q.rad.b {
		for _, e := range q.rad.b[b].e {
			if e.idx != 0 {
				q.place(e.idx, q.rec(e.idx), e.key)
			}
		}
	}
	q.smallReset()
}

// unspill enters small mode from the levels (Shrink): the elements,
// gathered from the top level down and sorted stably by key, are in firing
// order (PQ-ORDER).
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
		q.smallPut(e.idx, q.rec(e.idx), e.key)
	}
}

// smallStepOne is Step's choice in small mode with nothing due, when the
// smallest key holds one element: it moves *now to that element's time if
// later, and MinAllowedKey to its key, takes the element out and returns
// its record index; else it returns 0, having at most split the lowest
// bucket. The radix heap holds an element.
func (q *Queue[T]) smallStepOne(now *int64) uint32 {
	r := &q.rad
	b := bits.TrailingZeros64(r.occ) // r.occ != 0
	if b > 0 && r.b[b].live > 1 {
		m := q.minKey // the lowest bucket's smallest key
		if !q.minValid {
			_, m, _ = q.rlowest()
		}
		// The step moves MinAllowedKey to m, the smallest key, whatever
		// follows; first, so that the split may take m as the base (PQ15).
		q.minAllowed = m
		q.rsplit(b, m)
		b = 0
	}
	bk := &r.b[b]
	if bk.live != 1 {
		return 0
	}
	e := bk.e[r.lone(b)]
	if t := q.rec(e.idx).Time; t > *now {
		*now = t
		q.minAllowed = e.key // what CollectTo does there: the levels lag
	}
	if e.key == q.ordKey {
		q.ord = q.ord[:0] // the key's one element leaves
	}
	q.rtakeLone(b, e.key)
	q.minValid = false
	return e.idx
}

// removeAtMinSmall is RemoveAtMinKey's choice in small mode: the elements
// of key k with a time <= maxTime go to the due list.
func (q *Queue[T]) removeAtMinSmall(k, maxTime int64) {
	r := &q.rad
	if r.occ == 0 {
		return
	}
	b, m := bits.TrailingZeros64(r.occ), r.last
	if b > 0 {
		if q.minValid {
			m = q.minKey // the lowest bucket's smallest key: no scan
		} else {
			_, m, _ = q.rlowest()
		}
	}
	if m != k {
		return // nothing of key k: every key is at least MinAllowedKey
	}
	if q.shift == 0 || b > 0 && r.b[b].live == 1 {
		// All or none: at shift 0 every element of key k has time k, and
		// otherwise there is one.
		if q.shift == 0 && k <= maxTime || q.shift != 0 && q.rec(r.b[b].e[r.lone(b)].idx).Time <= maxTime {
			q.dueLen += q.rtakeMin(b, k, true)
			q.minValid = false
		}
		return
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

package queue

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/gotimingwheel/timingwheel/invariant"
)

// Invariant checks every invariant of the queue, PQ1-PQ17 and the pool's
// AP*, and returns nil or an *invariant.Violation naming the first broken,
// in the order docs/invariants.md gives with each one's function. Cost:
// O(slots + capacity).
func (q *Queue[T]) Invariant() error {
	if err := q.checkGeometry(); err != nil {
		return err
	}
	for l := range q.levels {
		held := 0
		for s := range q.levels[l].slots {
			n, err := q.checkSlot(l, s, math.MaxInt)
			if err != nil {
				return err
			}
			held += n
		}
		if lv := &q.levels[l]; lv.slots == nil && lv.occupied != nil {
			return invariant.Errorf("PQ7", "level %d has no slots in use but a bitmap of %d words", l, len(lv.occupied))
		} else if lv.length != held {
			return invariant.Errorf("PQ6", "level %d length %d, slots hold %d", l, lv.length, held)
		}
	}
	if err := q.checkPQ16(); err != nil {
		return err
	}
	if err := q.pool.Invariant(); err != nil {
		return err
	}
	return q.checkCounts(^uint64(0), math.MaxInt)
}

// checkGeometry checks what costs O(levels): PQ1, PQ2, PQ9, PQ14.
func (q *Queue[T]) checkGeometry() error {
	var bitsPerSlot uint
	held := 0 // not 0 iff a level's length is not
	for l := range q.levels {
		lv := &q.levels[l]
		nslots := int(lv.mask) + 1
		span := MaxKey
		if lv.bits+lv.shift < 62 {
			span = int64(1)<<(lv.bits+lv.shift) - 1
		}
		if lv.slots != nil && (len(lv.slots) != nslots || len(lv.occupied) != (nslots+63)/64) ||
			lv.slots == nil && lv.length != 0 || nslots != 1<<lv.bits ||
			lv.shift != bitsPerSlot || lv.keysPerSlot != int64(1)<<bitsPerSlot || lv.span != span ||
			lv.minKey < 0 || lv.minKey != MaxKey && lv.minKey%lv.keysPerSlot != 0 ||
			lv.maxKey != addClamp(lv.minKey, lv.span) {
			return invariant.Errorf("PQ1", "level %d: %d slots and %d bitmap words for %d bits (mask %#x), %d elements, shift %d (want %d), keysPerSlot %d, span %d (want %d), range [%d, %d]",
				l, len(lv.slots), len(lv.occupied), lv.bits, lv.mask, lv.length, lv.shift, bitsPerSlot, lv.keysPerSlot, lv.span, span, lv.minKey, lv.maxKey)
		}
		bitsPerSlot += lv.bits
		held |= lv.length
		if prev := &q.levels[max(l-1, 0)]; l > 0 && lv.minKey != lv.minAfter(prev.maxKey) {
			return invariant.Errorf("PQ2", "level %d: min %d, want %d after level %d's max %d",
				l, lv.minKey, lv.minAfter(prev.maxKey), l-1, prev.maxKey)
		}
	}
	if want := min(q.levels[len(q.levels)-1].maxKey, MaxKey>>q.shift); q.reach != want {
		return invariant.Errorf("PQ1", "reach %d, want %d (the top level's max, at most %d)", q.reach, want, MaxKey>>q.shift)
	}
	if m0 := q.levels[0].minKey; m0 < 0 || m0 > q.minAllowed || m0 < q.minAllowed && !q.small || q.minAllowed > MaxKey {
		return invariant.Errorf("PQ9", "level 0 min %d, MinAllowedKey %d, small mode %v, want 0 <= min = MinAllowedKey <= %d (min <= MinAllowedKey in small mode)",
			m0, q.minAllowed, q.small, MaxKey)
	}
	if !q.small && q.rad.n != 0 || q.small && (held != 0 || q.smallCap <= 0 ||
		q.curCap < q.smallCap || q.curCap > q.wideCap || q.rad.n > q.curCap) {
		return invariant.Errorf("PQ14", "small mode %v holds %d, cap %d, allowed caps [%d, %d], elements on the levels %v",
			q.small, q.rad.n, q.curCap, q.smallCap, q.wideCap, held != 0)
	}
	return nil
}

// checkSlot checks slot s of level l: its vectors' capacities (PQ16); then,
// if it has at most limit entries, each entry (checkSlotEntry), its count
// (PQ6), its bit (PQ7) and, above level 0, its cached minimum (PQ13); else
// its count against its entries and its level's length, and its bit. It
// returns the slot's count; a slot Shrink has released has none.
func (q *Queue[T]) checkSlot(l, s, limit int) (n int, err error) {
	if l >= len(q.levels) || s >= len(q.levels[l].slots) {
		return 0, nil
	}
	lv := &q.levels[l]
	v := &lv.slots[s]
	if !vecCapOK(cap(v.back)) || !vecCapOK(cap(v.front)) {
		return 0, invariant.Errorf("PQ16", "level %d slot %d: back vector of capacity %d, front vector of capacity %d, want 0 or %d·2^k",
			l, s, cap(v.back), cap(v.front), vecBase)
	}
	entries := len(v.front) + len(v.back)
	slotMin := int64(math.MaxInt64)
	if entries > limit {
		if n = int(v.count); n > entries || n > lv.length {
			return 0, invariant.Errorf("PQ6", "level %d slot %d count %d, more than its %d entries or its level's length %d",
				l, s, n, entries, lv.length)
		}
	} else {
		for j := range entries {
			half, p := uint32(frontBit), j
			if j >= len(v.front) {
				half, p = 0, j-len(v.front)
			}
			i, key, err := q.checkSlotEntry(l, s, half, p)
			if err != nil {
				return 0, err
			}
			if i != 0 {
				n, slotMin = n+1, min(slotMin, key)
			}
		}
		if uint32(n) != v.count {
			return 0, invariant.Errorf("PQ6", "level %d slot %d count %d, holds %d", l, s, v.count, n)
		}
	}
	if bit := lv.occupied.has(s); (n > 0) != bit {
		return 0, invariant.Errorf("PQ7", "level %d slot %d: %d elements, bit %v", l, s, n, bit)
	}
	if m := v.minKey; l > 0 && n > 0 && entries <= limit && m != minUnknown && m != slotMin {
		return 0, invariant.Errorf("PQ13", "level %d slot %d: cached minimum %d, smallest key %d", l, s, m, slotMin)
	}
	return n, nil
}

// checkSlotEntry checks the entry at position p of slot s of level l, in its
// front (half = frontBit) or back vector, unless there is none or it is a
// tombstone: PQ5, PQ3, PQ4, PQ12. It returns the record's index (0: none)
// and key.
func (q *Queue[T]) checkSlotEntry(l, s int, half uint32, p int) (i uint32, key int64, err error) {
	lv := &q.levels[l]
	vec := lv.slots[s].back
	if half != 0 {
		vec = lv.slots[s].front
	}
	if p < 0 || p >= len(vec) || vec[p] == 0 {
		return 0, 0, nil
	}
	i = vec[p]
	if int(i) > q.pool.Len() {
		return 0, 0, invariant.Errorf("PQ5", "level %d slot %d holds bad index %d", l, s, i)
	}
	r := q.rec(i)
	if r.Pos != half|uint32(p) {
		return 0, 0, invariant.Errorf("PQ5", "record %d at level %d slot %d position %#x says %#x", i, l, s, half|uint32(p), r.Pos)
	}
	key = q.keyOf(r)
	if r.State() != uint8(l+1) || key < lv.minKey || key > lv.maxKey {
		return 0, 0, invariant.Errorf("PQ3", "record %d (key %d, state %d) at level %d covering [%d, %d]",
			i, key, r.State(), l, lv.minKey, lv.maxKey)
	}
	if want := lv.slot(key); want != s {
		return 0, 0, invariant.Errorf("PQ4", "record %d key %d in slot %d of level %d, want slot %d", i, key, s, l, want)
	}
	if r.Time < 0 || r.Time > MaxKey {
		return 0, 0, invariant.Errorf("PQ12", "record %d has time %d", i, r.Time)
	}
	return i, key, nil
}

// checkCounts checks the radix heap (PQ15), the due list (PQ10, PQ6) when
// it has at most limit entries, Len (PQ6), the cached minimum (PQ8) unless
// finding it walks more than limit entries, and the records in use (PQ11).
func (q *Queue[T]) checkCounts(touched uint64, limit int) error {
	if err := q.checkRadix(touched, limit); err != nil {
		return err
	}
	if len(q.dueBuf)-q.duePos <= limit {
		if err := q.checkPQ10(); err != nil {
			return err
		}
	}
	held := q.rad.n + q.dueLen
	for l := range q.levels {
		held += q.levels[l].length
	}
	if held != q.length {
		return invariant.Errorf("PQ6", "Len %d, levels, small mode and due list count %d", q.length, held)
	}
	if m, ok := q.minimum(limit); ok && q.minValid && (m < 0 || q.minKey != m) {
		return invariant.Errorf("PQ8", "cached minimum %d, true minimum on the levels %d", q.minKey, m)
	}
	if q.pool.Live() != q.length+len(q.firing) {
		return invariant.Errorf("PQ11", "pool has %d live records, queue %d + %d firing", q.pool.Live(), q.length, len(q.firing))
	}
	return q.checkPQ17(limit)
}

// checkPQ17 checks the step order (PQ17), unless it or its key has more
// than limit elements: a min-heap by (time, number) of entries that name
// the key's elements not due, each once, with their times and positions,
// numbered below ordNext in their removal order. An order below
// MinAllowedKey is dead: no call reads it.
func (q *Queue[T]) checkPQ17(limit int) error {
	k := q.ordKey
	if k < q.minAllowed {
		return nil
	}
	if q.shift == 0 {
		return invariant.Errorf("PQ17", "step order of key %d with shift 0", k)
	}
	if len(q.ord) > limit {
		return nil
	}
	for p, e := range q.ord {
		switch {
		case e.i == 0 || int(e.i) > q.pool.Len():
			return invariant.Errorf("PQ17", "step order entry %d names record %d, outside [1, %d]", p, e.i, q.pool.Len())
		case int(e.i) >= len(q.ordAt) || q.ordAt[e.i] != uint32(p):
			return invariant.Errorf("PQ17", "step order entry %d (record %d) is not the position noted for its record", p, e.i)
		case e.t != q.rec(e.i).Time:
			return invariant.Errorf("PQ17", "step order entry %d holds time %d, its record %d time %d", p, e.t, e.i, q.rec(e.i).Time)
		case e.n >= q.ordNext:
			return invariant.Errorf("PQ17", "step order entry %d numbered %d, not below %d", p, e.n, q.ordNext)
		case p > 0 && ordLess(e, q.ord[(p-1)/2]):
			par := q.ord[(p-1)/2]
			return invariant.Errorf("PQ17", "step order entry %d (time %d, number %d) comes before its parent (time %d, number %d)",
				p, e.t, e.n, par.t, par.n)
		}
	}
	var want []uint32
	add := func(i uint32) bool { want = append(want, i); return len(want) <= limit }
	if q.small {
		q.smallEachWithKey(k, add)
	} else {
		q.eachWithKey(k, add)
	}
	if len(want) > limit {
		return nil
	}
	if len(want) != len(q.ord) {
		return invariant.Errorf("PQ17", "step order of key %d holds %d entries, the key %d elements not due", k, len(q.ord), len(want))
	}
	prev := int64(-1)
	for _, i := range want {
		if !q.ordHas(i) {
			return invariant.Errorf("PQ17", "record %d of key %d is not in the step order", i, k)
		}
		n := int64(q.ord[q.ordAt[i]].n)
		if n <= prev {
			return invariant.Errorf("PQ17", "record %d of key %d numbered %d, after one numbered %d that it follows in removal order", i, k, n, prev)
		}
		prev = n
	}
	return nil
}

// checkPQ10 checks the due list (PQ10) and its count (PQ6).
func (q *Queue[T]) checkPQ10() error {
	if q.duePos < 0 || q.duePos > len(q.dueBuf) {
		return invariant.Errorf("PQ10", "due position %d outside [0, %d]", q.duePos, len(q.dueBuf))
	}
	prevKey, due := int64(-1), 0
	for _, i := range q.dueBuf[q.duePos:] {
		if i == 0 { // a tombstone
			continue
		}
		if int(i) > q.pool.Len() {
			return invariant.Errorf("PQ10", "due buffer holds bad index %d", i)
		}
		r := q.rec(i)
		key := q.keyOf(r)
		if !q.isDue(r, key) || key < prevKey || key > q.minAllowed {
			return invariant.Errorf("PQ10", "due record %d: state %d, key %d after key %d, MinAllowedKey %d",
				i, r.State(), key, prevKey, q.minAllowed)
		}
		prevKey = key
		due++
	}
	if due != q.dueLen {
		return invariant.Errorf("PQ6", "due list holds %d, count says %d", due, q.dueLen)
	}
	return nil
}

// checkRadix checks the radix heap (PQ15), walking the buckets in touched
// (bit b) of at most limit entries; of the others, the counts.
func (q *Queue[T]) checkRadix(touched uint64, limit int) error {
	r := &q.rad
	if r.last > q.minAllowed {
		return invariant.Errorf("PQ15", "radix base %d above MinAllowedKey %d", r.last, q.minAllowed)
	}
	n, maxKey := 0, int64(-1)
	for b := range r.b {
		bk := &r.b[b]
		live, entries := int(bk.live), len(bk.e)
		if touched>>b&1 == 1 && entries <= limit {
			live = 0
			for p := range bk.e {
				if maxKey < 0 {
					maxKey = q.MaxAllowedKey()
				}
				i, err := q.checkBucketEntry(b, p, maxKey)
				if err != nil {
					return err
				}
				if i != 0 {
					live++
				}
			}
		}
		if live != int(bk.live) || live > entries || live == 0 && entries != 0 || (r.occ>>b&1 == 1) != (live > 0) {
			return invariant.Errorf("PQ15", "bucket %d: %d elements in %d entries, counted %d, occupancy bit %d",
				b, live, entries, bk.live, r.occ>>b&1)
		}
		n += live
	}
	if r.occ>>len(r.b) != 0 || n != r.n {
		return invariant.Errorf("PQ15", "radix heap: %d elements in %d buckets, counted %d, occupancy %#x",
			n, len(r.b), r.n, r.occ)
	}
	return nil
}

// checkBucketEntry checks the entry at position p of bucket b (PQ15),
// unless there is none or it is a tombstone, and returns its record's index
// (0: none). maxKey is MaxAllowedKey().
func (q *Queue[T]) checkBucketEntry(b, p int, maxKey int64) (uint32, error) {
	r := &q.rad
	if b >= len(r.b) || p < 0 || p >= len(r.b[b].e) || r.b[b].e[p].idx == 0 {
		return 0, nil
	}
	e := r.b[b].e[p]
	if int(e.idx) > q.pool.Len() {
		return 0, invariant.Errorf("PQ15", "bucket %d position %d holds bad index %d", b, p, e.idx)
	}
	rec := q.rec(e.idx)
	if rec.State() != 1 || q.keyOf(rec) != e.key || rec.Pos != rpos(b, p) ||
		e.key < q.minAllowed || e.key > maxKey || r.bucketOf(e.key) != b {
		return 0, invariant.Errorf("PQ15", "bucket %d position %d: record %d (state %d, key %d, Pos %#x) under key %d (bucket %d against base %d), allowed [%d, %d]",
			b, p, e.idx, rec.State(), q.keyOf(rec), rec.Pos, e.key, r.bucketOf(e.key), r.last, q.minAllowed, maxKey)
	}
	return e.idx, nil
}

// minimum returns the smallest key not due (-1: none), for PQ8, as
// computeMinKey finds it but caching nothing (exact when PQ7 and PQ15
// hold); false if that walks more than limit entries.
func (q *Queue[T]) minimum(limit int) (int64, bool) {
	best := int64(math.MaxInt64)
	if r := &q.rad; q.small && r.occ != 0 {
		b := bits.TrailingZeros64(r.occ)
		if b >= len(r.b) || len(r.b[b].e) > limit {
			return 0, false
		}
		for _, e := range r.b[b].e {
			if e.idx != 0 {
				best = min(best, e.key)
			}
		}
		return best, true
	}
	for l := range q.levels {
		lv := &q.levels[l]
		if q.small || lv.minKey > best {
			break
		}
		if lv.slots == nil || lv.occupied.next(0) < 0 {
			continue
		}
		s, slotStart := lv.nextOccupied(lv.minKey)
		if slotStart >= best {
			continue
		}
		if v := &lv.slots[s]; len(v.front)+len(v.back) > limit {
			return 0, false
		}
		q.each(l, s, func(i uint32) bool {
			best = min(best, q.keyOf(q.rec(i)))
			return true
		})
	}
	if best == math.MaxInt64 {
		return -1, true
	}
	return best, true
}

// checkPQ16: the slot vectors own their memory: spare[k] holds only empty
// vectors of capacity vecBase·2^k, and no two slot or spare vectors share
// memory, so that no slot writes into another's entries (checkSlot has
// checked the slots' capacities). Cost: O(slots + v log v) for v vectors.
func (q *Queue[T]) checkPQ16() error {
	var spans []vecSpan
	for l := range q.levels {
		for s := range q.levels[l].slots {
			v := &q.levels[l].slots[s]
			if cap(v.front) != 0 {
				spans = append(spans, newVecSpan(v.front, "front", l, s))
			}
			if cap(v.back) != 0 {
				spans = append(spans, newVecSpan(v.back, "back", l, s))
			}
		}
	}
	for k, st := range q.spare {
		for j, v := range st {
			if len(v) != 0 || cap(v) != vecBase<<k {
				return invariant.Errorf("PQ16", "spare vector %d of class %d: length %d, capacity %d, want 0 and %d",
					j, k, len(v), cap(v), vecBase<<k)
			}
			spans = append(spans, newVecSpan(v, "spare", k, j))
		}
	}
	slices.SortFunc(spans, func(a, b vecSpan) int { return cmp.Compare(a.lo, b.lo) })
	for j := 1; j < len(spans); j++ {
		if spans[j].lo < spans[j-1].hi {
			return invariant.Errorf("PQ16", "%v and %v share memory", spans[j-1], spans[j])
		}
	}
	return nil
}

// vecCapOK reports whether c is a capacity a slot vector may have: 0 or
// vecBase·2^k (PQ16).
func vecCapOK(c int) bool { return c == 0 || c >= vecBase && c&(c-1) == 0 }

// vecSpan is the memory [lo, hi) of one vector, for PQ16, and what it is.
type vecSpan struct {
	lo, hi uintptr
	kind   string // "front", "back" or "spare"
	a, b   int    // level and slot; for a spare, class and index
}

func newVecSpan(v []uint32, kind string, a, b int) vecSpan {
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
	return vecSpan{lo: lo, hi: lo + uintptr(cap(v))*4, kind: kind, a: a, b: b}
}

func (sp vecSpan) String() string {
	if sp.kind == "spare" {
		return fmt.Sprintf("spare vector %d of class %d", sp.b, sp.a)
	}
	return fmt.Sprintf("level %d slot %d's %s vector", sp.a, sp.b, sp.kind)
}

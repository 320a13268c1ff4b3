package queue

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/gotimingwheel/timingwheel/invariant"
)

// Invariant checks every invariant of the queue and returns nil or an
// *invariant.Violation naming the first one broken: PQ1-PQ16, and the pool's
// AP1-AP9. docs/invariants.md states each and names the function that checks
// it (checkPQ3 checks PQ3). The order: the geometry (PQ1, PQ2, PQ9); one walk
// over every slot of every level, which checks each entry (PQ5, PQ3, PQ4,
// PQ12), each slot (PQ6, PQ7, PQ13) and each level (PQ7, PQ6) as it passes
// them; the mode (PQ14) and the radix heap of small mode (PQ15); the slot
// vectors' memory (PQ16); the due list (PQ10); the
// queue's counts (PQ6); the cached minimum (PQ8); the pool (AP*); the records
// in use (PQ11). Cost: O(slots + capacity), one pass over the records.
func (q *Queue[T]) Invariant() error {
	if err := q.checkGeometry(); err != nil {
		return err
	}
	onLevels, levelMin, err := q.walkLevels()
	if err != nil {
		return err
	}
	if err := q.checkPQ14(); err != nil {
		return err
	}
	inSmall, smallMin, err := q.checkPQ15()
	if err != nil {
		return err
	}
	if inSmall > 0 && (levelMin < 0 || smallMin < levelMin) {
		levelMin = smallMin
	}
	if err := q.checkPQ16(); err != nil {
		return err
	}
	due, err := q.checkPQ10()
	if err != nil {
		return err
	}
	if err := q.checkPQ6Queue(onLevels+inSmall, due); err != nil {
		return err
	}
	if err := q.checkPQ8(levelMin); err != nil {
		return err
	}
	if err := q.pool.Invariant(); err != nil {
		return err
	}
	return q.checkPQ11()
}

// walkLevels visits every entry of every slot once and runs, as it passes
// them, the checks of one entry (PQ5, PQ3, PQ4, PQ12), of one slot (PQ6, PQ7,
// PQ13) and of one level (PQ7, PQ6). It returns how many elements the levels
// hold and their smallest key (-1 when they hold none), for PQ6 and PQ8.
func (q *Queue[T]) walkLevels() (held int, levelMin int64, err error) {
	levelMin = -1
	for l := range q.levels {
		lv := &q.levels[l]
		count := 0
		for s := range lv.slots {
			if v := &lv.slots[s]; len(v.front) == 0 && len(v.back) == 0 && v.count == 0 && !lv.occupied.has(s) {
				continue // empty by every measure: no check below can fail
			}
			n, slotMin, err := q.walkSlot(l, s)
			if err != nil {
				return 0, 0, err
			}
			if err := q.checkPQ6Slot(l, s, n); err != nil {
				return 0, 0, err
			}
			if err := q.checkPQ7Slot(l, s, n); err != nil {
				return 0, 0, err
			}
			if err := q.checkPQ13(l, s, n, slotMin); err != nil {
				return 0, 0, err
			}
			if n > 0 && (levelMin < 0 || slotMin < levelMin) {
				levelMin = slotMin
			}
			count += n
		}
		if err := q.checkPQ7Unused(l); err != nil {
			return 0, 0, err
		}
		if err := q.checkPQ6Level(l, count); err != nil {
			return 0, 0, err
		}
		held += count
	}
	return held, levelMin, nil
}

// walkSlot runs the checks of one entry (PQ5, PQ3, PQ4, PQ12) on every record
// in slot s of level l, and returns how many the slot holds and their
// smallest key (math.MaxInt64 when it holds none).
func (q *Queue[T]) walkSlot(l, s int) (n int, slotMin int64, err error) {
	v := &q.levels[l].slots[s]
	slotMin = math.MaxInt64
	for half, vec := range [][]uint32{v.front, v.back} {
		for p, i := range vec {
			if i == 0 { // a tombstone
				continue
			}
			pos := uint32(p)
			if half == 0 {
				pos |= frontBit
			}
			key, err := q.checkEntry(l, s, i, pos)
			if err != nil {
				return 0, 0, err
			}
			slotMin = min(slotMin, key)
			n++
		}
	}
	return n, slotMin, nil
}

// checkEntry runs the checks of one entry of a slot: the index i at position
// pos of slot s of level l names a record that knows its position (PQ5), is
// within level l's range with a state naming it (PQ3), in the slot its key
// maps to (PQ4), with a representable time (PQ12). It returns the record's
// key. The whole check runs it on every entry; checked mode's local checks
// on the entries a call wrote and their neighbours.
func (q *Queue[T]) checkEntry(l, s int, i, pos uint32) (key int64, err error) {
	if err := q.checkPQ5(l, s, i, pos); err != nil {
		return 0, err
	}
	lv := &q.levels[l]
	r := q.rec(i)
	key = q.keyOf(r)
	if err := lv.checkPQ3(l, i, r.State(), key); err != nil {
		return 0, err
	}
	if err := lv.checkPQ4(l, s, i, key); err != nil {
		return 0, err
	}
	return key, checkPQ12(i, r.Time)
}

// checkGeometry checks the levels' geometry, which costs O(levels): PQ1,
// PQ2 and PQ9, in that order. Invariant and the local checks both start
// with it.
func (q *Queue[T]) checkGeometry() error {
	if err := q.checkPQ1(); err != nil {
		return err
	}
	if err := q.checkPQ2(); err != nil {
		return err
	}
	if err := q.checkPQ9(); err != nil {
		return err
	}
	return nil
}

// checkPQ1: each level's geometry is the original's: shift_i = s_i, 2^b_i
// slots, keysPerSlot_i = 2^s_i, span_i = 2^(b_i+s_i) - 1 (MaxKey at 62 bits),
// min_i slot-aligned (or MaxKey), max_i = min(min_i + span_i, MaxKey); a level
// in use has 2^b_i slots, counts, a bitmap of as many bits and, above level 0,
// cached minima (PQ13); reach = min(max_top, MaxKey >> shift).
func (q *Queue[T]) checkPQ1() error {
	var bitsPerSlot uint
	for l := range q.levels {
		lv := &q.levels[l]
		nslots := int(lv.mask) + 1
		if lv.slots != nil && len(lv.slots) != nslots || lv.slots == nil && lv.length != 0 {
			return invariant.Errorf("PQ1", "level %d: %d slots, mask %#x, %d elements",
				l, len(lv.slots), lv.mask, lv.length)
		}
		if lv.shift != bitsPerSlot || lv.keysPerSlot != int64(1)<<bitsPerSlot ||
			nslots != 1<<lv.bits || lv.slots != nil && len(lv.occupied) != (nslots+63)/64 {
			return invariant.Errorf("PQ1", "level %d: shift %d (want %d), keysPerSlot %d, %d slots for %d bits",
				l, lv.shift, bitsPerSlot, lv.keysPerSlot, nslots, lv.bits)
		}
		wantSpan := MaxKey
		if lv.bits+lv.shift < 62 {
			wantSpan = int64(1)<<(lv.bits+lv.shift) - 1
		}
		if lv.span != wantSpan {
			return invariant.Errorf("PQ1", "level %d: span %d, want %d", l, lv.span, wantSpan)
		}
		if lv.minKey < 0 || lv.minKey != MaxKey && lv.minKey%lv.keysPerSlot != 0 {
			return invariant.Errorf("PQ1", "level %d: min %d not a multiple of %d", l, lv.minKey, lv.keysPerSlot)
		}
		if lv.maxKey != addClamp(lv.minKey, lv.span) {
			return invariant.Errorf("PQ1", "level %d: max %d, want %d", l, lv.maxKey, addClamp(lv.minKey, lv.span))
		}
		bitsPerSlot += lv.bits
	}
	if want := min(q.levels[len(q.levels)-1].maxKey, MaxKey>>q.shift); q.reach != want {
		return invariant.Errorf("PQ1", "reach %d, want %d (the top level's max, at most %d)", q.reach, want, MaxKey>>q.shift)
	}
	return nil
}

// checkPQ2: consecutive levels leave no gap: for i > 0,
// min_i = floor(max_(i-1) + 1, 2^s_i), or MaxKey if max_(i-1) = MaxKey.
func (q *Queue[T]) checkPQ2() error {
	for l := 1; l < len(q.levels); l++ {
		lv, prev := &q.levels[l], &q.levels[l-1]
		if want := lv.minAfter(prev.maxKey); lv.minKey != want {
			return invariant.Errorf("PQ2", "level %d: min %d, want %d after level %d's max %d",
				l, lv.minKey, want, l-1, prev.maxKey)
		}
	}
	return nil
}

// checkPQ3: every element is within its level's range, and its state names the
// level: e on level l ⇒ min_l <= key(e) <= max_l ∧ e.State = l+1.
func (lv *level) checkPQ3(l int, i uint32, state uint8, key int64) error {
	if state != uint8(l+1) || key < lv.minKey || key > lv.maxKey {
		return invariant.Errorf("PQ3", "record %d (key %d, state %d) at level %d covering [%d, %d]",
			i, key, state, l, lv.minKey, lv.maxKey)
	}
	return nil
}

// checkPQ4: every element is in the slot its key maps to: e in slot s of level
// l ⇒ s = (key(e) >> s_l) mod 2^b_l.
func (lv *level) checkPQ4(l, s int, i uint32, key int64) error {
	if want := lv.slot(key); want != s {
		return invariant.Errorf("PQ4", "record %d key %d in slot %d of level %d, want slot %d",
			i, key, s, l, want)
	}
	return nil
}

// checkPQ5: every record knows its position: the index i at position pos of
// slot s of level l (pos has frontBit set in the front vector) names a record,
// and that record's Next is pos.
func (q *Queue[T]) checkPQ5(l, s int, i, pos uint32) error {
	if int(i) > q.pool.Len() {
		return invariant.Errorf("PQ5", "level %d slot %d holds bad index %d", l, s, i)
	}
	if next := q.rec(i).Next; next != pos {
		return invariant.Errorf("PQ5", "record %d at level %d slot %d position %#x says %#x",
			i, l, s, pos, next)
	}
	return nil
}

// checkPQ6Slot: the counts are right, for one slot: count_l,s is the
// number n of live entries in slot s of level l.
func (q *Queue[T]) checkPQ6Slot(l, s, n int) error {
	if c := q.levels[l].slots[s].count; uint32(n) != c {
		return invariant.Errorf("PQ6", "level %d slot %d count %d, holds %d", l, s, c, n)
	}
	return nil
}

// checkPQ6Level: the counts are right, for one level: length_l is the number
// of elements its slots hold (Σ_s count_l,s, once checkPQ6Slot holds).
func (q *Queue[T]) checkPQ6Level(l, held int) error {
	if lv := &q.levels[l]; lv.length != held {
		return invariant.Errorf("PQ6", "level %d length %d, slots hold %d", l, lv.length, held)
	}
	return nil
}

// checkPQ6Queue: the counts are right, for the queue: the due list's count is
// the number of live entries in it, and Len = Σ_l length_l + |due|. onLevels
// and due are what the levels and the due list hold.
func (q *Queue[T]) checkPQ6Queue(onLevels, due int) error {
	if due != q.dueLen {
		return invariant.Errorf("PQ6", "due list holds %d, count says %d", due, q.dueLen)
	}
	if total := onLevels + due; total != q.length {
		return invariant.Errorf("PQ6", "Len %d, levels and due list hold %d", q.length, total)
	}
	return nil
}

// checkPQ7Slot: the bitmaps agree with the slots, for one slot: bit s of level
// l is set iff the slot holds an element (it holds n).
func (q *Queue[T]) checkPQ7Slot(l, s, n int) error {
	if bit := q.levels[l].occupied.has(s); (n > 0) != bit {
		return invariant.Errorf("PQ7", "level %d slot %d: %d elements, bit %v", l, s, n, bit)
	}
	return nil
}

// checkPQ7Unused: the bitmaps agree with the slots, for a level not in use
// (no slots yet, and normally no bitmap): no bit is set.
func (q *Queue[T]) checkPQ7Unused(l int) error {
	if lv := &q.levels[l]; lv.slots == nil && lv.occupied.count() != 0 {
		return invariant.Errorf("PQ7", "level %d has no slots in use but %d bits set", l, lv.occupied.count())
	}
	return nil
}

// checkPQ8: the cached minimum, when valid, is the smallest key on the levels
// and in small mode's radix heap: minValid ⇒ minKey = levelMin, the smallest key the
// walks found (-1 when they found nothing, which no valid cache can be).
func (q *Queue[T]) checkPQ8(levelMin int64) error {
	if q.minValid && (levelMin < 0 || q.minKey != levelMin) {
		return invariant.Errorf("PQ8", "cached minimum %d, true minimum on the levels %d", q.minKey, levelMin)
	}
	return nil
}

// checkPQ9: level 0 starts at the minimum allowed key:
// 0 <= min_0 = MinAllowedKey <= MaxKey; in small mode, where the levels hold
// nothing and their geometry is brought up lazily, 0 <= min_0 <=
// MinAllowedKey <= MaxKey.
func (q *Queue[T]) checkPQ9() error {
	lags := q.levels[0].minKey < q.minAllowed
	if q.levels[0].minKey < 0 || q.levels[0].minKey > q.minAllowed || lags && !q.small || q.minAllowed > MaxKey {
		return invariant.Errorf("PQ9", "level 0 min %d, MinAllowedKey %d, small mode %v, want 0 <= min = MinAllowedKey <= %d (min <= MinAllowedKey in small mode)",
			q.levels[0].minKey, q.minAllowed, q.small, MaxKey)
	}
	return nil
}

// checkPQ10: the due list is in removal order and holds nothing above the
// minimum: each entry names a record that is due (or still on level 0 with a
// key below MinAllowedKey: CollectTo does not touch them), keys do not
// decrease along the buffer, and none is above MinAllowedKey. The list is
// non-empty only while a removal is under way or after a handler panicked. It
// returns how many records the due list holds, for PQ6.
func (q *Queue[T]) checkPQ10() (due int, err error) {
	if q.duePos < 0 || q.duePos > len(q.dueBuf) {
		return 0, invariant.Errorf("PQ10", "due position %d outside [0, %d]", q.duePos, len(q.dueBuf))
	}
	prevKey := int64(-1)
	for _, i := range q.dueBuf[q.duePos:] {
		if i == 0 { // a tombstone
			continue
		}
		if int(i) > q.pool.Len() {
			return 0, invariant.Errorf("PQ10", "due buffer holds bad index %d", i)
		}
		r := q.rec(i)
		key := q.keyOf(r)
		if !q.isDue(r, key) || key < prevKey || key > q.minAllowed {
			return 0, invariant.Errorf("PQ10", "due record %d: state %d, key %d after key %d, MinAllowedKey %d",
				i, r.State(), key, prevKey, q.minAllowed)
		}
		prevKey = key
		due++
	}
	return due, nil
}

// checkPQ11: no record leaks: the pool's live records are the queue's
// elements and the records whose handler is running.
func (q *Queue[T]) checkPQ11() error {
	if q.pool.Live() != q.length+len(q.firing) {
		return invariant.Errorf("PQ11", "pool has %d live records, queue %d + %d firing",
			q.pool.Live(), q.length, len(q.firing))
	}
	return nil
}

// checkPQ12: times are representable: 0 <= time(e) <= MaxKey.
func checkPQ12(i uint32, time int64) error {
	if time < 0 || time > MaxKey {
		return invariant.Errorf("PQ12", "record %d has time %d", i, time)
	}
	return nil
}

// checkPQ13: a slot's cached minimum, when known, is its smallest key: above
// level 0, an occupied slot's minKey is minUnknown or slotMin, the
// smallest key of its n elements.
func (q *Queue[T]) checkPQ13(l, s, n int, slotMin int64) error {
	if l == 0 || n == 0 {
		return nil
	}
	if m := q.levels[l].slots[s].minKey; m != minUnknown && m != slotMin {
		return invariant.Errorf("PQ13", "level %d slot %d: cached minimum %d, smallest key %d", l, s, m, slotMin)
	}
	return nil
}

// checkPQ14: the mode is consistent: in small mode the levels hold nothing
// and the radix heap at most curCap elements, where smallCap <= curCap <=
// wideCap (smallCap > 0); out of it the radix heap is empty.
func (q *Queue[T]) checkPQ14() error {
	if !q.small {
		if n := q.smallLen(); n != 0 {
			return invariant.Errorf("PQ14", "not in small mode, yet the radix heap holds %d", n)
		}
		return nil
	}
	if q.smallCap <= 0 || q.curCap < q.smallCap || q.curCap > q.wideCap || q.smallLen() > q.curCap {
		return invariant.Errorf("PQ14", "small mode holds %d, cap %d, allowed caps [%d, %d]",
			q.smallLen(), q.curCap, q.smallCap, q.wideCap)
	}
	for l := range q.levels {
		if n := q.levels[l].length; n != 0 {
			return invariant.Errorf("PQ14", "small mode, yet level %d holds %d", l, n)
		}
	}
	return nil
}

// checkPQ15: the radix heap's buckets hold what their counts say and name
// their elements: its base is at most MinAllowedKey; each entry of bucket b
// at position p is a tombstone or names a record in state 1 whose key is the
// entry's, within [MinAllowedKey, MaxAllowedKey], in bucket
// bits.Len64(key XOR base) = b, and whose Next is b << 26 | p; live[b]
// counts the bucket's other entries, an empty bucket has no entries, the
// occupancy word has bit b set iff live[b] > 0 (none at or above the number
// of buckets, at most 63), and n is the sum. It returns n and the smallest
// key.
func (q *Queue[T]) checkPQ15() (n int, smallest int64, err error) {
	r := &q.rad
	if r.last > q.minAllowed {
		return 0, 0, invariant.Errorf("PQ15", "radix base %d above MinAllowedKey %d", r.last, q.minAllowed)
	}
	smallest = math.MaxInt64
	for b := range r.b {
		live, bmin, err := q.walkBucket(b)
		if err != nil {
			return 0, 0, err
		}
		if err := q.checkPQ15Bucket(b, live); err != nil {
			return 0, 0, err
		}
		smallest = min(smallest, bmin)
		n += live
	}
	if r.occ>>len(r.b) != 0 || n != r.n {
		return 0, 0, invariant.Errorf("PQ15", "radix heap: %d elements in %d buckets, counted %d, occupancy %#x",
			n, len(r.b), r.n, r.occ)
	}
	return n, smallest, nil
}

// walkBucket runs the check of one entry (checkPQ15Entry) on every entry of
// bucket b of the radix heap, and returns how many elements it holds and
// their smallest key (math.MaxInt64 when it holds none).
func (q *Queue[T]) walkBucket(b int) (live int, smallest int64, err error) {
	smallest = math.MaxInt64
	maxKey := q.MaxAllowedKey()
	for p, e := range q.rad.b[b].e {
		if e.idx == 0 {
			continue
		}
		if err := q.checkPQ15Entry(b, p, e, maxKey); err != nil {
			return 0, 0, err
		}
		live++
		smallest = min(smallest, e.key)
	}
	return live, smallest, nil
}

// checkPQ15Entry is PQ15 for entry e, not a tombstone, at position p of
// bucket b: it names a record in state 1 whose key is the entry's, within
// [MinAllowedKey, MaxAllowedKey] (maxKey is MaxAllowedKey()), in bucket
// bits.Len64(key XOR base) = b, and whose Next is b << 26 | p.
func (q *Queue[T]) checkPQ15Entry(b, p int, e rent, maxKey int64) error {
	r := &q.rad
	if int(e.idx) > q.pool.Len() {
		return invariant.Errorf("PQ15", "bucket %d position %d holds bad index %d", b, p, e.idx)
	}
	rec := q.rec(e.idx)
	if rec.State() != 1 || q.keyOf(rec) != e.key || rec.Next != rpos(b, p) ||
		e.key < q.minAllowed || e.key > maxKey || r.bucketOf(e.key) != b {
		return invariant.Errorf("PQ15", "bucket %d position %d: record %d (state %d, key %d, Next %#x) under key %d (bucket %d against base %d), allowed [%d, %d]",
			b, p, e.idx, rec.State(), q.keyOf(rec), rec.Next, e.key, r.bucketOf(e.key), r.last, q.minAllowed, maxKey)
	}
	return nil
}

// checkPQ15Bucket is PQ15 for the counts of bucket b, which holds live
// elements: live[b] counts them, an empty bucket has no entries, and the
// occupancy word has bit b set iff it holds any.
func (q *Queue[T]) checkPQ15Bucket(b, live int) error {
	r := &q.rad
	if live != int(r.b[b].live) || live == 0 && len(r.b[b].e) != 0 || (r.occ>>b&1 == 1) != (live > 0) {
		return invariant.Errorf("PQ15", "bucket %d: %d elements in %d entries, counted %d, occupancy bit %d",
			b, live, len(r.b[b].e), r.b[b].live, r.occ>>b&1)
	}
	return nil
}

// checkPQ16: the slot vectors own their memory: an allocated level has an
// arena of slotStart entries per slot; each slot's back vector is its own
// arena chunk (starting at entry s·slotStart, capacity slotStart) or a
// vector of capacity vecBase·2^k, and its front vector has no capacity
// (nil) or is such a vector; spare[k] holds only empty vectors of capacity
// vecBase·2^k; and no two of these vectors and arenas share memory, so that
// no slot writes into another's entries. Cost: O(slots + v log v) for v
// vectors outside the arenas.
func (q *Queue[T]) checkPQ16() error {
	var spans []vecSpan
	for l := range q.levels {
		lv := &q.levels[l]
		if len(lv.arena) != len(lv.slots)*slotStart || lv.slots == nil && lv.arena != nil {
			return invariant.Errorf("PQ16", "level %d: arena of %d entries for %d slots", l, len(lv.arena), len(lv.slots))
		}
		if lv.arena != nil {
			spans = append(spans, newVecSpan(lv.arena, vecArena, l, 0))
		}
		for s := range lv.slots {
			v := &lv.slots[s]
			if cap(v.front) != 0 {
				spans = append(spans, newVecSpan(v.front, vecFront, l, s))
			}
			if cap(v.back) != slotStart || vecAddr(v.back) != vecAddr(lv.arena[s*slotStart:]) {
				spans = append(spans, newVecSpan(v.back, vecBack, l, s))
			}
		}
	}
	for k, st := range q.spare {
		for j, v := range st {
			if len(v) != 0 || cap(v) != vecBase<<k {
				return invariant.Errorf("PQ16", "spare vector %d of class %d: length %d, capacity %d, want 0 and %d",
					j, k, len(v), cap(v), vecBase<<k)
			}
			spans = append(spans, newVecSpan(v, vecSpare, k, j))
		}
	}
	for _, sp := range spans {
		if c := sp.cap(); sp.kind != vecArena && !vecCapOK(c) {
			return invariant.Errorf("PQ16", "%v: capacity %d, want %d·2^k", sp, c, vecBase)
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

// vecCapOK reports whether c is a capacity a slot vector outside the
// arenas may have: vecBase·2^k for some k >= 0 (PQ16).
func vecCapOK(c int) bool { return c >= vecBase && c&(c-1) == 0 }

// vecSpan is the memory of one vector or arena, for PQ16: addresses
// [lo, hi), and what it is.
type vecSpan struct {
	lo, hi uintptr
	kind   uint8 // vecArena, vecFront, vecBack or vecSpare
	a, b   int   // level and slot; for a spare, class and index
}

const (
	vecArena = iota
	vecFront
	vecBack
	vecSpare
)

func newVecSpan(v []uint32, kind uint8, a, b int) vecSpan {
	lo := vecAddr(v)
	return vecSpan{lo: lo, hi: lo + uintptr(cap(v))*4, kind: kind, a: a, b: b}
}

// vecAddr is the address of v's first entry (v has capacity).
func vecAddr(v []uint32) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(v))) }

func (sp vecSpan) cap() int { return int(sp.hi-sp.lo) / 4 }

func (sp vecSpan) String() string {
	switch sp.kind {
	case vecArena:
		return fmt.Sprintf("level %d's arena", sp.a)
	case vecFront:
		return fmt.Sprintf("level %d slot %d's front vector", sp.a, sp.b)
	case vecBack:
		return fmt.Sprintf("level %d slot %d's back vector (not its arena chunk)", sp.a, sp.b)
	}
	return fmt.Sprintf("spare vector %d of class %d", sp.b, sp.a)
}

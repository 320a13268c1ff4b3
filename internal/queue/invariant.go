package queue

import (
	"math"

	"github.com/gotimingwheel/timingwheel/internal/pool"
	"github.com/gotimingwheel/timingwheel/invariant"
)

// Invariant checks every invariant of the queue and returns nil or an
// *invariant.Violation naming the first one broken (IDs PQ1-PQ13, and the
// pool's AP1-AP6; docs/invariants.md states each). Cost: O(slots + capacity).
//
//	PQ1  level geometry: s_i = b_0+...+b_(i-1), 2^b_i slots, keysPerSlot = 2^s_i,
//	     span = 2^(b_i+s_i)-1 (MaxKey at 62 bits), min_i slot-aligned (or MaxKey),
//	     max_i = min(min_i + span, MaxKey)
//	PQ2  no gap: min_i = floor(max_(i-1)+1, 2^s_i) (MaxKey if max_(i-1) = MaxKey)
//	PQ3  every element at level i has min_i <= key <= max_i, and its state says i
//	PQ4  every element sits in the slot its key maps to
//	PQ5  positions: each record's Next is its position in its slot's vectors,
//	     and every index in a slot names a record
//	PQ6  per-slot counts and level lengths are right; Len = sum of levels +
//	     due list
//	PQ7  bitmap bit s is set iff slot s is not empty
//	PQ8  cached minimum: when valid, equals the smallest key on the levels
//	PQ9  0 <= min_0 = MinAllowedKey <= MaxKey
//	PQ10 due list: elements in state due (or on level 0 with a key below
//	     MinAllowedKey: CollectTo does not touch them), keys non-decreasing, none above
//	     MinAllowedKey (it is non-empty only while a removal is under way or
//	     after a handler panicked)
//	PQ11 pool: live records = Len + records whose handler is running; AP1-AP6
//	PQ12 every element's time is in [0, MaxKey]
//	PQ13 cached slot minimum: at levels >= 1, an occupied slot's cached
//	     minimum is unknown (-1) or equals the smallest key in the slot
func (q *Queue[T]) Invariant() error {
	var bitsPerSlot uint
	for l := range q.levels {
		lv := &q.levels[l]
		nslots := int(lv.mask) + 1
		wantMins := nslots
		if l == 0 || lv.slots == nil {
			wantMins = 0
		}
		if lv.slots != nil && (len(lv.slots) != nslots || len(lv.slotLen) != nslots) || lv.slots == nil && (lv.slotLen != nil || lv.length != 0) ||
			len(lv.slotMinKey) != wantMins {
			return invariant.Errorf("PQ1", "level %d: %d slots, %d counts, %d cached minima, mask %#x",
				l, len(lv.slots), len(lv.slotLen), len(lv.slotMinKey), lv.mask)
		}
		if lv.shift != bitsPerSlot || lv.keysPerSlot != int64(1)<<bitsPerSlot ||
			nslots != 1<<lv.bits || len(lv.occupied) != (nslots+63)/64 {
			return invariant.Errorf("PQ1", "level %d: shift %d (want %d), keysPerSlot %d, %d slots for %d bits",
				l, lv.shift, bitsPerSlot, lv.keysPerSlot, nslots, lv.bits)
		}
		wantDiff := MaxKey
		if lv.bits+lv.shift < 62 {
			wantDiff = int64(1)<<(lv.bits+lv.shift) - 1
		}
		if lv.span != wantDiff {
			return invariant.Errorf("PQ1", "level %d: span %d, want %d", l, lv.span, wantDiff)
		}
		if lv.minKey < 0 || lv.minKey != MaxKey && lv.minKey%lv.keysPerSlot != 0 {
			return invariant.Errorf("PQ1", "level %d: min %d not a multiple of %d", l, lv.minKey, lv.keysPerSlot)
		}
		if lv.maxKey != addClamp(lv.minKey, lv.span) {
			return invariant.Errorf("PQ1", "level %d: max %d, want %d", l, lv.maxKey, addClamp(lv.minKey, lv.span))
		}
		if l > 0 {
			prev := &q.levels[l-1]
			if want := lv.minAfter(prev.maxKey); lv.minKey != want {
				return invariant.Errorf("PQ2", "level %d: min %d, want %d after level %d's max %d",
					l, lv.minKey, want, l-1, prev.maxKey)
			}
		}
		bitsPerSlot += lv.bits
	}

	if q.levels[0].minKey < 0 || q.levels[0].minKey != q.minAllowed || q.minAllowed > MaxKey {
		return invariant.Errorf("PQ9", "level 0 min %d, MinAllowedKey %d, want 0 <= min = MinAllowedKey <= %d",
			q.levels[0].minKey, q.minAllowed, MaxKey)
	}

	total := 0
	trueMin := int64(-1)
	note := func(key int64) {
		if trueMin < 0 || key < trueMin {
			trueMin = key
		}
	}
	// checkElt checks one element found in slot s of level l.
	checkElt := func(l, s int, i uint32, r *pool.Record[T]) error {
		lv := &q.levels[l]
		key := q.keyOf(r)
		if r.State != uint8(l+1) || key < lv.minKey || key > lv.maxKey {
			return invariant.Errorf("PQ3", "record %d (key %d, state %d) at level %d covering [%d, %d]",
				i, key, r.State, l, lv.minKey, lv.maxKey)
		}
		if lv.slot(key) != s {
			return invariant.Errorf("PQ4", "record %d key %d in slot %d of level %d, want slot %d",
				i, key, s, l, lv.slot(key))
		}
		if r.Time < 0 || r.Time > MaxKey {
			return invariant.Errorf("PQ12", "record %d has time %d", i, r.Time)
		}
		note(key)
		return nil
	}

	// Every level: slot vectors with tombstones; a record's Next is its position.
	for l := range q.levels {
		lv := &q.levels[l]
		count := 0
		for s := range lv.slots {
			v := &lv.slots[s]
			n := 0
			slotMin := int64(math.MaxInt64)
			for half, vec := range [][]uint32{v.front, v.back} {
				for p, i := range vec {
					if i == 0 {
						continue
					}
					if int(i) > q.pool.Len() {
						return invariant.Errorf("PQ5", "level %d slot %d holds bad index %d", l, s, i)
					}
					r := q.rec(i)
					if err := checkElt(l, s, i, r); err != nil {
						return err
					}
					slotMin = min(slotMin, q.keyOf(r))
					want := uint32(p)
					if half == 0 {
						want |= frontBit
					}
					if r.Next != want {
						return invariant.Errorf("PQ5", "record %d at level %d slot %d position %#x says %#x",
							i, l, s, want, r.Next)
					}
					n++
				}
			}
			if uint32(n) != lv.slotLen[s] {
				return invariant.Errorf("PQ6", "level %d slot %d count %d, holds %d", l, s, lv.slotLen[s], n)
			}
			if (n > 0) != lv.occupied.has(s) {
				return invariant.Errorf("PQ7", "level %d slot %d: %d elements, bit %v", l, s, n, lv.occupied.has(s))
			}
			if n > 0 && l > 0 && lv.slotMinKey[s] != minUnknown && lv.slotMinKey[s] != slotMin {
				return invariant.Errorf("PQ13", "level %d slot %d: cached minimum %d, smallest key %d",
					l, s, lv.slotMinKey[s], slotMin)
			}
			count += n
		}
		if lv.slots == nil && lv.occupied.count() != 0 {
			return invariant.Errorf("PQ7", "level %d has no slots in use but %d bits set", l, lv.occupied.count())
		}
		if count != lv.length {
			return invariant.Errorf("PQ6", "level %d length %d, slots hold %d", l, lv.length, count)
		}
		total += count
	}

	levelMin := trueMin
	dueN := 0
	prevKey := int64(-1)
	if q.duePos < 0 || q.duePos > len(q.dueBuf) {
		return invariant.Errorf("PQ10", "due position %d outside [0, %d]", q.duePos, len(q.dueBuf))
	}
	for _, i := range q.dueBuf[q.duePos:] {
		if i == 0 {
			continue
		}
		if int(i) > q.pool.Len() {
			return invariant.Errorf("PQ10", "due buffer holds bad index %d", i)
		}
		r := q.rec(i)
		key := q.keyOf(r)
		if !q.isDue(r, key) || key < prevKey || key > q.minAllowed {
			return invariant.Errorf("PQ10", "due record %d: state %d, key %d after key %d, MinAllowedKey %d",
				i, r.State, key, prevKey, q.minAllowed)
		}
		prevKey = key
		dueN++
	}
	if dueN != q.dueLen {
		return invariant.Errorf("PQ6", "due list holds %d, count says %d", dueN, q.dueLen)
	}
	total += dueN
	if total != q.length {
		return invariant.Errorf("PQ6", "Len %d, levels and due list hold %d", q.length, total)
	}
	if q.minValid && (levelMin < 0 || q.minKey != levelMin) {
		return invariant.Errorf("PQ8", "cached minimum %d, true minimum on the levels %d", q.minKey, levelMin)
	}
	if err := q.pool.Invariant(); err != nil {
		return err
	}
	if q.pool.Live() != q.length+len(q.firing) {
		return invariant.Errorf("PQ11", "pool has %d live records, queue %d + %d firing",
			q.pool.Live(), q.length, len(q.firing))
	}
	return nil
}

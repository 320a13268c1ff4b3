package queue

import (
	"math/bits"

	"github.com/gotimingwheel/timingwheel/internal/checked"
	"github.com/gotimingwheel/timingwheel/internal/pool"
)

// The slots' vectors and their recycling: docs/design.md, "Levels and
// slots"; PQ5, PQ16.

// frontBit marks, in a record's Pos, a position in its slot's front vector.
const frontBit = 1 << 31

// slot is one slot of a level, 64 bytes: its elements in order, front (read
// from the end) then back, with tombstones (0).
type slot struct {
	front  []uint32 // put ahead by cascades; in order from the end
	back   []uint32 // added; in order from the start
	minKey int64    // levels >= 1, occupied slot: its smallest key, or minUnknown (unused on level 0)
	count  uint32   // live records (entries other than tombstones)
}

// minUnknown marks a slot whose smallest key is not cached (slot.minKey).
const minUnknown = -1

// put puts record i (r), of key key, in slot s of level l: at the back, or
// (ahead) before every element there. It allocates the level on first use.
func (q *Queue[T]) put(l, s int, i uint32, r *pool.Record[T], key int64, ahead bool) {
	lv := &q.levels[l]
	if lv.slots == nil {
		q.allocLevel(l)
	}
	v := &lv.slots[s]
	if l > 0 && (v.count == 0 || v.minKey != minUnknown && key < v.minKey) {
		v.minKey = key
	}
	n := len(v.front) + len(v.back)
	if n >= compactMin && n > 2*int(v.count) {
		q.compact(l, s)
	}
	if ahead {
		if len(v.front) == cap(v.front) {
			v.front = q.grow(v.front)
		}
		r.Pos = frontBit | uint32(len(v.front))
		v.front = append(v.front, i)
	} else {
		if len(v.back) == cap(v.back) {
			v.back = q.grow(v.back)
		}
		r.Pos = uint32(len(v.back))
		v.back = append(v.back, i)
	}
	r.SetState(uint8(l + 1))
	v.count++
	lv.occupied.set(s)
	lv.length++
	if checked.On {
		q.chk.entry(l, s, r.Pos)
	}
}

// vecClass returns the smallest k with vecBase·2^k >= n >= 1.
func vecClass(n int) int { return bits.Len(uint(n-1) / vecBase) }

// grow returns v's entries in a vector of twice the room, at least vecBase.
func (q *Queue[T]) grow(v []uint32) []uint32 { return q.growTo(v, max(vecBase, 2*cap(v))) }

// growTo returns v's entries in a vector of capacity vecBase·2^k >= n, a
// spare if there is one; v goes to the spares.
func (q *Queue[T]) growTo(v []uint32, n int) []uint32 {
	k := vecClass(n)
	var w []uint32
	if k < len(q.spare) && len(q.spare[k]) > 0 {
		st := q.spare[k]
		w = st[len(st)-1][:len(v)]
		st[len(st)-1] = nil
		q.spare[k] = st[:len(st)-1]
	} else {
		w = make([]uint32, len(v), vecBase<<k)
	}
	copy(w, v)
	q.recycle(v)
	return w
}

// recycle puts v, which no slot holds any more, among the spares.
func (q *Queue[T]) recycle(v []uint32) {
	if cap(v) == 0 {
		return
	}
	k := vecClass(cap(v))
	for len(q.spare) <= k {
		q.spare = append(q.spare, nil)
	}
	q.spare[k] = append(q.spare[k], v[:0])
}

// vacate gives the vectors of more than keepMax entries of slot s of level
// lv, which holds no element any more, to the spares.
func (q *Queue[T]) vacate(lv *level, s int) {
	v := &lv.slots[s]
	if cap(v.front) > keepMax {
		q.recycle(v.front)
		v.front = nil
	}
	if cap(v.back) > keepMax {
		q.recycle(v.back)
		v.back = nil
	}
	v.front, v.back = v.front[:0], v.back[:0]
}

func (q *Queue[T]) allocLevel(l int) {
	lv := &q.levels[l]
	n := int(lv.mask) + 1
	lv.slots = make([]slot, n)
	lv.occupied = newBitmap(n)
}

// del takes record r out of slot s of level l, leaving a tombstone.
func (q *Queue[T]) del(l, s int, r *pool.Record[T]) {
	lv := &q.levels[l]
	v := &lv.slots[s]
	if p := r.Pos; p&frontBit != 0 {
		v.front[p&^frontBit] = 0
	} else {
		v.back[p] = 0
	}
	if l > 0 && lv.slots[s].minKey == q.keyOf(r) {
		lv.slots[s].minKey = minUnknown
	}
	lv.slots[s].count--
	lv.length--
	if lv.slots[s].count == 0 {
		q.vacate(lv, s)
		lv.occupied.unset(s)
	}
	if checked.On {
		q.chk.slot(l, s)
	}
}

// each calls f on the records of slot s of level l in order until f returns
// false. f must not change the slot.
func (q *Queue[T]) each(l, s int, f func(i uint32) bool) {
	lv := &q.levels[l]
	if lv.slots == nil {
		return
	}
	v := &lv.slots[s]
	for j := len(v.front) - 1; j >= 0; j-- {
		if i := v.front[j]; i != 0 && !f(i) {
			return
		}
	}
	for _, i := range v.back {
		if i != 0 && !f(i) {
			return
		}
	}
}

// compact rewrites slot s of level l without tombstones, all in back.
func (q *Queue[T]) compact(l, s int) {
	v := &q.levels[l].slots[s]
	tmp := q.scratch[:0]
	q.each(l, s, func(i uint32) bool { tmp = append(tmp, i); return true })
	if cap(v.front) != 0 {
		q.recycle(v.front)
		v.front = nil
	}
	if len(tmp) > cap(v.back) {
		v.back = q.growTo(v.back[:0], len(tmp))
	}
	v.back = append(v.back[:0], tmp...)
	for p, i := range v.back {
		q.rec(i).Pos = uint32(p)
	}
	q.scratch = tmp[:0]
}

// empty resets slot s of level l, whose elements have all been moved away.
func (q *Queue[T]) empty(l, s int) {
	lv := &q.levels[l]
	q.vacate(lv, s)
	lv.length -= int(lv.slots[s].count)
	lv.slots[s].count = 0
	lv.occupied.unset(s)
	if checked.On {
		q.chk.slot(l, s)
	}
}

// take moves level-0 slot s's records, in order, to the due buffer without
// touching them (isDue), and returns how many.
func (q *Queue[T]) take(s int) int {
	v := &q.levels[0].slots[s]
	for j := len(v.front) - 1; j >= 0; j-- {
		if i := v.front[j]; i != 0 {
			q.dueBuf = append(q.dueBuf, i)
		}
	}
	for _, i := range v.back {
		if i != 0 {
			q.dueBuf = append(q.dueBuf, i)
		}
	}
	c := int(q.levels[0].slots[s].count)
	q.empty(0, s)
	q.dueLen += c
	return c
}

// dueHead returns the next record the due buffer fires, or 0.
func (q *Queue[T]) dueHead() uint32 {
	for q.duePos < len(q.dueBuf) {
		if i := q.dueBuf[q.duePos]; i != 0 {
			return i
		}
		q.duePos++
	}
	return 0
}

// dueDel takes record i out of the due buffer (a rare path), leaving a
// tombstone.
func (q *Queue[T]) dueDel(i uint32) {
	for j := q.duePos; j < len(q.dueBuf); j++ {
		if q.dueBuf[j] == i {
			q.dueBuf[j] = 0
			q.dueLen--
			return
		}
	}
	panic("priorityqueue: due record not in the due buffer")
}

// toDue appends record i, already taken out of its slot, to the due list.
func (q *Queue[T]) toDue(i uint32) {
	q.rec(i).SetState(pool.StateDue)
	q.dueBuf = append(q.dueBuf, i)
	q.dueLen++
	q.minValid = false
}

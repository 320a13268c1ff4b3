package queue

import (
	"math/bits"

	"github.com/gotimingwheel/timingwheel/internal/checked"
	"github.com/gotimingwheel/timingwheel/internal/pool"
)

// Every slot keeps its records' indices in contiguous vectors, not in linked
// lists. Adds land in a slot, and fires and cascades walk one; with a linked
// list each step is a serial cache miss (the next record's address is in the
// current one), while with a vector the next indices are known in advance and
// the CPU overlaps the misses. The same holds for the due list, a buffer.
//
// A slot's order is front, read from the end, then back, read from the
// start. Adds append to back. A cascade puts each element ahead of everything
// already in its new slot: it appends to front, or to back when the slot is
// empty (ahead of nothing is the back, and back has capacity from the level's
// arena), so back may hold cascaded elements too. A removed element leaves a
// tombstone (index 0); a slot is compacted when tombstones outnumber its
// elements three to one (compactRatio), and emptied when its last element
// leaves or it is fired or cascaded. A record's Next holds its position: the
// index in back, or frontBit | the index in front.
//
// The vectors are recycled. A back vector starts in its slot's chunk of the
// level's arena (slotStart entries); a vector grows by doubling, to
// capacities vecBase·2^k, and takes its new array from the queue's spare
// vectors when one of that capacity is there. A slot that empties gives
// its vectors larger than 32 entries to the spares (vacate; the back
// vector returns to its arena chunk), and a growth gives the array it
// leaves. So the large vectors are shared: their memory is, for each
// capacity, the most the slots and the growths in flight have needed at
// once (the spares keep that many), not the sum of each slot's own peak,
// and a wheel that has seen its largest load allocates nothing more. Kept
// per slot instead, the large vectors that move among the slots as the
// minimum sweeps the levels would give every slot, one by one, a large
// vector of its own, and a HOLD wheel many times the memory per alarm
// (PQ16).

const frontBit = 1 << 31

// slot is one slot of a level.
//
// Everything a put, a removal or a take reads of one slot sits in this one
// 64-byte struct, one cache line on 64-bit targets when the level's slot
// array is line-aligned (Go allocates arrays of 32 KiB or more, such as a
// level of 512 slots or more, page-aligned), rather than in parallel
// per-level arrays of counts and minima, which cost a cache miss each on a
// random slot.
type slot struct {
	front  []uint32 // put ahead by cascades into a non-empty slot; in order from the end
	back   []uint32 // added, or cascaded into an empty slot; in order from the start
	minKey int64    // levels >= 1, occupied slot: its smallest key, or minUnknown (unused on level 0)
	count  uint32   // live records (entries other than tombstones)
}

// minUnknown marks a slot whose smallest key is not cached (slot.minKey).
const minUnknown = -1

// put puts record i, whose key is key, in slot s of level l: at the back, or
// (ahead) before every element already there. It allocates the level's slots on
// first use.
func (q *Queue[T]) put(l, s int, i uint32, key int64, ahead bool) {
	lv := &q.levels[l]
	if lv.slots == nil {
		q.allocLevel(l)
	}
	if l > 0 {
		// The slot's cached minimum: the key itself in an empty slot, else
		// the smaller of the two, unless it is unknown.
		if m := lv.slots[s].minKey; lv.slots[s].count == 0 || m != minUnknown && key < m {
			lv.slots[s].minKey = key
		}
	}
	v := &lv.slots[s]
	n := len(v.front) + len(v.back)
	if n >= 32 && n > compactRatio*int(lv.slots[s].count) {
		q.compact(l, s)
	}
	r := q.rec(i)
	// Ahead of nothing is the back: a cascade into an empty slot (the common
	// case: a slot's elements spread over many lower slots) then uses the
	// back vector, carved from the level's arena, instead of growing the
	// slot's front vector from nothing (an allocation, and a scattered one).
	if ahead && n != 0 {
		if len(v.front) == cap(v.front) {
			// A cascade puts a batch ahead in most slots it reaches: a
			// front vector starts at frontStart.
			v.front = q.grow(v.front, frontStart)
		}
		r.Next = frontBit | uint32(len(v.front))
		v.front = append(v.front, i)
	} else {
		if len(v.back) == cap(v.back) {
			v.back = q.grow(v.back, vecBase)
		}
		r.Next = uint32(len(v.back))
		v.back = append(v.back, i)
	}
	r.SetState(uint8(l + 1))
	lv.slots[s].count++
	lv.occupied.set(s)
	lv.length++
	if checked.On {
		q.chk.entry(l, s, r.Next)
	}
}

// compactRatio: a slot of 32 entries or more is compacted when it holds more
// than compactRatio entries per element, so when tombstones outnumber its
// elements compactRatio-1 to one. A compaction writes the position of every
// element it keeps into the element's record, a cache miss each in a large
// wheel; waiting for three tombstones per element instead of one makes
// those writes a third as many (TIMEOUT removes most of what it adds).
// The price is memory in slots that see removals: after a put, a slot holds
// at most 3 tombstones per element instead of 1 (12 bytes instead of 4), and
// its vector keeps that capacity. Removals alone never compact, under either
// rule: a slot emptied by removals but for one element keeps every tombstone
// until its next put.
const compactRatio = 4

// frontStart is the capacity a slot's front vector starts with when a
// cascade first puts an element ahead in it.
const frontStart = 16

// slotStart is the capacity of the back vector every slot starts with, carved
// out of one allocation per level (the level's arena) so that a new wheel
// does not allocate once per slot.
const slotStart = 4

// vecBase is the smallest capacity of a vector outside the arenas: every such
// vector has capacity vecBase·2^k for some k >= 0, and q.spare[k] holds the
// spare ones of that capacity.
const vecBase = 8

// keepBack and keepFront are the largest back and front vectors a slot keeps
// when it empties; larger ones go to the spares. A slot that holds a few
// dozen elements in each turn of the wheel (HOLD at 1e4 alarms: about 10
// per level-0 slot near the minimum, some put ahead by cascades) would
// otherwise take two or three vectors from the spares and give them back
// in every turn. What a slot keeps, at most 256 bytes, is allocated once per
// slot; the vectors that a few slots at a time need, the large ones, move.
const (
	keepBack  = 32
	keepFront = 32
)

// vecClass returns the k for which vecBase·2^k is the smallest such capacity
// of at least n.
func vecClass(n int) int {
	if n <= vecBase {
		return 0
	}
	return bits.Len(uint(n-1)) - 3 // vecBase = 2^3
}

// grow returns a vector holding v's entries with room for at least one more:
// of capacity minCap, or twice v's (each rounded up to vecBase·2^k), taken
// from the spares when there is one. v goes to the spares (recycle).
func (q *Queue[T]) grow(v []uint32, minCap int) []uint32 {
	return q.growTo(v, max(minCap, 2*cap(v)))
}

// growTo returns a vector holding v's entries, of capacity vecBase·2^k >= n,
// taken from the spares when there is one; v goes to the spares.
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

// recycle puts v, which no slot holds any more, among the spares, unless it
// is an arena chunk (capacity at most slotStart), which stays its slot's.
func (q *Queue[T]) recycle(v []uint32) {
	c := cap(v)
	if c <= slotStart {
		return
	}
	k := bits.TrailingZeros(uint(c)) - 3
	for len(q.spare) <= k {
		q.spare = append(q.spare, nil)
	}
	q.spare[k] = append(q.spare[k], v[:0])
}

// vacate gives the grown vectors of slot s of level lv, which holds no
// element any more, to the spares, and points its back vector at its arena
// chunk again; a back vector of up to keepBack entries and a front vector of
// up to keepFront stay.
func (q *Queue[T]) vacate(lv *level, s int) {
	v := &lv.slots[s]
	if cap(v.front) > keepFront {
		q.recycle(v.front)
		v.front = nil
	} else {
		v.front = v.front[:0]
	}
	if cap(v.back) > keepBack {
		q.recycle(v.back)
		v.back = lv.chunk(s)
	} else {
		v.back = v.back[:0]
	}
}

// chunk returns slot s's chunk of the level's arena, empty.
func (lv *level) chunk(s int) []uint32 {
	return lv.arena[s*slotStart : s*slotStart : (s+1)*slotStart]
}

// allocLevel allocates the slots of level l on its first use.
func (q *Queue[T]) allocLevel(l int) {
	lv := &q.levels[l]
	n := int(lv.mask) + 1
	lv.slots = make([]slot, n)
	lv.occupied = newBitmap(n)
	lv.arena = make([]uint32, n*slotStart)
	for s := range lv.slots {
		lv.slots[s].back = lv.chunk(s)
	}
}

// del takes record i out of slot s of level l, leaving a tombstone.
func (q *Queue[T]) del(l, s int, i uint32) {
	lv := &q.levels[l]
	v := &lv.slots[s]
	r := q.rec(i)
	if p := r.Next; p&frontBit != 0 {
		v.front[p&^frontBit] = 0
	} else {
		v.back[p] = 0
	}
	if l > 0 && lv.slots[s].minKey == q.keyOf(r) {
		lv.slots[s].minKey = minUnknown // the minimum may have left; the next query walks the slot
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

// compact rewrites slot s of level l without tombstones, all in back, in
// order, and records the new positions.
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
		q.rec(i).Next = uint32(p)
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

// take appends the records of level-0 slot s, in order, to the due buffer and
// empties the slot, without touching the records: they keep saying "level 0",
// and their keys, below MinAllowedKey once CollectTo ends, say they are due
// (isDue). It returns how many it moved.
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

// dueDel takes record i out of the due buffer (a rare path: a handler
// removing or rescheduling an alarm that is due), leaving a tombstone.
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

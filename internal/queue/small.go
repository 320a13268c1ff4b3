package queue

import (
	"cmp"
	"slices"
)

// Small mode. A queue that holds few elements keeps them in one 4-ary heap
// instead of on the levels: the levels' slot arrays (2^b_i slots each, 64
// bytes a slot) cost kilobytes per level before the first element, and an
// element whose key lies beyond level 0's range is moved down once or more
// (a cascade, with a cache miss on a slot and on the record each time) before
// it is removed. In the heap an Add is a sift-up (O(1) on average for random
// keys), a removal a sift-down over log_4(n) levels, and the minimum is always
// at the root.
//
// Each heap entry is 16 bytes: its order word and its record index, so that
// the sifts compare one integer and load no record, and the four children of
// a node share one 64-byte line when the array is line-aligned (Go gives a
// power-of-two size class that alignment; the heap grows by doubling). The
// order word is (key - heapBase) << 32 | seq: heapBase is at most
// MinAllowedKey, so the offset is not negative, and keys more than 2^32 - 1
// above it do not fit (such an Add spills; see heapFits). seq is taken from a
// counter at every Add or Change, so equal keys leave in the order they were
// added or changed (PQ-ORDER). When the counter would wrap, the entries are
// renumbered in order (renumber).
//
// The queue starts in small mode when its level 0 is large enough for the
// levels to cost more than the heap (smallCapFor). An Add that finds the heap
// full (heapCap elements) either doubles heapCap, up to wideCapFor(b_0), when
// more than half the keys lie beyond level 0's range (the levels would
// cascade most elements: the heap is cheaper), or else spills: it moves every
// element to the levels in (key, seq) order and leaves small mode. The queue
// returns to small mode, with heapCap back at smallCap, at the first Add after
// the levels have emptied. The level geometry (minimum, maximum,
// MaxAllowedKey) moves with MinAllowedKey in both modes, so which mode a queue
// is in changes no result. The levels' slot arrays, once allocated, are kept
// (a queue that goes back and forth allocates nothing more); Shrink releases
// them.
//
// The heap's records are in state 1, as if on level 0, so the due-list test
// (isDue: state 1 and a key below MinAllowedKey) applies to elements CollectTo
// pops out of the heap without touching their records, as it does to level
// 0's. A record's Next is its position in the heap.

// hent is one entry of the small heap.
type hent struct {
	ord uint64 // (key - heapBase) << 32 | seq: the heap order
	idx uint32 // the element's record
}

// heapKey returns the key of heap entry e.
func (q *Queue[T]) heapKey(e *hent) int64 { return q.heapBase + int64(e.ord>>32) }

// heapSeqOf returns the sequence number of heap entry e.
func heapSeqOf(e *hent) uint32 { return uint32(e.ord) }

// smallMax is the most elements small mode holds however its keys lie.
const smallMax = 128

// wideMax is the most elements small mode holds while its keys are spread
// beyond level 0.
const wideMax = 1024

// smallCapFor returns how many elements small mode holds for a level 0 of
// 2^b0 slots: up to one eighth of the slots, at most smallMax, and 0 (no
// small mode) below 8 slots, where the levels are small anyway.
func smallCapFor(b0 uint) int {
	if b0 >= 11 {
		return smallMax
	}
	return min(smallMax, 1<<b0>>3)
}

// wideCapFor returns the most elements small mode holds, for a level 0 of
// 2^b0 slots, while more than half its keys lie beyond level 0: twice the
// slots, at most wideMax, and never below smallCapFor(b0).
func wideCapFor(b0 uint) int {
	if b0 >= 11 {
		return wideMax
	}
	return max(smallCapFor(b0), min(wideMax, 2<<b0))
}

// smallLen returns the number of elements in the small heap.
func (q *Queue[T]) smallLen() int { return len(q.heap) }

// heapSet puts e at position p and records the position in e's record.
func (q *Queue[T]) heapSet(p int, e hent) {
	q.heap[p] = e
	q.rec(e.idx).Next = uint32(p)
}

// siftUp moves entry e, for position p, towards the root to its place.
func (q *Queue[T]) siftUp(p int, e hent) {
	h, recs := q.heap, q.pool.Records()
	for p > 0 {
		parent := (p - 1) >> 2
		if e.ord >= h[parent].ord {
			break
		}
		h[p] = h[parent]
		recs[h[p].idx].Next = uint32(p)
		p = parent
	}
	h[p] = e
	recs[e.idx].Next = uint32(p)
}

// siftDown moves entry e, for position p, towards the leaves to its place.
func (q *Queue[T]) siftDown(p int, e hent) {
	h, recs := q.heap, q.pool.Records()
	n := len(h)
	for {
		c := 4*p + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < min(c+4, n); k++ {
			if h[k].ord < h[m].ord {
				m = k
			}
		}
		if h[m].ord >= e.ord {
			break
		}
		h[p] = h[m]
		recs[h[p].idx].Next = uint32(p)
		p = m
	}
	h[p] = e
	recs[e.idx].Next = uint32(p)
}

// heapRemoveAt takes the entry at position p out of the heap and returns its
// record index.
func (q *Queue[T]) heapRemoveAt(p int) uint32 {
	h := q.heap
	i := h[p].idx
	last := len(h) - 1
	e := h[last]
	h = h[:last]
	q.heap = h
	switch {
	case last == 0:
		q.heapSeq = 0 // nothing left to order against: restart the counter
	case p == 0:
		q.popRoot(e)
	case p < last:
		if e.ord < h[(p-1)>>2].ord {
			q.siftUp(p, e)
		} else {
			q.siftDown(p, e)
		}
	}
	return i
}

// popRoot fills the root's place, just emptied, with e, the entry taken from
// the end: it moves the hole down to a leaf along the smallest children, then
// puts e there and sifts it up (e came from the bottom, so it seldom moves):
// three comparisons a level instead of four. Where all four children exist,
// the smallest is found by a tournament of independent comparisons, which
// the compiler turns into conditional moves instead of branches that random
// keys mispredict half of the time.
func (q *Queue[T]) popRoot(e hent) {
	h, recs := q.heap, q.pool.Records()
	n := len(h)
	p := 0
	for {
		c := 4*p + 1
		if c+4 > n {
			break
		}
		g := h[c : c+4 : c+4]
		x0, x1, x2, x3 := g[0].ord, g[1].ord, g[2].ord, g[3].ord
		a, b := 0, 2
		if x1 < x0 {
			a = 1
		}
		if x3 < x2 {
			b = 3
		}
		if min(x2, x3) < min(x0, x1) {
			a = b
		}
		h[p] = g[a&3]
		recs[h[p].idx].Next = uint32(p)
		p = c + a
	}
	if c := 4*p + 1; c < n {
		m := c
		for k := c + 1; k < n; k++ {
			if h[k].ord < h[m].ord {
				m = k
			}
		}
		h[p] = h[m]
		recs[h[p].idx].Next = uint32(p)
		p = m
	}
	q.siftUp(p, e)
}

// smallPut puts record i, whose key is key, in the small heap after every
// element with a key <= key. The key must fit (heapFits).
func (q *Queue[T]) smallPut(i uint32, key int64) {
	if q.heapSeq == 1<<32-1 {
		q.renumber()
	}
	if len(q.heap) == cap(q.heap) {
		q.growHeap()
	}
	e := hent{ord: uint64(key-q.heapBase)<<32 | uint64(q.heapSeq), idx: i}
	q.heapSeq++
	q.heap = q.heap[:len(q.heap)+1]
	q.rec(i).State = 1
	q.siftUp(len(q.heap)-1, e)
}

// heapFits reports whether key can go in the small heap: whether it is less
// than 2^32 above heapBase, after moving heapBase up to MinAllowedKey if need
// be (every key in the heap is at least MinAllowedKey, so the order words
// stay non-negative and keep their order).
func (q *Queue[T]) heapFits(key int64) bool {
	if len(q.heap) == 0 {
		q.heapBase = q.minAllowed
	}
	if uint64(key-q.heapBase) < 1<<32 {
		return true
	}
	if uint64(key-q.minAllowed) >= 1<<32 {
		return false
	}
	d := uint64(q.minAllowed-q.heapBase) << 32
	for p := range q.heap {
		q.heap[p].ord -= d
	}
	q.heapBase = q.minAllowed
	return true
}

// growHeap doubles the heap's capacity, from 16 entries, keeping it a power
// of two so that the allocation is line-aligned.
func (q *Queue[T]) growHeap() {
	h := make([]hent, len(q.heap), max(16, 2*cap(q.heap)))
	copy(h, q.heap)
	q.heap = h
}

// renumber gives the heap's entries the sequence numbers 0, 1, ... in their
// (key, seq) order, so that the counter can go on without wrapping. A sorted
// array is a heap.
func (q *Queue[T]) renumber() {
	slices.SortFunc(q.heap, compareHent)
	for p := range q.heap {
		q.heap[p].ord = q.heap[p].ord&^(1<<32-1) | uint64(p)
		q.rec(q.heap[p].idx).Next = uint32(p)
	}
	q.heapSeq = uint32(len(q.heap))
}

func compareHent(a, b hent) int { return cmp.Compare(a.ord, b.ord) }

// smallFind returns the position of record i, whose key is key, in the small
// heap. It panics if the record is not there (a corrupt queue).
func (q *Queue[T]) smallFind(i uint32, key int64) int {
	p := int(q.rec(i).Next)
	if p >= len(q.heap) || q.heap[p].idx != i || q.heapKey(&q.heap[p]) != key {
		panic("priorityqueue: record not in the small heap")
	}
	return p
}

// smallDel takes record i, whose key is key, out of the small heap.
func (q *Queue[T]) smallDel(i uint32, key int64) {
	q.heapRemoveAt(q.smallFind(i, key))
}

// makeRoom is called by an Add in small mode that finds the heap full. It
// doubles heapCap when the heap may grow and more than half its keys lie
// beyond level 0's range, and reports whether it did; otherwise the caller
// spills.
func (q *Queue[T]) makeRoom() bool {
	if q.heapCap >= q.wideCap {
		return false
	}
	beyond, max0 := 0, q.levels[0].maxKey
	for p := range q.heap {
		if q.heapKey(&q.heap[p]) > max0 {
			beyond++
		}
	}
	if 2*beyond <= len(q.heap) {
		return false
	}
	q.heapCap = min(2*q.heapCap, q.wideCap)
	return true
}

// spill leaves small mode: it moves the heap's elements, in (key, seq)
// order, to the back of their slots on the lowest level covering each (as
// Add puts them), so every key's elements sit on one level in insertion
// order.
func (q *Queue[T]) spill() {
	q.small = false
	slices.SortFunc(q.heap, compareHent)
	for p := range q.heap {
		q.place(q.heap[p].idx, q.heapKey(&q.heap[p]))
	}
	q.heap = q.heap[:0]
	q.heapSeq = 0
}

// enterSmall starts small mode on an empty heap.
func (q *Queue[T]) enterSmall() {
	q.small = true
	q.heapCap = q.smallCap
	q.heapSeq = 0
}

// unspill enters small mode from the levels (Shrink does, when they hold
// at most smallCap elements): it gathers the elements level by level from the
// top, each slot in order, and sorts them stably by key. For each key the
// elements on higher levels are the older ones, and within a slot they are
// in insertion order (PQ-ORDER), so the result is in (key, insertion) order,
// and numbered so, a heap. It changes nothing when a key is 2^32 or more
// above MinAllowedKey (it would not fit in the heap).
func (q *Queue[T]) unspill() {
	type entry struct {
		key int64
		i   uint32
	}
	var all []entry
	for l := len(q.levels) - 1; l >= 0; l-- {
		lv := &q.levels[l]
		if lv.length == 0 {
			continue
		}
		for s := lv.occupied.next(0); s >= 0; s = lv.occupied.next(s + 1) {
			q.each(l, s, func(i uint32) bool {
				all = append(all, entry{q.keyOf(q.rec(i)), i})
				return true
			})
		}
	}
	for _, e := range all {
		if uint64(e.key-q.minAllowed) >= 1<<32 {
			return
		}
	}
	for l := range q.levels {
		lv := &q.levels[l]
		for s := lv.occupied.next(0); s >= 0 && lv.length > 0; s = lv.occupied.next(s + 1) {
			q.empty(l, s)
		}
	}
	slices.SortStableFunc(all, func(a, b entry) int { return cmp.Compare(a.key, b.key) })
	q.enterSmall()
	q.heap = q.heap[:0]
	q.heapBase = q.minAllowed
	for p, e := range all {
		q.heap = append(q.heap, hent{ord: uint64(e.key-q.heapBase)<<32 | uint64(p), idx: e.i})
		r := q.rec(e.i)
		r.State, r.Next = 1, uint32(p)
	}
	q.heapSeq = uint32(len(all))
}

// collectSmall is CollectTo in small mode: the due elements are popped from
// the heap's root, in order.
func (q *Queue[T]) collectSmall(key int64, limit int) int64 {
	n := 0
	for len(q.heap) > 0 {
		k := q.heapKey(&q.heap[0])
		if k >= key {
			break
		}
		if limit > 0 && n >= limit {
			key = k
			break
		}
		for len(q.heap) > 0 && q.heapKey(&q.heap[0]) == k {
			q.dueBuf = append(q.dueBuf, q.heapRemoveAt(0))
			n++
		}
	}
	q.dueLen += n
	q.minValid = false
	if len(q.heap) > 0 {
		q.minKey, q.minValid = q.heapKey(&q.heap[0]), true
	}
	q.minAllowed = key
	if q.levels[0].minKey < key {
		q.setMin(key) // the levels hold nothing: no cascade
	}
	return key
}

// removeAtMinSmall is RemoveAtMinKey's choice in small mode: the elements
// with key k (at the root) and a time <= maxTime leave the heap, in order, for
// the due list; the others go back with their order words, so they keep
// their order.
func (q *Queue[T]) removeAtMinSmall(k, maxTime int64) {
	chosen := q.scratch[:0]
	var kept []hent
	for len(q.heap) > 0 && q.heapKey(&q.heap[0]) == k {
		e := q.heap[0]
		q.heapRemoveAt(0)
		if q.rec(e.idx).Time <= maxTime {
			chosen = append(chosen, e.idx)
		} else {
			kept = append(kept, e)
		}
	}
	for _, e := range kept {
		q.heap = q.heap[:len(q.heap)+1]
		q.siftUp(len(q.heap)-1, e)
	}
	if n := len(kept); n > 0 && len(q.heap) == n {
		// The heap emptied on the way and restarted its counter; later
		// adds must still come after the kept elements.
		q.heapSeq = heapSeqOf(&kept[n-1]) + 1
	}
	for _, i := range chosen {
		q.toDue(i)
	}
	q.scratch = chosen[:0]
}

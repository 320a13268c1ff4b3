package queue

import (
	"cmp"
	"slices"
)

// Small mode. A queue that holds few elements keeps them in one contiguous
// vector sorted by (key, insertion order) instead of on the levels: the
// levels' slot arrays (2^b_i slots each, about 80 bytes a slot with their
// counts, cached minima and first vectors) cost kilobytes per level before
// the first element, and an element on a level above 0 is moved down once or
// more before it is removed. In the vector an Add is a binary search and a
// short copy, and the minimum is always at the head.
//
// The queue starts in small mode when its level 0 is large enough for the
// levels to cost more than the vector (smallCapFor), moves every element to
// the levels, in order, when an Add would put more than smallCap elements in
// the vector (spill), and returns to small mode at the first Add after the
// levels have emptied. The level geometry (minimum, maximum, MaxAllowedKey)
// moves with MinAllowedKey in both modes, so which mode a queue is in changes
// no result. The levels' slot arrays, once allocated, are kept (a queue that
// goes back and forth allocates nothing more); Shrink releases them.
//
// The vector is sk[smallHead:] (keys, ascending; equal keys in insertion
// order) beside si[smallHead:] (record indices). Its records are in state 1,
// as if on level 0, so the due-list test (isDue: state 1 and a key below
// MinAllowedKey) applies to elements CollectTo moves out of the vector without
// touching their records, as it does to level 0's. A record's Next is unused:
// a removal finds the element by binary search on its key.

// smallMax is the most elements small mode holds.
const smallMax = 128

// smallCapFor returns how many elements small mode holds for a level 0 of
// 2^b0 slots: up to one eighth of the slots, at most smallMax, and 0 (no
// small mode) below 8 slots, where the levels are small anyway.
func smallCapFor(b0 uint) int {
	if b0 >= 11 {
		return smallMax
	}
	return min(smallMax, 1<<b0>>3)
}

// smallLen returns the number of elements in the small vector.
func (q *Queue[T]) smallLen() int { return len(q.sk) - q.smallHead }

// smallUpper returns the first position p in [smallHead, len(sk)) with
// sk[p] > key, or len(sk). It counts, with no branch, the blocks of 8 keys
// whose last key is <= key, then the keys <= key in the next block: about
// n/8 + 8 independent comparisons, which the CPU overlaps, where a binary
// search makes log2(n) dependent loads and, with random keys, mispredicts
// half of its branches. Keys are in [0, MaxKey], so key - sk[j] cannot
// overflow, and its sign bit is 1 exactly when sk[j] > key.
func (q *Queue[T]) smallUpper(key int64) int {
	sk := q.sk[q.smallHead:]
	b := 0
	for j := 7; j < len(sk); j += 8 {
		b += int(uint64(key-sk[j])>>63) ^ 1
	}
	p := 8 * b
	for _, k := range sk[p:min(p+8, len(sk))] {
		p += int(uint64(key-k)>>63) ^ 1
	}
	return q.smallHead + p
}

// smallLower returns the first position p in [smallHead, len(sk)) with
// sk[p] >= key, or len(sk), as smallUpper does.
func (q *Queue[T]) smallLower(key int64) int {
	sk := q.sk[q.smallHead:]
	base, n := 0, len(sk)
	if n == 0 {
		return q.smallHead
	}
	for n > 1 {
		half := n >> 1
		// key - 1 - sk[m] >= 0, i.e. sk[m] < key.
		base += half &^ int((key-1-sk[base+half-1])>>63)
		n -= half
	}
	base += 1 &^ int((key-1-sk[base])>>63)
	return q.smallHead + base
}

// smallPut puts record i, whose key is key, in the small vector after every
// element with a key <= key. It shifts the shorter side.
func (q *Queue[T]) smallPut(i uint32, key int64) {
	n := len(q.sk)
	if n == q.smallHead || q.sk[n-1] <= key {
		q.sk = append(q.sk, key)
		q.si = append(q.si, i)
		q.rec(i).State = 1
		return
	}
	p := q.smallUpper(key)
	if h := q.smallHead; h > 0 && p-h <= n-p {
		// Shift the head part one place down, into the room pops left.
		copy(q.sk[h-1:p-1], q.sk[h:p])
		copy(q.si[h-1:p-1], q.si[h:p])
		q.smallHead = h - 1
		q.sk[p-1], q.si[p-1] = key, i
	} else {
		q.sk = append(q.sk, 0)
		q.si = append(q.si, 0)
		copy(q.sk[p+1:], q.sk[p:n])
		copy(q.si[p+1:], q.si[p:n])
		q.sk[p], q.si[p] = key, i
	}
	q.rec(i).State = 1
}

// smallFind returns the position of record i, whose key is key, in the small
// vector. It panics if the record is not there (a corrupt queue).
func (q *Queue[T]) smallFind(i uint32, key int64) int {
	for p := q.smallLower(key); p < len(q.sk) && q.sk[p] == key; p++ {
		if q.si[p] == i {
			return p
		}
	}
	panic("priorityqueue: record not in the small vector")
}

// smallDel takes record i, whose key is key, out of the small vector,
// shifting the shorter side.
func (q *Queue[T]) smallDel(i uint32, key int64) {
	p := q.smallFind(i, key)
	h, n := q.smallHead, len(q.sk)
	if p-h < n-1-p {
		copy(q.sk[h+1:p+1], q.sk[h:p])
		copy(q.si[h+1:p+1], q.si[h:p])
		q.smallHead = h + 1
	} else {
		copy(q.sk[p:], q.sk[p+1:])
		copy(q.si[p:], q.si[p+1:])
		q.sk, q.si = q.sk[:n-1], q.si[:n-1]
	}
	q.smallReset()
}

// smallReset rewinds an emptied small vector to the start of its array, or
// compacts it when its head has used up half of the array.
func (q *Queue[T]) smallReset() {
	if h := q.smallHead; h == len(q.sk) {
		q.sk, q.si, q.smallHead = q.sk[:0], q.si[:0], 0
	} else if h > 0 && h >= cap(q.sk)/2 {
		n := copy(q.sk, q.sk[h:])
		copy(q.si, q.si[h:])
		q.sk, q.si, q.smallHead = q.sk[:n], q.si[:n], 0
	}
}

// spill leaves small mode: it moves the small vector's elements, in order, to
// the back of their slots on the lowest level covering each (as Add puts
// them), so every key's elements sit on one level in insertion order.
func (q *Queue[T]) spill() {
	q.small = false
	for p := q.smallHead; p < len(q.sk); p++ {
		q.place(q.si[p], q.sk[p])
	}
	q.sk, q.si, q.smallHead = q.sk[:0], q.si[:0], 0
}

// unspill enters small mode from the levels (Shrink does, when they hold
// at most smallCap elements): it gathers the elements level by level from the
// top, each slot in order, and sorts them stably by key. For each key the
// elements on higher levels are the older ones, and within a slot they are
// in insertion order (PQ-ORDER), so the vector is in (key, insertion) order.
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
			q.empty(l, s)
		}
	}
	slices.SortStableFunc(all, func(a, b entry) int { return cmp.Compare(a.key, b.key) })
	q.sk, q.si, q.smallHead = q.sk[:0], q.si[:0], 0
	for _, e := range all {
		q.sk = append(q.sk, e.key)
		q.si = append(q.si, e.i)
		q.rec(e.i).State = 1
	}
	q.small = true
}

// collectSmall is CollectTo in small mode: the due elements are the vector's
// head.
func (q *Queue[T]) collectSmall(key int64, limit int) int64 {
	n := 0
	h := q.smallHead
	for h < len(q.sk) {
		k := q.sk[h]
		if k >= key {
			break
		}
		if limit > 0 && n >= limit {
			key = k
			break
		}
		for h < len(q.sk) && q.sk[h] == k {
			q.dueBuf = append(q.dueBuf, q.si[h])
			h++
			n++
		}
	}
	q.smallHead = h
	q.smallReset()
	q.dueLen += n
	q.minValid = false
	q.minAllowed = key
	if q.levels[0].minKey < key {
		q.setMin(key) // the levels hold nothing: no cascade
	}
	return key
}

// removeAtMinSmall is RemoveAtMinKey's choice in small mode: the elements
// with key k (at the head) and a time <= maxTime leave the vector, in order,
// for the due list; the others keep their order.
func (q *Queue[T]) removeAtMinSmall(k, maxTime int64) {
	h := q.smallHead
	e := h
	chosen := q.scratch[:0]
	for ; e < len(q.sk) && q.sk[e] == k; e++ {
		if q.rec(q.si[e]).Time <= maxTime {
			chosen = append(chosen, q.si[e])
		}
	}
	if len(chosen) == 0 {
		q.scratch = chosen
		return
	}
	w := e
	for j := e - 1; j >= h; j-- {
		if q.rec(q.si[j]).Time > maxTime {
			w--
			q.sk[w], q.si[w] = q.sk[j], q.si[j]
		}
	}
	q.smallHead = w
	q.smallReset()
	for _, i := range chosen {
		q.toDue(i)
	}
	q.scratch = chosen[:0]
}

package queue

import (
	"math"
	"math/bits"
	"slices"
)

// The step order: docs/design.md, "The step order"; PQ17.
//
// At a shift above 0 a key holds many times, and a simulation steps through
// them one time at a time: each step reads the smallest time of the
// smallest key (MinTime) and takes its elements (RemoveAtMinKey). Found by
// a walk of the key's elements, each step would cost as many record reads
// as the key holds, and the steps through one key as many as the square of
// that. The step order is a binary min-heap of the key's elements by time,
// ties by a number that follows their removal order, so that each step
// reads its root, and Add and Remove in the key cost O(log m) instead of a
// walk or a move of m entries.

// ordEnt is an entry of the step order: record i, its time t, and its
// number in the key's removal order (n: larger is later).
type ordEnt struct {
	t int64
	n uint32
	i uint32
}

// ordLess orders the step order's entries: by time, then removal order.
func ordLess(a, b ordEnt) bool { return a.t < b.t || a.t == b.t && a.n < b.n }

// ordLessInt is ordLess as 0 or 1, computed without branches: the heap's
// choice between two children is a coin toss that a branch would mispredict
// half the time.
func ordLessInt(a, b ordEnt) int {
	return b2i(a.t < b.t) | b2i(a.t == b.t)&b2i(a.n < b.n)
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// stepTime is MinTime for key k, the smallest key, when no element is due:
// the smallest time of k's elements, the step order's root, which it builds
// for k if it has none.
func (q *Queue[T]) stepTime(k int64) int64 {
	if q.ordKey != k {
		if r := &q.rad; q.small {
			// The lowest bucket's one element is the key's one element:
			// no order to build (Step takes it with smallStepOne).
			if b := bits.TrailingZeros64(r.occ); r.b[b].live == 1 {
				return q.rec(r.b[b].e[r.lone(b)].idx).Time
			}
		}
		q.ordBuild(k)
	}
	return q.ord[0].t
}

// ordBuild makes the step order of key k, which holds at least one element
// not due: its elements numbered in removal order, made a heap from the
// bottom up, O(m).
func (q *Queue[T]) ordBuild(k int64) {
	ord := q.ord[:0]
	add := func(i uint32) bool {
		ord = append(ord, ordEnt{t: q.rec(i).Time, n: uint32(len(ord)), i: i})
		return true
	}
	if q.small {
		q.smallEachWithKey(k, add)
	} else {
		q.eachWithKey(k, add)
	}
	q.ord, q.ordKey, q.ordNext = ord, k, uint32(len(ord))
	for p, e := range ord {
		q.ordNote(e.i)
		q.ordAt[e.i] = uint32(p)
	}
	for p := len(ord)/2 - 1; p >= 0; p-- {
		q.ordDown(p, ord[p])
	}
}

// ordNote makes room in ordAt for record i.
func (q *Queue[T]) ordNote(i uint32) {
	if int(i) >= len(q.ordAt) {
		q.ordAt = slices.Grow(q.ordAt, int(i)+1-len(q.ordAt))
		q.ordAt = q.ordAt[:cap(q.ordAt)]
	}
}

// ordUp moves entry e, at hole p, up to its place, at most to position
// top. ordAt has room for every record in the heap.
func (q *Queue[T]) ordUp(p int, e ordEnt, top int) {
	ord, at := q.ord, q.ordAt
	for p > top {
		parent := (p - 1) / 2
		pe := ord[parent]
		if !ordLess(e, pe) {
			break
		}
		ord[p] = pe
		at[pe.i] = uint32(p)
		p = parent
	}
	ord[p] = e
	at[e.i] = uint32(p)
}

// ordDown moves entry e, at hole p, to its place in p's subtree: the hole
// goes down to a leaf along the smaller children, and e up from there,
// which is where it mostly belongs when it is the heap's last entry (one
// comparison a level instead of two).
func (q *Queue[T]) ordDown(p int, e ordEnt) {
	ord, at := q.ord, q.ordAt
	n, top := len(ord), p
	for {
		c := 2*p + 1
		if c >= n {
			break
		}
		if c+1 < n {
			c += ordLessInt(ord[c+1], ord[c])
		}
		ord[p] = ord[c]
		at[ord[p].i] = uint32(p)
		p = c
	}
	q.ordUp(p, e, top)
}

// ordAdd puts record i, of time t, just added to the step order's key, in
// the order, as the newest of its key. An order whose numbers have run out
// is dropped, to be built again with fresh ones.
func (q *Queue[T]) ordAdd(i uint32, t int64) {
	if q.ordNext == math.MaxUint32 {
		q.ordKey = -1
		return
	}
	q.ordNote(i)
	q.ord = append(q.ord, ordEnt{})
	q.ordUp(len(q.ord)-1, ordEnt{t: t, n: q.ordNext, i: i}, 0)
	q.ordNext++
}

// ordDel takes record i out of the step order, as it leaves the order's
// key; it panics on a corrupt queue.
func (q *Queue[T]) ordDel(i uint32) {
	if !q.ordHas(i) {
		panic("priorityqueue: record not in the step order")
	}
	q.ordRemove(int(q.ordAt[i]))
}

// ordHas reports whether record i is in the step order, at the position
// ordAt notes for it.
func (q *Queue[T]) ordHas(i uint32) bool {
	return int(i) < len(q.ordAt) && int(q.ordAt[i]) < len(q.ord) && q.ord[q.ordAt[i]].i == i
}

// ordRemove removes the entry at position p of the heap.
func (q *Queue[T]) ordRemove(p int) {
	last := len(q.ord) - 1
	e := q.ord[last]
	q.ord = q.ord[:last]
	if p == last {
		return
	}
	if p > 0 && ordLess(e, q.ord[(p-1)/2]) {
		q.ordUp(p, e, 0)
	} else {
		q.ordDown(p, e)
	}
}

// ordTime is the largest time in the step order, O(m).
func (q *Queue[T]) ordTime() int64 {
	hi := int64(math.MinInt64)
	for _, e := range q.ord {
		hi = max(hi, e.t)
	}
	return hi
}

// takeOrdered is RemoveAtMinKey's choice from the step order of its key:
// the elements of the root's time, if at most maxTime, go to the due list
// in removal order, and it reports true, if no other time of the key is at
// most maxTime; otherwise it drops the step order (the choice takes
// elements of several times, in removal order across them) and reports
// false, leaving the key's elements where they are.
func (q *Queue[T]) takeOrdered(maxTime int64) bool {
	if len(q.ord) == 0 || q.ord[0].t > maxTime {
		return true // nothing of the key is due
	}
	t := q.ord[0].t
	group := q.scratch[:0]
	for len(q.ord) > 0 && q.ord[0].t == t {
		group = append(group, q.ord[0].i)
		q.ordRemove(0)
	}
	q.scratch = group[:0]
	if len(q.ord) > 0 && q.ord[0].t <= maxTime {
		q.ordKey = -1 // the popped entries go with it
		return false
	}
	if q.small {
		// The key is the smallest: if all its elements are taken, they
		// go whole; else its elements go to bucket 0 first (with a split,
		// as in removeAtMinSmall, so that the base follows the steps).
		if len(q.ord) == 0 {
			q.smallTakeKey()
			return true
		}
		if b := bits.TrailingZeros64(q.rad.occ); b > 0 {
			q.rsplit(b, q.ordKey)
		}
	}
	for _, i := range group {
		r := q.rec(i)
		if q.small {
			q.smallDel(i, r, q.ordKey)
		} else {
			l := int(r.State()) - 1
			q.del(l, q.levels[l].slot(q.ordKey), r)
		}
		q.toDue(i)
	}
	return true
}

// smallTakeKey moves every element of the step order's key, the smallest,
// from the lowest bucket to the due list.
func (q *Queue[T]) smallTakeKey() {
	q.dueLen += q.rtakeMin(bits.TrailingZeros64(q.rad.occ), q.ordKey, true)
	q.minValid = false
}

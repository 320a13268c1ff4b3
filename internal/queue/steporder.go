package queue

import (
	"cmp"
	"math/bits"
	"slices"
)

// The step order: docs/design.md, "The step order"; PQ17.
//
// At a shift above 0 a key holds many times, and a simulation steps through
// them one time at a time: each step reads the smallest time of the
// smallest key (MinTimes) and takes its elements (RemoveAtMinKey). Found by
// a walk of the key's elements, each step would cost as many record reads
// as the key holds, and the steps through one key as many as the square of
// that. The step order is the key's elements sorted once by time, ties in
// removal order, so that each step reads its front instead.

// stepTimes is MinTimes for key k, the smallest key, when no element is
// due: the smallest and largest time of k's elements, from the step order,
// which it builds for k if it has none.
func (q *Queue[T]) stepTimes(k int64) (lo, hi int64) {
	if q.ordKey == k {
		return q.rec(q.ord[q.ordPos]).Time, q.rec(q.ord[len(q.ord)-1]).Time
	}
	ord := q.ord[:0]
	add := func(i uint32) bool { ord = append(ord, i); return true }
	if q.small {
		q.smallEachWithKey(k, add)
	} else {
		q.eachWithKey(k, add)
	}
	if len(ord) > 1 {
		slices.SortStableFunc(ord, func(a, b uint32) int { return cmp.Compare(q.rec(a).Time, q.rec(b).Time) })
	}
	q.ord, q.ordPos, q.ordKey = ord, 0, k
	return q.rec(ord[0]).Time, q.rec(ord[len(ord)-1]).Time
}

// ordAdd puts record i, of time t, just added to the step order's key, in
// the order: after every element of a time up to t, as it is the newest of
// its key. It drops the taken front first when that is at least half the
// buffer, so that a key stepped through for long does not grow it.
func (q *Queue[T]) ordAdd(i uint32, t int64) {
	ord := q.ord
	if q.ordPos >= compactMin && 2*q.ordPos >= len(ord) {
		ord = ord[:copy(ord, ord[q.ordPos:])]
		q.ordPos = 0
	}
	lo, hi := q.ordPos, len(ord)
	for lo < hi {
		if m := int(uint(lo+hi) >> 1); q.rec(ord[m]).Time <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	q.ord = slices.Insert(ord, lo, i)
}

// ordDel takes record i, of time t, out of the step order, as it leaves the
// order's key; it panics on a corrupt queue.
func (q *Queue[T]) ordDel(i uint32, t int64) {
	ord := q.ord
	lo, hi := q.ordPos, len(ord)
	for lo < hi {
		if m := int(uint(lo+hi) >> 1); q.rec(ord[m]).Time < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for j := lo; j < len(ord) && q.rec(ord[j]).Time == t; j++ {
		if ord[j] == i {
			q.ord = slices.Delete(ord, j, j+1)
			return
		}
	}
	panic("priorityqueue: record not in the step order")
}

// takeOrdered is RemoveAtMinKey's choice from the step order of its key:
// the elements at its front whose time is at most maxTime go to the due
// list, and it reports true, if they all have one time (so the step
// order's front is their removal order); otherwise it drops the step order
// (the choice takes elements from it out of order) and reports false.
func (q *Queue[T]) takeOrdered(maxTime int64) bool {
	ord, j := q.ord, q.ordPos
	if j == len(ord) {
		return true // no element of the key is left
	}
	t := q.rec(ord[j]).Time
	if t > maxTime {
		return true
	}
	e := j + 1
	for e < len(ord) && q.rec(ord[e]).Time == t {
		e++
	}
	if e < len(ord) && q.rec(ord[e]).Time <= maxTime {
		q.ordKey = -1
		return false
	}
	q.ordPos = e
	if q.small {
		// The key is the smallest: its elements go to bucket 0 (with a
		// split, as in removeAtMinSmall, so that the base follows the
		// steps), and if they are all taken, they go whole.
		b := bits.TrailingZeros64(q.rad.occ)
		if e == len(ord) {
			q.dueLen += q.rtakeMin(b, q.ordKey, true)
			q.minValid = false
			return true
		}
		if b > 0 {
			q.rsplit(b, q.ordKey)
		}
	}
	for _, i := range ord[j:e] {
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

package queue

import "github.com/gotimingwheel/timingwheel/internal/checked"

// Checked mode (-tags twcheck): after a mutating call, Invariant's
// functions run on what the call touched (q.chk), or on checked.Sched's
// schedule the whole Invariant(). docs/invariants.md, "Checked mode".

// walkMax is the most entries a touched slot or bucket, or the due list, may
// have for the local checks to walk it whole; a larger one gets its
// counters' checks and those of the entries written and their neighbours.
const walkMax = 16

// chkRef names a slot entry (level l, slot s, position pos with frontBit),
// a slot (pos unused), or a bucket entry (l = -1: bucket s, position pos).
type chkRef struct {
	l, s int32
	pos  uint32
}

// checkFull is the check after a call that costs O(slots + records) itself
// (Shrink, Clear): the whole Invariant().
func (q *Queue[T]) checkFull(call string, args ...any) {
	q.chk.reset(q.stamp())
	if err := q.Invariant(); err != nil {
		checked.Fail("priorityqueue."+call, args, err)
	}
}

// CheckCall is checked mode's check after a mutating call, also for the
// queue's owners after CollectTo and FireDue (which have no hook): the local
// checks of what the calls since the last check touched or, on
// checked.Sched's schedule, the whole Invariant(). After no change it checks
// nothing and does not count. It returns nil or the first violation.
func (q *Queue[T]) CheckCall() error {
	stamp := q.stamp()
	if q.chk.clean(stamp) {
		return nil
	}
	if q.chk.fullDue(q.CheckCost()) {
		q.chk.reset(stamp)
		return q.Invariant()
	}
	entries, slots, buckets := q.chk.view()
	err := q.checkLocal(entries, slots, buckets)
	q.chk.reset(stamp)
	return err
}

// stamp returns what a call changes whenever it changes the queue in a way
// the log does not note.
func (q *Queue[T]) stamp() chkStamp {
	c := q.counts
	return chkStamp{c.Added, c.Removed, c.Fired, c.Cleared, c.Moved,
		q.minAllowed, q.length, q.dueLen, q.duePos, len(q.dueBuf)}
}

type chkStamp struct {
	added, removed, fired, cleared, moved uint64
	minAllowed                            int64
	length, dueLen, duePos, dueBuf        int
}

// CheckCost returns what the whole Invariant() costs in units of a call's
// local checks: slots, records and due entries. Cost: O(levels).
func (q *Queue[T]) CheckCost() int {
	n := q.pool.Len() + len(q.dueBuf) + 1
	for l := range q.levels {
		n += len(q.levels[l].slots)
	}
	return n
}

// checkLocal runs the local checks on the entries written and the slots and
// buckets (bit b) touched since the last check, in Invariant's order.
func (q *Queue[T]) checkLocal(entries, slots []chkRef, buckets uint64) error {
	if err := q.checkGeometry(); err != nil {
		return err
	}
	maxKey := q.MaxAllowedKey()
	for k, ref := range entries {
		// In a run of entries written in order, the previous check covered
		// this one and the one before.
		run := k > 0 && entries[k-1] == chkRef{ref.l, ref.s, ref.pos - 1}
		if err := q.checkNear(ref, buckets, run, maxKey); err != nil {
			return err
		}
	}
	for _, ref := range slots {
		if _, err := q.checkSlot(int(ref.l), int(ref.s), walkMax); err != nil {
			return err
		}
	}
	return q.checkCounts(buckets, walkMax)
}

// checkNear checks the entry ref names and its neighbours (with run, only
// the next), and AP6 for their records, unless checkSlot or checkRadix walks
// the slot or bucket whole or Shrink released it. maxKey is MaxAllowedKey().
func (q *Queue[T]) checkNear(ref chkRef, buckets uint64, run bool, maxKey int64) error {
	l, s := int(ref.l), int(ref.s)
	if l < 0 && (s >= len(q.rad.b) || buckets>>s&1 == 1 && len(q.rad.b[s].e) <= walkMax) ||
		l >= 0 && (l >= len(q.levels) || s >= len(q.levels[l].slots) ||
			len(q.levels[l].slots[s].front)+len(q.levels[l].slots[s].back) <= walkMax) {
		return nil
	}
	p := int(ref.pos &^ frontBit)
	near := [3]int{p + 1, p, p - 1}
	js := near[:]
	if run {
		js = near[:1]
	}
	for _, j := range js {
		var i uint32
		var err error
		if l < 0 {
			i, err = q.checkBucketEntry(s, j, maxKey)
		} else {
			i, _, err = q.checkSlotEntry(l, s, ref.pos&frontBit, j)
		}
		if err != nil {
			return err
		}
		if i != 0 {
			if err := q.pool.CheckHandle(i); err != nil {
				return err
			}
		}
	}
	return nil
}

package queue

import (
	"github.com/gotimingwheel/timingwheel/internal/checked"
	"github.com/gotimingwheel/timingwheel/invariant"
)

// Checked mode (-tags twcheck; package checked). After a mutating call the
// queue runs its local checks: Invariant's functions (invariant.go) on what
// the call touched, as its code noted it in q.chk (chklog_on.go), with what
// the counters give in O(1) (which the formulas imply) in place of sums
// over every slot or entry, so that they never report a violation on a
// valid queue. Once per as many calls as the queue has slots and records
// (checked.Sched), or after every call with TWCHECK=full, it runs the
// whole Invariant() instead. docs/invariants.md lists what each call checks.

// walkMax is the most entries a touched slot or bucket, or the due list,
// may have for the local checks to walk it whole; a larger one gets its
// counters' checks and the checks of the entries written and their
// neighbours.
const walkMax = 16

// chkRef names a slot entry (l >= 0: level l, slot s, position pos with
// frontBit for the front vector), a slot (pos unused), or a bucket entry
// (l = -1: bucket s, position pos), for checked mode's log.
type chkRef struct {
	l, s int32
	pos  uint32
}

// fail is checked mode's report of a violation err that CheckCall found
// after a call: it panics naming the call and its arguments. The hooks box
// the arguments only on this path, so that a check allocates nothing.
func (q *Queue[T]) fail(call string, err error, args ...any) {
	checked.Fail("priorityqueue."+call, args, err)
}

// checkFull is check for a call whose own cost is O(slots + records)
// (Shrink, Clear): the whole Invariant() costs no more than the call.
func (q *Queue[T]) checkFull(call string, args ...any) {
	q.chk.reset(q.stamp())
	if err := q.Invariant(); err != nil {
		q.fail(call, err, args...)
	}
}

// CheckCall is checked mode's check after a mutating call, for the queue's
// owners (a timing wheel, simclock's wheel) after their calls that reached
// the queue through calls with no hook of their own (CollectTo and
// FireDue): the local checks of what the calls since the last check
// touched or, on checked.Sched's schedule, the whole Invariant(). A call
// that changed nothing since the last check (an owner's hook right after
// the queue's own) checks nothing and does not count. It returns nil or
// the first violation. Without -tags twcheck nothing calls it.
func (q *Queue[T]) CheckCall() error {
	stamp := q.stamp()
	if q.chk.clean(stamp) {
		return nil // nothing changed since the last check: a wheel's hook after the queue's own
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

// stamp returns what changes whenever a call changes the queue in a way
// the log does not note: the counters of elements added, removed, fired,
// cleared and moved, the count, the due list's count and position, and
// MinAllowedKey. A call that changes none of them and notes nothing
// changed nothing.
func (q *Queue[T]) stamp() chkStamp {
	c := q.counts
	return chkStamp{c.Added, c.Removed, c.Fired, c.Cleared, c.Moved,
		q.minAllowed, q.length, q.dueLen, q.duePos, len(q.dueBuf)}
}

// chkStamp is what stamp returns.
type chkStamp struct {
	added, removed, fired, cleared, moved uint64
	minAllowed                            int64
	length, dueLen, duePos, dueBuf        int
}

// CheckCost returns what the whole Invariant() costs, in units of a call's
// local checks: the slots allocated, the records, and the due buffer's
// entries. Cost: O(levels).
func (q *Queue[T]) CheckCost() int {
	n := q.pool.Len() + len(q.dueBuf) + 1
	for l := range q.levels {
		n += len(q.levels[l].slots)
	}
	return n
}

// checkLocal runs the local checks of a queue whose calls since the last
// check wrote the entries entries and touched the slots slots and the
// buckets buckets (bit b for bucket b), in Invariant's order: checkGeometry;
// checkNear on the entries; checkSlot on the slots; checkCounts. Each walks
// a slot, a bucket or the due list whole if it has at most walkMax entries.
func (q *Queue[T]) checkLocal(entries, slots []chkRef, buckets uint64) error {
	if err := q.checkGeometry(); err != nil {
		return err
	}
	maxKey := q.MaxAllowedKey()
	for k, ref := range entries {
		// In a run of entries written one after the other (a bucket
		// redistributed, a cascade into an empty slot), the previous
		// entry's check covered this one and the one before it.
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
// the one after it: the caller has checked the others), and AP6 for their
// records, unless checkSlot or checkRadix walks the slot or bucket whole
// (every logged entry's slot is logged too) or Shrink released it. An entry
// may have become a tombstone or left a shrunk vector since the call wrote
// it: then there is nothing to check. maxKey is MaxAllowedKey().
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
			if k, ok := q.pool.Lookup(q.pool.Handle(i)); !ok || k != i {
				return invariant.Errorf("AP6", "record %d: its handle %v finds record %d (found %v)", i, q.pool.Handle(i), k, ok)
			}
		}
	}
	return nil
}

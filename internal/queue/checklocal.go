package queue

import (
	"math"
	"math/bits"

	"github.com/gotimingwheel/timingwheel/internal/checked"
	"github.com/gotimingwheel/timingwheel/invariant"
)

// Checked mode (-tags twcheck; package checked). After a mutating call the
// queue runs its local checks: the checks of what the call touched, as the
// call's code noted it in q.chk (chklog_on.go), and the checks that cost
// O(levels) whatever the queue holds. Once per as many calls as the queue
// has slots and records (checked.Sched) it runs the whole Invariant()
// instead, so that the whole check costs a constant per call, amortized;
// with TWCHECK=full, after every call.
//
// Each local check evaluates, on what it covers, the formula the whole
// check evaluates, mostly by calling the same function (checkEntry,
// walkSlot, checkPQ6Slot, checkPQ7Slot, checkPQ13, walkBucket,
// checkPQ15Entry, checkPQ15Bucket, checkPQ1, checkPQ2, checkPQ9, checkPQ10,
// checkPQ11, checkPQ14, checkPQ8). Where a formula sums over every slot or
// entry, the local check evaluates the part the counters give in O(1),
// which the formula implies (a slot's count is at most its entries; Len is
// the sum of the levels' lengths, small mode's count and the due list's
// count). So a local check never reports a violation on a valid queue.
// docs/invariants.md lists what each call checks.

// walkMax is the most entries a touched slot or bucket may have for the
// local checks to walk it whole (its count, its cached minimum, every
// entry); a larger one gets its counters' checks and the checks of the
// entries the call wrote and their neighbours. The due list is walked up
// to as many entries.
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
		checked.Fail("priorityqueue."+call, args, err)
	}
}

// CheckCall is checked mode's check after a mutating call, for the owners
// of the queue (a timing wheel, simclock's wheel), which call it from their
// own hooks, after calls of theirs that reached the queue through calls
// with no hook of their own (CollectTo, FireDue, TakeDue): the local checks
// of what the calls since the last check touched, or, once per CheckCost()
// calls that changed the queue, or after every such call with
// TWCHECK=full, the whole Invariant(). A call that changed nothing since
// the last check (an owner's hook right after the queue's own) checks
// nothing and does not count. It returns nil or the first violation.
// Without -tags twcheck nothing calls it.
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
// buckets buckets (bit b for bucket b), in this order: the geometry (PQ1, PQ2,
// PQ9) and the mode (PQ14); the entries the calls wrote and their
// neighbours (PQ5, PQ3, PQ4, PQ12 and AP6 for a slot entry, PQ15 for a
// bucket entry); the slots they touched (PQ16's capacities, then PQ5, PQ3,
// PQ4, PQ12, PQ6, PQ7, PQ13 when walked whole, else PQ6's bounds and PQ7);
// the radix heap's counts, walking the buckets touched (PQ15); the due list
// (PQ10, and PQ6's due count) when it is short; the queue's count (PQ6);
// the cached minimum (PQ8) when finding the minimum walks only short slots;
// the records in use (PQ11).
func (q *Queue[T]) checkLocal(entries, slots []chkRef, buckets uint64) error {
	if err := q.checkGeometry(); err != nil {
		return err
	}
	if err := q.checkPQ14(); err != nil {
		return err
	}
	maxKey := q.MaxAllowedKey()
	for k, ref := range entries {
		if q.walked(ref, buckets) {
			continue // checkSlotLocal or checkPQ15Local walks its slot or bucket
		}
		// A run of entries written one after the other (a bucket
		// redistributed, a cascade into an empty slot) checks each entry
		// once: the one before this was checked as the previous one's
		// neighbour.
		run := k > 0 && entries[k-1] == chkRef{ref.l, ref.s, ref.pos - 1}
		if err := q.checkRefEntry(ref, maxKey, run); err != nil {
			return err
		}
	}
	for _, ref := range slots {
		if err := q.checkSlotLocal(int(ref.l), int(ref.s)); err != nil {
			return err
		}
	}
	if err := q.checkPQ15Local(buckets); err != nil {
		return err
	}
	if len(q.dueBuf)-q.duePos <= walkMax {
		due, err := q.checkPQ10()
		if err != nil {
			return err
		}
		if due != q.dueLen {
			return invariant.Errorf("PQ6", "due list holds %d, count says %d", due, q.dueLen)
		}
	}
	if err := q.checkPQ6Counts(); err != nil {
		return err
	}
	if m, ok := q.minLocal(); ok {
		if err := q.checkPQ8(m); err != nil {
			return err
		}
	}
	return q.checkPQ11()
}

// walked reports whether the slot or the bucket of the entry ref names will
// be walked whole by the local checks (it is touched, and has at most
// walkMax entries): then the walk checks the entry and its neighbours.
func (q *Queue[T]) walked(ref chkRef, buckets uint64) bool {
	if ref.l < 0 {
		b := int(ref.s)
		return b < len(q.rad.b) && buckets>>b&1 == 1 && len(q.rad.b[b].e) <= walkMax
	}
	l, s := int(ref.l), int(ref.s)
	if l >= len(q.levels) || s >= len(q.levels[l].slots) {
		return true // released by Shrink since: nothing to check
	}
	v := &q.levels[l].slots[s]
	return len(v.front)+len(v.back) <= walkMax // every logged entry's slot is logged too
}

// checkRefEntry checks the entry ref names, if it still exists, and its
// neighbours in its vector or bucket; with run, only the neighbour after it
// (the caller has checked the two others). An entry the log names may have
// become a tombstone, or left a vector that has shrunk or a level that
// Shrink released, since the call wrote it: then there is nothing to check.
// maxKey is MaxAllowedKey().
func (q *Queue[T]) checkRefEntry(ref chkRef, maxKey int64, run bool) error {
	p := int(ref.pos &^ frontBit)
	near := [3]int{p + 1, p, p - 1}
	js := near[:]
	if run {
		js = near[:1]
	}
	if ref.l < 0 {
		for _, j := range js {
			if err := q.checkBucketEntryAt(int(ref.s), j, maxKey); err != nil {
				return err
			}
		}
		return nil
	}
	l, s := int(ref.l), int(ref.s)
	if l >= len(q.levels) || s >= len(q.levels[l].slots) {
		return nil
	}
	for _, j := range js {
		if err := q.checkSlotEntryAt(l, s, ref.pos&frontBit, j); err != nil {
			return err
		}
	}
	return nil
}

// checkSlotEntryAt runs checkEntry and AP6 on the entry at position p of
// the front vector (half = frontBit) or the back vector (half = 0) of slot s
// of level l, if there is one and it is not a tombstone.
func (q *Queue[T]) checkSlotEntryAt(l, s int, half uint32, p int) error {
	v := &q.levels[l].slots[s]
	vec := v.back
	if half != 0 {
		vec = v.front
	}
	if p < 0 || p >= len(vec) || vec[p] == 0 {
		return nil
	}
	i := vec[p]
	if _, err := q.checkEntry(l, s, i, half|uint32(p)); err != nil {
		return err
	}
	return q.checkAP6(i)
}

// checkBucketEntryAt runs checkPQ15Entry and AP6 on the entry at position p
// of bucket b, if there is one and it is not a tombstone; maxKey is
// MaxAllowedKey().
func (q *Queue[T]) checkBucketEntryAt(b, p int, maxKey int64) error {
	if b >= len(q.rad.b) || p < 0 || p >= len(q.rad.b[b].e) || q.rad.b[b].e[p].idx == 0 {
		return nil
	}
	e := q.rad.b[b].e[p]
	if err := q.checkPQ15Entry(b, p, e, maxKey); err != nil {
		return err
	}
	return q.checkAP6(e.idx)
}

// checkAP6 is the pool's AP6 for record i, which an entry names: the
// record's own handle finds it.
func (q *Queue[T]) checkAP6(i uint32) error {
	if j, ok := q.pool.Lookup(q.pool.Handle(i)); !ok || j != i {
		return invariant.Errorf("AP6", "record %d: its handle %v finds record %d (found %v)", i, q.pool.Handle(i), j, ok)
	}
	return nil
}

// checkSlotLocal checks slot s of level l, which a call touched: PQ16's
// capacities of its vectors, then, if it has at most walkMax entries, every
// entry (checkEntry), its count (PQ6), its bit (PQ7) and its cached
// minimum (PQ13), as the whole check's walk does; else its count against
// its entries and its level's length (PQ6 implies count <= entries and
// count <= length) and its bit against its count (PQ7).
func (q *Queue[T]) checkSlotLocal(l, s int) error {
	if l >= len(q.levels) || s >= len(q.levels[l].slots) {
		return nil // Shrink released the level since
	}
	lv := &q.levels[l]
	v := &lv.slots[s]
	if err := q.checkPQ16Slot(l, s); err != nil {
		return err
	}
	entries := len(v.front) + len(v.back)
	if entries <= walkMax {
		n, slotMin, err := q.walkSlot(l, s)
		if err != nil {
			return err
		}
		if err := q.checkPQ6Slot(l, s, n); err != nil {
			return err
		}
		if err := q.checkPQ7Slot(l, s, n); err != nil {
			return err
		}
		return q.checkPQ13(l, s, n, slotMin)
	}
	if c := int(v.count); c > entries || c > lv.length {
		return invariant.Errorf("PQ6", "level %d slot %d count %d, more than its %d entries or its level's length %d",
			l, s, c, entries, lv.length)
	}
	return q.checkPQ7Slot(l, s, int(v.count))
}

// checkPQ16Slot is PQ16's clause on the capacities of slot s of level l: its
// back vector is its arena chunk or has capacity vecBase·2^k, and its front
// vector has no capacity or such a one. (That no two vectors share memory
// is left to the whole check.)
func (q *Queue[T]) checkPQ16Slot(l, s int) error {
	lv := &q.levels[l]
	v := &lv.slots[s]
	chunk := cap(v.back) == slotStart && len(lv.arena) == len(lv.slots)*slotStart &&
		vecAddr(v.back) == vecAddr(lv.arena[s*slotStart:])
	if !chunk && !vecCapOK(cap(v.back)) || cap(v.front) != 0 && !vecCapOK(cap(v.front)) {
		return invariant.Errorf("PQ16", "level %d slot %d: back vector of capacity %d (its arena chunk: %v), front vector of capacity %d, want %d·2^k",
			l, s, cap(v.back), chunk, cap(v.front), vecBase)
	}
	return nil
}

// checkPQ15Local is PQ15 without walking the buckets no call touched: the
// base is at most MinAllowedKey; a touched bucket of at most walkMax
// entries is walked (walkBucket); every bucket's count is at most its
// entries (PQ15 implies it), an empty bucket has none, its occupancy bit
// is set iff its count is not 0, no bit is set at or above the number of
// buckets, and n is the sum of the counts.
func (q *Queue[T]) checkPQ15Local(touched uint64) error {
	r := &q.rad
	if r.last > q.minAllowed {
		return invariant.Errorf("PQ15", "radix base %d above MinAllowedKey %d", r.last, q.minAllowed)
	}
	n := 0
	for b := range r.b {
		live, entries := int(r.b[b].live), len(r.b[b].e)
		if touched>>b&1 == 1 && entries <= walkMax {
			var err error
			if live, _, err = q.walkBucket(b); err != nil {
				return err
			}
		} else if live > entries {
			return invariant.Errorf("PQ15", "bucket %d: counted %d, in %d entries", b, live, entries)
		}
		// checkPQ15Bucket's formula, written out: a call per bucket per
		// mutating call cost a fifth of a checked simulation's time.
		if live != int(r.b[b].live) || live == 0 && entries != 0 || (r.occ>>b&1 == 1) != (live > 0) {
			return q.checkPQ15Bucket(b, live)
		}
		n += live
	}
	if r.occ>>len(r.b) != 0 || n != r.n {
		return invariant.Errorf("PQ15", "radix heap: %d elements in %d buckets, counted %d, occupancy %#x",
			n, len(r.b), r.n, r.occ)
	}
	return nil
}

// checkPQ6Counts is PQ6 for the queue, from the counters alone: Len is the
// sum of the levels' lengths, small mode's count and the due list's count
// (the whole check counts each of them from the entries).
func (q *Queue[T]) checkPQ6Counts() error {
	held := q.rad.n + q.dueLen
	for l := range q.levels {
		held += q.levels[l].length
	}
	if held != q.length {
		return invariant.Errorf("PQ6", "Len %d, levels, small mode and due list count %d", q.length, held)
	}
	return nil
}

// minLocal returns the smallest key on the levels and in small mode (-1
// when they hold nothing), found as computeMinKey finds it (through the
// bitmaps and the lowest bucket) but reading every key it needs from the
// entries, and caching nothing. It reports false when that would walk a
// slot or a bucket of more than walkMax entries. It reads the bitmaps and
// the occupancy word, so on a queue whose PQ7 or PQ15 is broken the
// minimum it finds may be wrong; on a valid queue it is exact.
func (q *Queue[T]) minLocal() (int64, bool) {
	if q.small {
		r := &q.rad
		if r.occ == 0 {
			return -1, true
		}
		b := bits.TrailingZeros64(r.occ)
		if b >= len(r.b) || len(r.b[b].e) > walkMax {
			return 0, false
		}
		m := int64(math.MaxInt64)
		for _, e := range r.b[b].e {
			if e.idx != 0 {
				m = min(m, e.key)
			}
		}
		return m, true
	}
	best := int64(math.MaxInt64)
	for l := range q.levels {
		lv := &q.levels[l]
		if lv.minKey > best {
			break
		}
		if lv.slots == nil {
			continue
		}
		start := lv.slot(lv.minKey)
		s := lv.occupied.next(start)
		if s < 0 {
			s = lv.occupied.next(0)
		}
		if s < 0 {
			continue
		}
		dist := int64((uint64(s) - uint64(start)) & lv.mask)
		slotStart := lv.alignDown(lv.minKey) + dist<<lv.shift
		if slotStart >= best {
			continue
		}
		v := &lv.slots[s]
		if len(v.front)+len(v.back) > walkMax {
			return 0, false
		}
		q.each(l, s, func(i uint32) bool {
			best = min(best, q.keyOf(q.rec(i)))
			return true
		})
	}
	if best == math.MaxInt64 {
		return -1, true
	}
	return best, true
}

// Package queue is the hierarchical timing-wheel priority queue behind
// packages priorityqueue (its public face and semantics), timingwheel and
// simclock: the port of the Priority_queue in Jane Street's OCaml
// Timing_wheel. An element carries a time t in [0, MaxKey] and is keyed by
// t >> Shift(). Elements live on the levels (slot vectors, queue.go and
// slots.go), in small mode's radix heap (small.go), or in the due list
// (taken out, waiting for FireDue). Every operation has one entry point that
// checks its input. How it works: docs/design.md, "The priority queue";
// invariants: docs/invariants.md. A Queue is not safe for concurrent use.
package queue

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"unsafe"

	"github.com/gotimingwheel/timingwheel/internal/checked"
	"github.com/gotimingwheel/timingwheel/internal/pool"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// MaxKey is the largest key (and time) a queue holds: 2^62 - 1.
const MaxKey int64 = 1<<62 - 1

// Errors, usable with errors.Is. Every error leaves the queue unchanged.
var (
	// ErrKeyOutOfRange: a key (or time) outside what the call accepts.
	ErrKeyOutOfRange = errors.New("priorityqueue: key out of range")
	// ErrInvalidAlarm: the handle is null, was removed, fired or cleared, or
	// belongs to another queue.
	ErrInvalidAlarm = errors.New("priorityqueue: alarm is not in the queue")
)

// level is one level of the queue (docs/design.md, "Levels and slots").
type level struct {
	bits        uint   // b_i: the level has 1<<bits slots
	shift       uint   // s_i = b_0 + ... + b_(i-1): each slot is 1<<shift keys wide
	mask        uint64 // 1<<bits - 1: a key's slot is (key >> shift) & mask
	span        int64  // maxKey - minKey when the range is not clamped at MaxKey
	minKey      int64  // first key the level covers; slot-aligned unless MaxKey
	maxKey      int64  // last key the level covers
	length      int    // elements held at this level
	slots       []slot // each slot's records, count and cached minimum (slots.go); nil until first used
	occupied    bitmap // bit s is set iff slot s holds an element
	keysPerSlot int64  // 1<<shift
}

func (lv *level) slot(key int64) int { return int((uint64(key) >> lv.shift) & lv.mask) }

func (lv *level) alignDown(key int64) int64 { return key &^ (lv.keysPerSlot - 1) }

// nextOccupied returns the first occupied slot from key's slot on, wrapping
// around, and the first key it covers from key on. lv must hold an element.
func (lv *level) nextOccupied(key int64) (int, int64) {
	start := lv.slot(key)
	s := lv.occupied.next(start)
	if s < 0 {
		s = lv.occupied.next(0)
	}
	return s, lv.alignDown(key) + int64((uint64(s)-uint64(start))&lv.mask)<<lv.shift
}

// minAfter is the original's compute_min_allowed_key (PQ2).
func (lv *level) minAfter(prevMax int64) int64 {
	if prevMax == MaxKey {
		return MaxKey
	}
	return lv.alignDown(prevMax + 1)
}

func addClamp(a, d int64) int64 {
	if a > MaxKey-d {
		return MaxKey
	}
	return a + d
}

// Queue is a timing-wheel priority queue of values of type T (New, NewTimed).
type Queue[T any] struct {
	pool       *pool.Pool[T]
	levels     []level
	shift      uint  // key = time >> shift
	reach      int64 // min(top level's maxKey, MaxKey >> shift): MaxAllowedKey(), except while small mode lets the levels lag
	length     int   // elements linked at a level or waiting in the due list
	minAllowed int64 // MinAllowedKey(); levels[0].minKey lags it only in small mode (PQ9)
	minKey     int64 // when minValid: the smallest key of any element
	minValid   bool

	// The due list: dueBuf[duePos:], record indices in removal order (0: a
	// tombstone); dueLen counts the live ones.
	dueBuf []uint32
	duePos int
	dueLen int

	scratch []uint32
	sink    uint8        // written by prefetching loads so that the compiler keeps them
	spare   [][][]uint32 // spare[k]: empty vectors of capacity vecBase<<k (slots.go, PQ16)

	// Small mode (small.go, PQ14): the elements not due are in rad; curCap
	// is in [smallCap, wideCap] (smallCap 0: never small).
	small    bool
	smallCap int
	wideCap  int
	curCap   int

	// The step order (steporder.go, PQ17): when ordKey >= MinAllowedKey,
	// ord is a binary min-heap of the elements of key ordKey not due, by
	// time, ties by their numbers, which follow their removal order and are
	// below ordNext; ordAt[i] is record i's position in it. MinTime builds
	// it at a shift above 0; RemoveAtMinKey takes from its root; Add,
	// Change and Remove keep it; Clear and Shrink drop it (ordKey -1), and a
	// CollectTo past ordKey leaves it dead.
	ord     []ordEnt
	ordAt   []uint32
	ordNext uint32
	ordKey  int64

	firing     []uint32 // records whose removal handler is running (a stack, for re-entrant calls)
	epoch      uint64   // bumped by Clear, so running drains forget their records
	counts     Counts
	chk        chkLog // checked mode's log (checklocal.go); no size without -tags twcheck
	rad        radix  // small mode's radix heap
	errInvalid error  // the sentinel a bad handle's error wraps
}

// SetInvalidAlarmError makes the errors for a handle that is not in the queue
// wrap sentinel instead of ErrInvalidAlarm (an owner's own error).
func (q *Queue[T]) SetInvalidAlarmError(sentinel error) { q.errInvalid = sentinel }

// Element is what a removal handler receives (priorityqueue.Element, with
// Time; Key is Time >> Shift()).
type Element[T any] struct {
	Alarm pool.Handle
	Key   int64
	Time  int64
	Value T
}

// Counts are a queue's cumulative counters (priorityqueue.Counts).
type Counts struct {
	Added   uint64 // elements added
	Removed uint64 // elements removed by Remove
	Fired   uint64 // elements removed by IncreaseMinAllowedKey or RemoveAtMinKey
	Cleared uint64 // elements dropped by Clear
	Moved   uint64 // moves of an element down a level (cascades)
}

// Counts returns the cumulative counters.
func (q *Queue[T]) Counts() Counts { return q.counts }

// checkAfter is checked mode's check after a mutating call (checklocal.go).
func (q *Queue[T]) checkAfter(call string, args ...any) {
	if err := q.CheckCall(); err != nil {
		checked.Fail("priorityqueue."+call, args, err)
	}
}

// NewTimed returns an empty queue, as priorityqueue.New does, for elements
// keyed by time >> shift (a timing wheel of precision 2^shift; shift 0 for
// priorityqueue). Level bits beyond 62 - shift describe keys no time
// reaches (config.New trims them).
func NewTimed[T any](lb levelbits.LevelBits, capacity int, shift uint) *Queue[T] {
	if err := lb.Invariant(); err != nil {
		panic(fmt.Sprintf("priorityqueue: invalid level bits %v: %v", lb, err))
	}
	if shift > 62 {
		panic(fmt.Sprintf("priorityqueue: shift %d > 62", shift))
	}
	if capacity < 0 || int64(capacity) > pool.MaxRecords {
		panic(fmt.Sprintf("priorityqueue: capacity %d out of range [0, %d]", capacity, pool.MaxRecords))
	}
	q := &Queue[T]{pool: pool.NewPool[T](capacity), shift: shift, errInvalid: ErrInvalidAlarm, ordKey: -1}
	q.levels = make([]level, lb.Len())
	var bitsPerSlot uint
	for i := range q.levels {
		b := uint(lb.At(i))
		lv := &q.levels[i]
		lv.bits, lv.shift, lv.mask, lv.keysPerSlot = b, bitsPerSlot, 1<<b-1, 1<<bitsPerSlot
		lv.span = MaxKey
		if b+bitsPerSlot < 62 {
			lv.span = 1<<(b+bitsPerSlot) - 1
		}
		lv.minKey = -1 // no range yet: setMin lays out every level
		bitsPerSlot += b
	}
	q.setMin(0)
	q.smallCap = smallCapFor(q.levels[0].bits)
	q.wideCap = wideCapFor(q.levels[0].bits)
	q.small, q.curCap = q.smallCap > 0, q.smallCap
	return q
}

// Len returns the number of elements in the queue. Cost: O(1).
func (q *Queue[T]) Len() int { return q.length }

// MinAllowedKey returns the smallest key Add accepts. Cost: O(1).
func (q *Queue[T]) MinAllowedKey() int64 { return q.minAllowed }

// MaxAllowedKey is priorityqueue.Queue.MaxAllowedKey, capped at MaxKey >>
// Shift(). Cost: O(1), or O(levels) in small mode after an increase.
func (q *Queue[T]) MaxAllowedKey() int64 {
	if q.levels[0].minKey != q.minAllowed {
		return q.reachFrom(q.minAllowed)
	}
	return q.reach
}

// fits is the one range check of Add and Change: MinAllowedKey() <= key <=
// MaxAllowedKey(), for key = t >> Shift(). That holds t in [0, MaxKey] too:
// MinAllowedKey() >= 0 refuses t < 0, and since MaxKey's bits are all ones
// and MaxAllowedKey() <= MaxKey >> Shift(), t >> Shift() <= MaxKey >>
// Shift() only when t <= MaxKey. The lagging reach of small mode is a lower
// bound, so it is tried first.
func (q *Queue[T]) fits(key int64) bool {
	return key >= q.minAllowed && (key <= q.reach || key <= q.reachFrom(q.minAllowed))
}

// rangeError is the error for a time t that fits refused.
func (q *Queue[T]) rangeError(t int64) error {
	if q.shift == 0 {
		return fmt.Errorf("%w: key %d, allowed [%d, %d]", ErrKeyOutOfRange, t, q.minAllowed, q.MaxAllowedKey())
	}
	return fmt.Errorf("%w: time %d has key %d, allowed keys [%d, %d] of times in [0, %d]",
		ErrKeyOutOfRange, t, t>>q.shift, q.minAllowed, q.MaxAllowedKey(), MaxKey)
}

// reachFrom returns what reach would be with level 0 starting at min0.
func (q *Queue[T]) reachFrom(min0 int64) int64 {
	hi := addClamp(min0, q.levels[0].span)
	for l := 1; l < len(q.levels); l++ {
		lv := &q.levels[l]
		hi = addClamp(lv.minAfter(hi), lv.span)
	}
	return min(hi, MaxKey>>q.shift)
}

// Shift returns the shift that maps an element's time to its key.
func (q *Queue[T]) Shift() uint { return q.shift }

// NumLevels returns the number of levels.
func (q *Queue[T]) NumLevels() int { return len(q.levels) }

// LevelLen returns the number of elements at level i, not due; small mode's
// count as level 0's.
func (q *Queue[T]) LevelLen(i int) int {
	if i == 0 {
		return q.levels[0].length + q.rad.n
	}
	return q.levels[i].length
}

// Capacity returns how many elements the queue holds before its pool grows.
func (q *Queue[T]) Capacity() int { return q.pool.Cap() }

// rec returns record i. A function given both i and a record r is given r
// = rec(i), which its caller has already read: the read costs a few
// instructions, more in a large pool. r is valid until the pool's next
// Alloc or Shrink.
func (q *Queue[T]) rec(i uint32) *pool.Record[T] { return q.pool.Rec(i) }

// keyOf returns r's key. The mask (shift <= 62) spares Go's code for shifts
// of 64 or more.
func (q *Queue[T]) keyOf(r *pool.Record[T]) int64 { return r.Time >> (q.shift & 63) }

// Add is priorityqueue.Queue.Add for an element of time t in [0, MaxKey],
// keyed by t >> Shift().
func (q *Queue[T]) Add(t int64, v T) (pool.Handle, error) {
	key := t >> (q.shift & 63) // as in keyOf
	if !q.fits(key) {
		return pool.Handle{}, q.rangeError(t)
	}
	h, r := q.pool.Alloc(t, v, 0)
	q.insert(pool.Index(h), r, key)
	q.counts.Added++
	if checked.On {
		q.checkAfter("Add", t)
	}
	return h, nil
}

// insert adds record i (r) after every element with its key, in small mode or
// on the levels (entering or leaving small mode first), and keeps the count
// and the cached minimum.
func (q *Queue[T]) insert(i uint32, r *pool.Record[T], key int64) {
	if !q.small && q.smallCap > 0 && q.length == q.dueLen {
		q.enterSmall() // the levels hold nothing
	}
	if q.small && q.rad.n >= q.curCap && !q.makeRoom() {
		q.spill()
	}
	if q.small {
		q.smallPut(i, r, key)
	} else {
		q.place(i, r, key)
	}
	if key == q.ordKey {
		q.ordAdd(i, r.Time)
	}
	q.length++
	if q.minValid {
		if key < q.minKey {
			q.minKey = key
		}
	} else if q.length-q.dueLen == 1 {
		q.minKey, q.minValid = key, true
	}
}

// place puts record i (r) at the back of its slot on the lowest level covering
// key (the original's add_elt).
func (q *Queue[T]) place(i uint32, r *pool.Record[T], key int64) {
	l := 0
	for key > q.levels[l].maxKey {
		l++
	}
	lv := &q.levels[l]
	s := lv.slot(key)
	q.put(l, s, i, r, key, false)
}

// detach takes record i (r) out of the queue without freeing it.
func (q *Queue[T]) detach(i uint32, r *pool.Record[T]) {
	key := q.keyOf(r)
	if q.isDue(r, key) {
		q.dueDel(i)
	} else {
		if q.small {
			q.smallDel(i, r, key)
		} else {
			l := int(r.State()) - 1
			q.del(l, q.levels[l].slot(key), r)
		}
		if q.minValid && key == q.minKey {
			q.minValid = false
		}
		if key == q.ordKey {
			q.ordDel(i)
		}
	}
	q.length--
}

// isDue reports whether record r (key key, not firing) is in the due list:
// marked so, or a level-0 record below MinAllowedKey (take leaves its
// records untouched).
func (q *Queue[T]) isDue(r *pool.Record[T], key int64) bool {
	return r.State() == pool.StateDue || r.State() == 1 && key < q.minAllowed
}

// member returns a's record index and record if a is in the queue (not
// firing), else nil.
func (q *Queue[T]) member(a pool.Handle) (uint32, *pool.Record[T]) {
	i, r := q.pool.Lookup(a)
	if r == nil || r.State() == pool.StateFiring {
		return 0, nil
	}
	return i, r
}

func (q *Queue[T]) invalid(a pool.Handle) error { return fmt.Errorf("%w: %v", q.errInvalid, a) }

// Mem is priorityqueue.Queue.Mem.
func (q *Queue[T]) Mem(a pool.Handle) bool {
	_, r := q.member(a)
	return r != nil
}

// Remove is priorityqueue.Queue.Remove.
func (q *Queue[T]) Remove(a pool.Handle) error {
	i, r := q.member(a)
	if r == nil {
		return q.invalid(a)
	}
	q.detach(i, r)
	q.pool.Free(i, r)
	q.counts.Removed++
	if checked.On {
		q.checkAfter("Remove", a)
	}
	return nil
}

// Change is priorityqueue.Queue.Change, with a time as in Add.
func (q *Queue[T]) Change(a pool.Handle, t int64) error {
	i, r := q.member(a)
	if r == nil {
		return q.invalid(a)
	}
	key := t >> (q.shift & 63) // as in keyOf
	if !q.fits(key) {
		return q.rangeError(t)
	}
	q.detach(i, r)
	r.Time = t
	q.insert(i, r, key)
	if checked.On {
		q.checkAfter("Change", a, t)
	}
	return nil
}

// Lookup returns a's element, also inside a's removal handler. Error:
// ErrInvalidAlarm. Cost: O(1).
func (q *Queue[T]) Lookup(a pool.Handle) (Element[T], error) {
	_, r := q.pool.Lookup(a)
	if r == nil {
		return Element[T]{}, q.invalid(a)
	}
	return Element[T]{Alarm: a, Key: q.keyOf(r), Time: r.Time, Value: r.Value}, nil
}

// MinKey is priorityqueue.Queue.MinKey.
func (q *Queue[T]) MinKey() (int64, bool) {
	if q.dueLen == 0 && q.minValid && q.length > 0 {
		return q.minKey, true // the common case, without a call
	}
	return q.minKeySlow()
}

// minKeySlow is MinKey when elements are due (they come first) or the
// minimum is not cached.
func (q *Queue[T]) minKeySlow() (int64, bool) {
	if h := q.dueHead(); h != 0 {
		return q.keyOf(q.rec(h)), true
	}
	return q.levelMinKey()
}

// levelMinKey is MinKey over the elements not due, cached in q.minKey.
func (q *Queue[T]) levelMinKey() (int64, bool) {
	if q.length-q.dueLen == 0 {
		return 0, false
	}
	if !q.minValid {
		q.minKey = q.computeMinKey()
		q.minValid = true
	}
	return q.minKey, true
}

func (q *Queue[T]) computeMinKey() int64 {
	if q.small {
		_, k, _ := q.rlowest()
		return k
	}
	best := int64(math.MaxInt64)
	for l := range q.levels {
		lv := &q.levels[l]
		if lv.minKey > best {
			break
		}
		if lv.length == 0 {
			continue
		}
		s, slotMin := lv.nextOccupied(lv.minKey)
		if slotMin >= best {
			continue
		}
		if l == 0 {
			best = slotMin // one key per slot at level 0
			continue
		}
		best = min(best, q.slotMin(l, s))
	}
	return best
}

// slotMin returns the smallest key in occupied slot s of level l >= 1,
// cached (PQ13) or found by a walk of the slot, which it caches.
func (q *Queue[T]) slotMin(l, s int) int64 {
	lv := &q.levels[l]
	if m := lv.slots[s].minKey; m != minUnknown {
		return m
	}
	m := int64(math.MaxInt64)
	q.each(l, s, func(i uint32) bool {
		m = min(m, q.keyOf(q.rec(i)))
		return true
	})
	lv.slots[s].minKey = m
	return m
}

// MinElt is priorityqueue.Queue.MinElt.
func (q *Queue[T]) MinElt() (pool.Handle, bool) {
	k, ok := q.MinKey()
	switch h := q.dueHead(); {
	case !ok:
		return pool.Handle{}, false
	case h != 0: // the due list comes first
		return q.pool.Handle(h), true
	}
	first := uint32(0)
	take := func(i uint32) bool { first = i; return false }
	if q.small {
		q.smallEachWithKey(k, take)
	} else {
		q.eachWithKey(k, take)
	}
	if first == 0 {
		return pool.Handle{}, false // unreachable: an element holds key k
	}
	return q.pool.Handle(first), true
}

// eachWithKey calls f on the elements of key k on the levels, in removal
// order (older ones sit on higher levels), until f returns false.
func (q *Queue[T]) eachWithKey(k int64, f func(i uint32) bool) {
	for l := len(q.levels) - 1; l >= 0; l-- {
		lv := &q.levels[l]
		if lv.length == 0 || k < lv.minKey || k > lv.maxKey {
			continue
		}
		ok := true
		q.each(l, lv.slot(k), func(i uint32) bool {
			if q.keyOf(q.rec(i)) == k {
				ok = f(i)
			}
			return ok
		})
		if !ok {
			return
		}
	}
}

// MinTime returns the smallest time among the elements with the smallest
// key, or false when there is none; without due, among those not due (the
// due list holds what a panicking handler left). Cost: as MinKey; at a
// shift above 0, with no element due, the first call for a key also builds
// its step order, O(m) for m elements, and later calls read its root.
func (q *Queue[T]) MinTime(due bool) (int64, bool) {
	var k int64
	var ok bool
	if due {
		k, ok = q.MinKey()
	} else {
		k, ok = q.levelMinKey()
	}
	switch {
	case !ok:
		return 0, false
	case q.shift == 0: // one time per key
		return k, true
	case !due || q.dueLen == 0:
		return q.stepTime(k), true
	}
	lo, _ := q.keyTimes(k, due)
	return lo, true
}

// MinTimes returns the smallest and largest time among the elements with the
// smallest key, or false when there is none; without due, among those not
// due. Cost: as MinTime, plus O(m) for the m elements of the smallest key.
func (q *Queue[T]) MinTimes(due bool) (lo, hi int64, ok bool) {
	lo, ok = q.MinTime(due)
	switch {
	case !ok || q.shift == 0:
		return lo, lo, ok
	case !due || q.dueLen == 0:
		if q.ordKey != lo>>q.shift {
			return lo, lo, true // one element: stepTime built no order
		}
		return lo, q.ordTime(), true
	}
	lo, hi = q.keyTimes(lo>>q.shift, due)
	return lo, hi, true
}

// keyTimes walks the elements of key k, with due those in the due list too,
// and returns their smallest and largest time.
func (q *Queue[T]) keyTimes(k int64, due bool) (lo, hi int64) {
	lo, hi = math.MaxInt64, math.MinInt64
	note := func(i uint32) bool {
		if r := q.rec(i); q.keyOf(r) == k {
			lo, hi = min(lo, r.Time), max(hi, r.Time)
		}
		return true
	}
	if due {
		for _, i := range q.dueBuf[q.duePos:] {
			if i != 0 {
				note(i)
			}
		}
	}
	if q.small { // the levels hold nothing
		q.smallEachWithKey(k, note)
	} else {
		q.eachWithKey(k, note)
	}
	return lo, hi
}

// IncreaseMinAllowedKey is priorityqueue.Queue.IncreaseMinAllowedKey (with
// a shift above 0, a key past MaxKey >> Shift() leaves a queue that accepts
// no Add): CollectTo, then FireDue.
func (q *Queue[T]) IncreaseMinAllowedKey(key int64, removed func(Element[T])) error {
	if key > MaxKey {
		return fmt.Errorf("%w: key %d above %d", ErrKeyOutOfRange, key, MaxKey)
	}
	q.CollectTo(key, 0)
	q.FireDue(removed)
	if checked.On {
		q.checkAfter("IncreaseMinAllowedKey", key)
	}
	return nil
}

// DueLen returns the number of elements waiting in the due list.
func (q *Queue[T]) DueLen() int { return q.dueLen }

// CollectTo, IncreaseMinAllowedKey's first half, moves every element with a
// key below key to the due list in removal order and raises MinAllowedKey to
// key (a key at or below it, or above MaxKey, moves nothing). With limit > 0,
// once it has moved at least limit elements and finished their last key, it
// raises MinAllowedKey only to the next key left. It returns MinAllowedKey.
func (q *Queue[T]) CollectTo(key int64, limit int) int64 {
	if key > MaxKey || key <= q.minAllowed {
		return q.minAllowed
	}
	if q.small {
		return q.collectSmall(key, limit)
	}
	lv0 := &q.levels[0]
	n := 0
	for {
		k, ok := q.levelMinKey()
		if !ok || k >= key {
			break
		}
		if limit > 0 && n >= limit {
			key = k
			break
		}
		if k > lv0.minKey {
			q.setMin(k)
		}
		n += q.take(lv0.slot(k)) // every element of key k, oldest first
		q.minValid = false
		if key-1 <= lv0.maxKey && key <= q.levelsAboveMin() {
			// Every key left below key is on level 0: walk its bitmap.
			key, n = q.collectLevel0(k+1, key, n, limit)
			break
		}
	}
	q.minAllowed = key
	if lv0.minKey < key {
		q.setMin(key)
	}
	return key
}

// levelsAboveMin returns a lower bound on the keys held above level 0: level
// 1's minimum (not level 0's maximum: the ranges may overlap), or MaxKey+1.
func (q *Queue[T]) levelsAboveMin() int64 {
	if len(q.levels) == 1 {
		return MaxKey + 1
	}
	return q.levels[1].minKey
}

// collectLevel0 is CollectTo's loop once every key below key is on level 0
// and none below from: it takes level 0's slots for [from, key) with n
// taken so far, and returns the key to raise MinAllowedKey to and the new n.
// The slot it stops at caches the minimum when no level above is lower.
func (q *Queue[T]) collectLevel0(from, key int64, n, limit int) (int64, int) {
	lv := &q.levels[0]
	for lv.length > 0 {
		s, k := lv.nextOccupied(from)
		if k >= key || limit > 0 && n >= limit {
			if k < q.levelsAboveMin() {
				q.minKey, q.minValid = k, true
			}
			if k >= key {
				return key, n
			}
			return k, n
		}
		n += q.take(s)
		from = k + 1
	}
	return key, n
}

// FireDue, IncreaseMinAllowedKey's second half, removes the due list's
// elements in order, calling removed (if not nil) for each, and returns how
// many it removed.
func (q *Queue[T]) FireDue(removed func(Element[T])) (n int) {
	if q.dueLen == 0 {
		q.dueBuf, q.duePos = q.dueBuf[:0], 0
		return 0
	}
	depth, epoch := len(q.firing), q.epoch
	defer func() {
		for len(q.firing) > depth && q.epoch == epoch { // a handler panicked
			i := q.popFiring()
			q.pool.Free(i, q.rec(i))
		}
	}()
	warm := 0 // due entries before this one have been touched
	for q.duePos < len(q.dueBuf) {
		if q.duePos >= warm {
			warm = min(q.duePos+prefetchBurst, len(q.dueBuf))
			if warm-q.duePos > 1 { // one record gains nothing: it is read next
				q.touch(q.dueBuf[q.duePos:warm])
			}
		}
		i := q.dueBuf[q.duePos]
		q.duePos++
		if i == 0 {
			continue
		}
		q.dueLen--
		q.length--
		q.counts.Fired++
		n++
		r := q.rec(i)
		r.SetState(pool.StateFiring)
		if removed == nil {
			q.pool.Free(i, r)
			continue
		}
		q.firing = append(q.firing, i)
		removed(Element[T]{Alarm: q.pool.Handle(i), Key: q.keyOf(r), Time: r.Time, Value: r.Value})
		if q.epoch != epoch {
			return n // Clear ran inside the handler and freed everything
		}
		i = q.popFiring() // not the same i if a Shrink in the handler moved it
		q.pool.Free(i, q.rec(i))
	}
	q.dueBuf, q.duePos = q.dueBuf[:0], 0
	return n
}

// fireOne is FireDue for record i alone, taken out of small mode while the
// due list is empty, without going through the list.
func (q *Queue[T]) fireOne(i uint32, removed func(Element[T])) {
	q.length--
	q.counts.Fired++
	r := q.rec(i)
	r.SetState(pool.StateFiring)
	if removed == nil {
		q.pool.Free(i, r)
		return
	}
	depth, epoch := len(q.firing), q.epoch
	defer func() {
		if len(q.firing) > depth && q.epoch == epoch { // the handler panicked
			j := q.popFiring() // i, or where a Shrink moved it
			q.pool.Free(j, q.rec(j))
		}
	}()
	q.firing = append(q.firing, i)
	removed(Element[T]{Alarm: q.pool.Handle(i), Key: q.keyOf(r), Time: r.Time, Value: r.Value})
	if q.epoch != epoch {
		return // Clear ran inside the handler and freed everything
	}
	i = q.popFiring() // not the same i if a Shrink in the handler moved it
	q.pool.Free(i, q.rec(i))
}

func (q *Queue[T]) popFiring() uint32 {
	i := q.firing[len(q.firing)-1]
	q.firing = q.firing[:len(q.firing)-1]
	return i
}

// setMin sets level 0's minimum to newMin (no key is below it) and raises
// every higher level's as far as PQ2 allows, cascading the slots left behind.
func (q *Queue[T]) setMin(newMin int64) {
	lv0 := &q.levels[0]
	lv0.minKey = newMin
	lv0.maxKey = addClamp(newMin, lv0.span)
	prevMax := lv0.maxKey
	for l := 1; l < len(q.levels); l++ {
		lv := &q.levels[l]
		want := lv.minAfter(prevMax)
		if want == lv.minKey {
			break // this level did not move, so no higher level does
		}
		old := lv.minKey
		lv.minKey = want
		lv.maxKey = addClamp(want, lv.span)
		if lv.length > 0 {
			q.cascade(l, old, want)
		}
		prevMax = lv.maxKey
	}
	q.reach = min(q.levels[len(q.levels)-1].maxKey, MaxKey>>q.shift)
}

// cascade moves the elements of level l's slots that start in [from, to) down
// to lower levels.
func (q *Queue[T]) cascade(l int, from, to int64) {
	lv := &q.levels[l]
	nslots := int(lv.mask) + 1
	n := (to - from + lv.keysPerSlot - 1) >> lv.shift // slots whose start is below to
	start := lv.slot(from)
	if n >= int64(nslots) {
		q.cascadeRange(l, 0, nslots)
		return
	}
	end := start + int(n)
	if end <= nslots {
		q.cascadeRange(l, start, end)
	} else {
		q.cascadeRange(l, start, nslots)
		q.cascadeRange(l, 0, end-nslots)
	}
}

func (q *Queue[T]) cascadeRange(l, start, end int) {
	lv := &q.levels[l]
	for s := lv.occupied.next(start); s >= 0 && s < end; s = lv.occupied.next(s + 1) {
		v := &lv.slots[s] // backwards, each ahead in its new slot: the order stays
		q.moveAll(l, v.back, true)
		q.moveAll(l, v.front, false)
		q.empty(l, s)
		if lv.length == 0 {
			return
		}
	}
}

// moveAll moves down the records of a level-l slot vector idx, from the end
// if reverse, touching them a window ahead (a slot may hold more records
// than the cache).
func (q *Queue[T]) moveAll(l int, idx []uint32, reverse bool) {
	n := len(idx)
	window := func(lo, hi int) []uint32 {
		lo, hi = min(lo, n), min(hi, n)
		if reverse {
			return idx[n-hi : n-lo]
		}
		return idx[lo:hi]
	}
	q.touch(window(0, cascadeAhead))
	for k := 0; k < n; k++ {
		if k%cascadeAhead == 0 {
			q.touch(window(k+cascadeAhead, k+2*cascadeAhead))
		}
		j := k
		if reverse {
			j = n - 1 - k
		}
		if i := idx[j]; i != 0 {
			q.moveDown(l, i)
		}
	}
}

// touch loads the records named in idx in a tight loop, so that their cache
// misses overlap (Go has no prefetch instruction): the first and last word
// of each, for the two cache lines it may straddle.
func (q *Queue[T]) touch(idx []uint32) {
	var x uint8
	for _, i := range idx {
		r := q.pool.Rec(i)
		x += uint8(r.Time) + r.State()
	}
	q.sink = x
}

// moveDown puts record i, from a passed slot of level l, ahead in its slot
// on the highest lower level covering its key.
func (q *Queue[T]) moveDown(l int, i uint32) {
	r := q.rec(i)
	key := q.keyOf(r)
	t := l - 1
	for q.levels[t].minKey > key {
		t--
	}
	q.put(t, q.levels[t].slot(key), i, r, key, true)
	q.counts.Moved++
}

// RemoveAtMinKey (the wheel's FirePastAlarms) removes, in order, the due
// list and then the elements of key MinAllowedKey() and time <= maxTime,
// fixed before any handler runs, calling removed for each, and returns how
// many it removed.
func (q *Queue[T]) RemoveAtMinKey(maxTime int64, removed func(Element[T])) int {
	switch k := q.minAllowed; {
	case k == q.ordKey && q.takeOrdered(maxTime):
	case q.small: // the levels hold nothing
		q.removeAtMinSmall(k, maxTime)
	default:
		chosen := q.scratch[:0]
		q.eachWithKey(k, func(i uint32) bool {
			if q.rec(i).Time <= maxTime {
				chosen = append(chosen, i)
			}
			return true
		})
		for _, i := range chosen {
			r := q.rec(i)
			l := int(r.State()) - 1
			q.del(l, q.levels[l].slot(k), r)
			q.toDue(i)
		}
		q.scratch = chosen[:0]
	}
	n := q.FireDue(removed)
	if checked.On {
		q.checkAfter("RemoveAtMinKey", maxTime)
	}
	return n
}

// Advance is the wheel's AdvanceClockLimit on the queue (limit 0: no limit,
// AdvanceClock), with *now the wheel's clock (its key MinAllowedKey()): it
// collects the elements of the keys before to's (or, with limit > 0, of
// the keys up to the one where CollectTo stops), moves *now to
// max(*now, to), or to the start of the first key still holding due
// elements when it stops early, and removes the due elements with FireDue.
// It returns how many it removed and whether it reached to's key.
func (q *Queue[T]) Advance(now *int64, to int64, limit int, removed func(Element[T])) (int, bool) {
	target := max(to, *now)
	key := target >> (q.shift & 63)
	reached := q.CollectTo(key, limit)
	done := reached == key
	if !done {
		target = reached << (q.shift & 63) // the first key still holding due elements
	}
	*now = target
	return q.FireDue(removed), done
}

// Step is the wheel's Step on the queue, with *now the wheel's clock (its
// key MinAllowedKey()): when nothing is due and no element is at or before
// *now, it moves *now to the smallest time and MinAllowedKey to its key
// (nothing is below it to collect); then it is RemoveAtMinKey(*now,
// removed). Due elements (a panicking handler's) hold *now where it is. It
// returns how many it removed.
func (q *Queue[T]) Step(now *int64, removed func(Element[T])) int {
	// smallStepOne's own test, first for the crowded bucket 0 (a key of
	// several elements, as at a coarse precision), here without a call.
	if r := &q.rad; q.small && q.dueLen == 0 && r.occ != 0 && (r.occ&1 == 0 || r.b[0].live == 1) {
		if i := q.smallStepOne(now); i != 0 {
			q.fireOne(i, removed)
			if checked.On {
				q.checkAfter("RemoveAtMinKey", *now)
			}
			return 1
		}
	}
	// Due elements left by a panicking handler (or an enclosing call's)
	// are the earliest: they fire alone, and the clock stays.
	if k, ok := q.levelMinKey(); ok && q.dueLen == 0 {
		t := k // the smallest time (MinTime(false))
		if q.shift != 0 {
			t = q.stepTime(k)
		}
		if t > *now {
			*now = t
			// In small mode MinAllowedKey is k already: k is the key of
			// bucket 0, the base (at most MinAllowedKey, PQ15), or
			// smallStepOne split the lowest bucket on k and raised it.
			if !q.small {
				q.CollectTo(k, 0)
			}
		}
	}
	return q.RemoveAtMinKey(*now, removed)
}

// All is priorityqueue.Queue.All.
func (q *Queue[T]) All() iter.Seq[pool.Handle] {
	return func(yield func(pool.Handle) bool) {
		for _, i := range q.dueBuf[q.duePos:] {
			if i != 0 && !yield(q.pool.Handle(i)) {
				return
			}
		}
		if !q.smallEach(func(i uint32) bool { return yield(q.pool.Handle(i)) }) {
			return
		}
		for l := range q.levels {
			lv := &q.levels[l]
			if lv.length == 0 {
				continue
			}
			for s := lv.occupied.next(0); s >= 0; s = lv.occupied.next(s + 1) {
				ok := true
				q.each(l, s, func(i uint32) bool { ok = yield(q.pool.Handle(i)); return ok })
				if !ok {
					return
				}
			}
		}
	}
}

// Shrink is priorityqueue.Queue.Shrink; a queue left with few elements
// returns to small mode.
func (q *Queue[T]) Shrink() {
	q.ordKey, q.ord, q.ordAt = -1, nil, nil // records move
	if !q.small && q.smallCap > 0 && q.length-q.dueLen <= q.smallCap {
		q.unspill()
	}
	q.pool.Shrink(func(from, to uint32) {
		r := q.rec(to)
		if r.State() == pool.StateFiring {
			for k := range q.firing {
				if q.firing[k] == from {
					q.firing[k] = to
				}
			}
			return
		}
		if q.isDue(r, q.keyOf(r)) {
			for j := q.duePos; j < len(q.dueBuf); j++ {
				if q.dueBuf[j] == from {
					q.dueBuf[j] = to
				}
			}
			return
		}
		if q.small {
			b, p, ok := q.rad.entryOf(r.Pos, from)
			if !ok {
				panic("priorityqueue: moved record not in the small-mode buckets")
			}
			q.rad.b[b].e[p].idx = to
			return
		}
		l := int(r.State()) - 1
		v := &q.levels[l].slots[q.levels[l].slot(q.keyOf(r))]
		if p := r.Pos; p&frontBit != 0 {
			v.front[p&^frontBit] = to
		} else {
			v.back[p] = to
		}
	})
	for l := range q.levels {
		lv := &q.levels[l]
		if lv.length == 0 {
			lv.slots, lv.occupied = nil, nil
			continue
		}
		for s := range lv.slots {
			v := &lv.slots[s]
			if v.count == 0 {
				v.front, v.back = nil, nil
				continue
			}
			q.compact(l, s)
			if n := len(v.back); vecClass(n) < vecClass(cap(v.back)) {
				v.back = append(make([]uint32, 0, vecBase<<vecClass(n)), v.back...)
			}
		}
	}
	q.spare = nil
	q.smallClip()
	q.dueBuf, q.duePos = fit(q.dueBuf[q.duePos:]), 0 // a running FireDue reads both afresh
	q.firing = fit(q.firing)
	q.scratch = nil
	if checked.On {
		q.checkFull("Shrink")
	}
}

// fit returns s's entries in an array of their size, nil for none; unlike
// slices.Clip, it lets s's array go, which would stay alive uncounted by
// BytesHeld (it counts capacities).
func fit[E any](s []E) []E {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// BytesHeld estimates the memory the queue holds: itself and its levels,
// records, slots, vectors, spares, bitmaps, small mode's buckets, the due
// list and the other buffers, and the pool's forwarding maps.
func (q *Queue[T]) BytesHeld() int {
	n := q.pool.BytesHeld() + int(unsafe.Sizeof(*q)) + cap(q.levels)*int(unsafe.Sizeof(level{}))
	for l := range q.levels {
		lv := &q.levels[l]
		n += len(lv.occupied) * 8
		n += len(lv.slots) * int(unsafe.Sizeof(slot{}))
		for s := range lv.slots {
			n += (cap(lv.slots[s].back) + cap(lv.slots[s].front)) * 4
		}
	}
	for k, st := range q.spare {
		n += len(st)*(vecBase<<k)*4 + cap(st)*int(unsafe.Sizeof([]uint32(nil)))
	}
	n += cap(q.spare) * int(unsafe.Sizeof([][]uint32(nil)))
	n += (cap(q.firing)+cap(q.dueBuf)+cap(q.scratch)+cap(q.ordAt))*4 + cap(q.ord)*int(unsafe.Sizeof(ordEnt{})) + q.smallBytes()
	return n
}

// Clear is priorityqueue.Queue.Clear.
func (q *Queue[T]) Clear() {
	q.pool.Reset()
	for l := range q.levels {
		lv := &q.levels[l]
		for s := range lv.slots {
			lv.slots[s].count = 0
			q.vacate(lv, s)
		}
		clear(lv.occupied)
		lv.length = 0
	}
	q.counts.Cleared += uint64(q.length)
	q.length = 0
	q.dueBuf, q.duePos, q.dueLen = q.dueBuf[:0], 0, 0
	q.smallReset()
	q.small, q.curCap = q.smallCap > 0, q.smallCap
	q.ordKey = -1
	q.minValid = false // the original keeps a stale cached minimum here
	q.minKey = 0
	q.firing = q.firing[:0]
	q.epoch++
	if checked.On {
		q.checkFull("Clear")
	}
}

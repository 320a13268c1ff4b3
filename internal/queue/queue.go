// Package queue is the hierarchical timing-wheel priority queue behind
// package priorityqueue (its public face), package timingwheel and simclock's
// wheel. It is the port of the Priority_queue inside Jane Street's OCaml
// Timing_wheel, with the same level geometry and arithmetic, occupancy
// bitmaps so that no operation scans empty slots, and a total order on
// removal. Package priorityqueue's doc states the semantics and the handler
// rules; this one states the layout. docs/design.md has the long form.
//
// Each element carries a time t in [0, MaxKey] and is keyed by t >> Shift()
// (NewTimed; with New the shift is 0 and the time is the key). Every
// operation has one entry point that checks its input: Add, Change, Remove,
// Lookup, MinKey, MinElt and MinTimes, IncreaseMinAllowedKey, whose two
// halves CollectTo and FireDue a wheel calls apart, and RemoveAtMinKey.
//
// # Layout
//
// Level i has 2^b_i slots, where b_i are the level bits. Its slots are
// 2^s_i keys wide, where s_i = b_0 + ... + b_(i-1), so one slot of level i
// spans as many keys as all of level i-1. Each level covers the key range
// [min_i, max_i] with
//
//	min_0 = MinAllowedKey
//	max_i = min(min_i + 2^(b_i+s_i) - 1, MaxKey)
//	min_i = floor(max_(i-1)+1, 2^s_i)       (MaxKey if max_(i-1) = MaxKey)
//
// so the ranges leave no gap. A key k lives in slot (k >> s_i) mod 2^b_i of
// its level; a slot holds its records' indices in vectors, in order (see
// slots.go), and a bitmap per level marks the slots that hold any.
//
// Small mode (small.go): a queue with few elements keeps them in a radix
// heap instead, bucketed by the highest bit in which a key differs from the
// heap's base (at most MinAllowedKey), and the levels hold nothing; their
// geometry is brought up to MinAllowedKey only when the queue leaves small
// mode (it spills when the heap is full) or a query needs it.
//
// The due list: the elements an increase or RemoveAtMinKey has taken out,
// in removal order, waiting for FireDue to hand them to the removal handler
// one by one. It holds record indices, with zeros for the ones removed
// meanwhile; a handler that panics leaves the rest there, and they come
// first in every query and drain after.
//
// The removal handlers of IncreaseMinAllowedKey, RemoveAtMinKey and FireDue
// follow the rules in package priorityqueue's doc ("Removal handlers").
//
// A Queue is not safe for concurrent use.
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

// level is one level of the queue: 2^bits slots, each 2^shift keys wide,
// covering the keys [minKey, maxKey].
type level struct {
	bits        uint     // b_i: the level has 1<<bits slots
	shift       uint     // s_i = b_0 + ... + b_(i-1): each slot is 1<<shift keys wide
	mask        uint64   // 1<<bits - 1: a key's slot is (key >> shift) & mask
	span        int64    // maxKey - minKey when the range is not clamped at MaxKey
	minKey      int64    // first key the level covers; slot-aligned unless MaxKey
	maxKey      int64    // last key the level covers
	length      int      // elements held at this level
	slots       []slot   // each slot's records, count and cached minimum (slots.go); nil until first used
	arena       []uint32 // slotStart entries per slot: slot s's first back vector (chunk); allocated with slots
	occupied    bitmap   // bit s is set iff slot s holds an element
	keysPerSlot int64    // 1<<shift
}

func (lv *level) slot(key int64) int { return int((uint64(key) >> lv.shift) & lv.mask) }

func (lv *level) alignDown(key int64) int64 { return key &^ (lv.keysPerSlot - 1) }

// nextOccupied returns the first occupied slot of lv from key's slot on, in
// key order (wrapping around the level), and the first key that slot covers
// from key on. The level must hold an element.
func (lv *level) nextOccupied(key int64) (int, int64) {
	start := lv.slot(key)
	s := lv.occupied.next(start)
	if s < 0 {
		s = lv.occupied.next(0)
	}
	return s, lv.alignDown(key) + int64((uint64(s)-uint64(start))&lv.mask)<<lv.shift
}

// minAfter is the original's compute_min_allowed_key: the largest slot-aligned
// minimum that leaves no gap after a lower level ending at prevMax.
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

// Queue is a timing-wheel priority queue of values of type T. Make one with New
// or NewTimed.
type Queue[T any] struct {
	pool       *pool.Pool[T]
	levels     []level
	shift      uint  // key = time >> shift
	reach      int64 // min(top level's maxKey, MaxKey >> shift): MaxAllowedKey(), except while small mode lets the levels lag
	length     int   // elements linked at a level or waiting in the due list
	minAllowed int64 // MinAllowedKey(); levels[0].minKey lags it only in small mode (PQ9)

	minKey   int64 // when minValid: the smallest key of any element
	minValid bool

	// The due list: elements taken out of the levels, in removal order,
	// waiting to be removed. dueBuf[duePos:] holds their indices (0 is a
	// tombstone); dueLen counts the live ones.
	dueBuf []uint32
	duePos int
	dueLen int

	scratch []uint32
	sink    uint8 // written by prefetching loads so that the compiler keeps them

	// spare[k] holds empty slot vectors of capacity vecBase<<k that no slot
	// holds, for the next slot vector to grow (slots.go, PQ16).
	spare [][][]uint32

	// Small mode (small.go): while small is set, the elements not in the due
	// list are in rad, a radix heap, and the levels hold nothing. curCap is
	// the most it holds now: smallCap (0: never small), or more, up to
	// wideCap, after Adds that found it full with most keys beyond level 0;
	// it returns to smallCap when small mode empties.
	small    bool
	smallCap int
	wideCap  int
	curCap   int

	firing []uint32 // records whose removal handler is running (a stack, for re-entrant calls)
	epoch  uint64   // bumped by Clear, so running drains forget their records

	counts Counts

	chk chkLog // checked mode's log of what calls touched (checklocal.go); no size without -tags twcheck

	rad radix // small mode's radix heap (small.go)

	errInvalid error // the sentinel a bad handle's error wraps; nil: ErrInvalidAlarm
}

// SetInvalidAlarmError makes the errors for a handle that is not in the queue
// wrap sentinel instead of ErrInvalidAlarm, so that an owner (a timing wheel)
// reports them in its own name. Only the error paths read it.
func (q *Queue[T]) SetInvalidAlarmError(sentinel error) { q.errInvalid = sentinel }

// Element is what a removal handler receives: the element's handle, key,
// time and value, as they were when it was taken out of the queue. For a
// queue made by New, Time equals Key; for one made by NewTimed, Key is
// Time >> Shift().
type Element[T any] struct {
	Alarm pool.Handle
	Key   int64
	Time  int64
	Value T
}

// Counts are a queue's cumulative counters.
type Counts struct {
	Added   uint64 // elements added
	Removed uint64 // elements removed by Remove
	Fired   uint64 // elements removed by IncreaseMinAllowedKey or RemoveAtMinKey
	Cleared uint64 // elements dropped by Clear
	Moved   uint64 // moves of an element down a level (cascades)
}

// Counts returns the cumulative counters.
func (q *Queue[T]) Counts() Counts { return q.counts }

// checkAfter is checked mode's check after a mutating call (-tags twcheck):
// it panics, naming the call and its arguments, at a violation.
func (q *Queue[T]) checkAfter(call string, args ...any) {
	if err := q.CheckCall(); err != nil {
		q.fail(call, err, args...)
	}
}

// New returns an empty queue with the given level bits and room for capacity
// elements before it allocates; MinAllowedKey is 0. Each level i allocates 2^b_i
// slots on first use (about 80 bytes each with their counts, cached minimum
// and first vector), so level bits such as [40] are not usable. The level
// bits must be valid (see levelbits.New); New panics otherwise.
func New[T any](lb levelbits.LevelBits, capacity int) *Queue[T] {
	return NewTimed[T](lb, capacity, 0)
}

// NewTimed returns a queue whose elements carry a time t in [0, MaxKey] and are
// keyed by t >> shift: the form a timing wheel with precision 2^shift uses.
// With shift 0, time and key are the same and New is NewTimed(lb, capacity, 0).
// The level bits should sum to at most 62 - shift (config.New trims them so);
// more bits only describe keys that no time reaches.
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
	q := &Queue[T]{pool: pool.NewPool[T](capacity), shift: shift}
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
	if q.smallCap > 0 {
		q.enterSmall()
	}
	return q
}

// Len returns the number of elements in the queue. Cost: O(1).
func (q *Queue[T]) Len() int { return q.length }

// MinAllowedKey returns the smallest key Add accepts. It only grows, through
// IncreaseMinAllowedKey. Cost: O(1).
func (q *Queue[T]) MinAllowedKey() int64 { return q.minAllowed }

// MaxAllowedKey returns the largest key Add accepts: the top level's maximum
// once level 0 starts at MinAllowedKey, at least MinAllowedKey + 2^B - 1 (B
// the sum of the level bits), capped at MaxKey >> Shift(), the key of the
// last representable time. Cost: O(1), or O(levels) in small mode after an
// increase (the levels' geometry is brought up lazily there, syncLevels).
func (q *Queue[T]) MaxAllowedKey() int64 {
	if q.levels[0].minKey != q.minAllowed {
		return q.reachFrom(q.minAllowed)
	}
	return q.reach
}

// fits reports whether the queue accepts time t, whose key is key: 0 <= t
// <= MaxKey and MinAllowedKey() <= key <= MaxAllowedKey(). It is the one
// range check of Add and Change. The levels' geometry only moves up, so a key
// within the reach they have fits without computing the one they would have
// (small mode lets them lag).
func (q *Queue[T]) fits(t, key int64) bool {
	return uint64(t) <= uint64(MaxKey) && key >= q.minAllowed &&
		(key <= q.reach || key <= q.reachFrom(q.minAllowed))
}

// rangeError is the error for a time t that fits refused.
func (q *Queue[T]) rangeError(t int64) error {
	if q.shift == 0 {
		return fmt.Errorf("%w: key %d, allowed [%d, %d]", ErrKeyOutOfRange, t, q.minAllowed, q.MaxAllowedKey())
	}
	return fmt.Errorf("%w: time %d has key %d, allowed keys [%d, %d] of times in [0, %d]",
		ErrKeyOutOfRange, t, t>>q.shift, q.minAllowed, q.MaxAllowedKey(), MaxKey)
}

// setReach sets reach from the top level's maximum.
func (q *Queue[T]) setReach() { q.reach = min(q.levels[len(q.levels)-1].maxKey, MaxKey>>q.shift) }

// reachFrom returns what reach would be with level 0 starting at min0, as
// setMin lays the levels out, without moving them.
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

// LevelLen returns the number of elements held at level i (elements waiting
// in the due list are on no level; in small mode, the elements in the radix
// heap count as level 0's).
func (q *Queue[T]) LevelLen(i int) int {
	if i == 0 {
		return q.levels[0].length + q.smallLen()
	}
	return q.levels[i].length
}

// Capacity returns how many elements the queue holds before its record pool
// grows.
func (q *Queue[T]) Capacity() int { return q.pool.Cap() }

func (q *Queue[T]) rec(i uint32) *pool.Record[T] { return q.pool.Rec(i) }

// keyOf returns r's key. The mask changes nothing (NewTimed admits shifts up
// to 62) but spares the code Go emits for shifts of 64 or more.
func (q *Queue[T]) keyOf(r *pool.Record[T]) int64 { return r.Time >> (q.shift & 63) }

// Add adds an element with time t and value v, keyed by t >> Shift(), after
// every element already in the queue with that key, and returns its handle.
// On a queue made by New, time and key are the same. It fails with
// ErrKeyOutOfRange unless t is in [0, MaxKey] and MinAllowedKey() <= t >>
// Shift() <= MaxAllowedKey(). Cost: O(levels). It allocates only to grow: the
// record pool, when more elements are live than ever before, and a slot's
// vector, when no spare vector of the size it needs is left (slots.go: slots
// pass their large vectors to each other, so a steady load allocates nothing
// once the queue has seen it).
func (q *Queue[T]) Add(t int64, v T) (pool.Handle, error) {
	key := t >> (q.shift & 63) // as in keyOf
	if !q.fits(t, key) {
		return pool.Handle{}, q.rangeError(t)
	}
	i := q.pool.Alloc(t, v, 0)
	q.insert(i, key)
	q.counts.Added++
	if checked.On {
		q.checkAfter("Add", t)
	}
	return q.pool.Handle(i), nil
}

// insert adds record i (whose key is key) after every element with its key:
// in small mode to the radix heap, else (place) at the tail of its slot on
// the lowest level that covers key, as the original's add_elt. It enters
// small mode when the levels hold nothing, and leaves it when the radix heap
// is full and may not grow (makeRoom). Then it counts the element and keeps
// the cached minimum.
func (q *Queue[T]) insert(i uint32, key int64) {
	if !q.small && q.smallCap > 0 && q.length == q.dueLen {
		q.enterSmall() // the levels hold nothing
	}
	if q.small && q.smallLen() >= q.curCap && !q.makeRoom() {
		q.spill()
	}
	if q.small {
		q.smallPut(i, key)
	} else {
		q.place(i, key)
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

// place puts record i at the tail of its slot on the lowest level that covers
// key.
func (q *Queue[T]) place(i uint32, key int64) {
	l := 0
	for key > q.levels[l].maxKey {
		l++
	}
	lv := &q.levels[l]
	s := lv.slot(key)
	q.put(l, s, i, key, false)
}

// detach takes record i out of its level or the due list, without freeing it.
func (q *Queue[T]) detach(i uint32) {
	r := q.rec(i)
	key := q.keyOf(r)
	if q.isDue(r, key) {
		q.dueDel(i)
	} else {
		if q.small {
			q.smallDel(i, key)
		} else {
			l := int(r.State()) - 1
			q.del(l, q.levels[l].slot(key), i)
		}
		if q.minValid && key == q.minKey {
			q.minValid = false
		}
	}
	q.length--
}

// isDue reports whether record r (with key key, allocated, not firing) is in
// the due list. CollectTo splices level-0 slots into the due list without
// touching their records, so a record still marked as on level 0 whose key is
// below MinAllowedKey is due; RemoveAtMinKey marks the records it moves.
func (q *Queue[T]) isDue(r *pool.Record[T], key int64) bool {
	return r.State() == pool.StateDue || r.State() == 1 && key < q.minAllowed
}

// member returns the record index of a if a is in the queue (linked at a level
// or due, not being fired).
func (q *Queue[T]) member(a pool.Handle) (uint32, bool) {
	i, ok := q.pool.Lookup(a)
	if !ok || q.rec(i).State() == pool.StateFiring {
		return 0, false
	}
	return i, true
}

func (q *Queue[T]) invalid(a pool.Handle) error {
	sentinel := ErrInvalidAlarm
	if q.errInvalid != nil {
		sentinel = q.errInvalid
	}
	return fmt.Errorf("%w: %v", sentinel, a)
}

// Mem reports whether a is in the queue. An element whose removal handler is
// running is no longer in the queue. Cost: O(1).
func (q *Queue[T]) Mem(a pool.Handle) bool {
	_, ok := q.member(a)
	return ok
}

// Remove removes a from the queue; a becomes invalid. It fails with
// ErrInvalidAlarm if a is not in the queue. Cost: O(1).
func (q *Queue[T]) Remove(a pool.Handle) error {
	i, ok := q.member(a)
	if !ok {
		return q.invalid(a)
	}
	q.detach(i)
	q.pool.Free(i)
	q.counts.Removed++
	if checked.On {
		q.checkAfter("Remove", a)
	}
	return nil
}

// Change gives a the time t, keyed by t >> Shift() (on a queue made by New,
// the key t), keeping its handle and value; a goes after every other element
// with that key. Errors: ErrInvalidAlarm, then ErrKeyOutOfRange as for Add.
// Cost: O(levels).
func (q *Queue[T]) Change(a pool.Handle, t int64) error {
	i, ok := q.member(a)
	if !ok {
		return q.invalid(a)
	}
	key := t >> (q.shift & 63) // as in keyOf
	if !q.fits(t, key) {
		return q.rangeError(t)
	}
	q.detach(i)
	q.rec(i).Time = t
	q.insert(i, key)
	if checked.On {
		q.checkAfter("Change", a, t)
	}
	return nil
}

// Lookup returns a's handle, key, time and value. Unlike Mem, it answers
// inside the handler that is removing a. Error: ErrInvalidAlarm. Cost: O(1).
func (q *Queue[T]) Lookup(a pool.Handle) (Element[T], error) {
	i, ok := q.pool.Lookup(a)
	if !ok {
		return Element[T]{}, q.invalid(a)
	}
	r := q.rec(i)
	return Element[T]{Alarm: a, Key: q.keyOf(r), Time: r.Time, Value: r.Value}, nil
}

// MinKey returns the smallest key in the queue, or false when it is empty.
// Cost: O(1) when cached (after Add, and after IncreaseMinAllowedKey), else
// O(levels + elements in one slot per level).
func (q *Queue[T]) MinKey() (int64, bool) {
	if q.dueLen == 0 && q.minValid && q.length > 0 {
		return q.minKey, true // the common case, without a call
	}
	return q.minKeySlow()
}

// minKeySlow is MinKey when elements are due or the minimum is not cached.
func (q *Queue[T]) minKeySlow() (int64, bool) {
	if h := q.dueHead(); h != 0 {
		// Due elements come before every element on the levels.
		return q.keyOf(q.rec(h)), true
	}
	return q.levelMinKey()
}

// levelMinKey is MinKey over the elements on the levels (not the due list),
// cached in q.minKey.
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
		return q.smallMinKey()
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

// slotMin returns the smallest key in occupied slot s of level l >= 1: the
// cached one, or else the result of a walk of the slot, which it caches.
// Without the cache, finding the minimum after level 0 runs dry walks the
// next higher slot and reads every record in it, at random addresses, just
// before the cascade reads them all again.
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

// MinElt returns the element IncreaseMinAllowedKey would remove first: the
// smallest key, and among those the earliest added or changed. False when the
// queue is empty. Cost: as MinKey, plus a walk of the slots holding that key.
func (q *Queue[T]) MinElt() (pool.Handle, bool) {
	k, ok := q.MinKey()
	switch h := q.dueHead(); {
	case !ok:
		return pool.Handle{}, false
	case h != 0: // the due list comes first
		return q.pool.Handle(h), true
	case q.small:
		return q.pool.Handle(q.smallFirstWithKey(k)), true
	}
	// Older elements of a key sit on higher levels: the first on the highest
	// level that holds one.
	for l := len(q.levels) - 1; l >= 0; l-- {
		lv := &q.levels[l]
		if lv.length == 0 || k < lv.minKey || k > lv.maxKey {
			continue
		}
		first := uint32(0)
		q.each(l, lv.slot(k), func(i uint32) bool {
			if q.keyOf(q.rec(i)) == k {
				first = i
			}
			return first == 0
		})
		if first != 0 {
			return q.pool.Handle(first), true
		}
	}
	return pool.Handle{}, false // unreachable: an element holds key k
}

// MinTimes returns the smallest and largest time among the elements with the
// smallest key, or false when there is none. With due, every element counts,
// whatever level it sits on, and so do those waiting in the due list (which
// then hold the smallest key); without, the due list is left out (elements a
// panicking handler left behind). Cost: as MinKey, plus a walk of the slots
// holding that key.
func (q *Queue[T]) MinTimes(due bool) (lo, hi int64, ok bool) {
	var k int64
	if due {
		k, ok = q.MinKey()
	} else {
		k, ok = q.levelMinKey()
	}
	if !ok {
		return 0, 0, false
	}
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
	q.smallEachWithKey(k, note)
	for l := range q.levels {
		lv := &q.levels[l]
		if lv.length > 0 && k >= lv.minKey && k <= lv.maxKey {
			q.each(l, lv.slot(k), note)
		}
	}
	return lo, hi, true
}

// IncreaseMinAllowedKey raises MinAllowedKey to key and removes every element
// whose key is below it, calling removed (if not nil) for each, in ascending
// key order and, within a key, in the order the elements were added or
// changed. A key at or below MinAllowedKey removes nothing. It fails with
// ErrKeyOutOfRange for a key above MaxKey, and then changes nothing. On a
// queue made by NewTimed with a shift above 0, keys above MaxKey >> Shift()
// name no time: raising MinAllowedKey past MaxAllowedKey is allowed, and
// leaves a queue that accepts no Add (a timing wheel never does it).
//
// What removed may do, and what happens when it panics: see Removal handlers
// in the package doc.
//
// Cost: O(levels + occupied slots passed + elements removed or moved down).
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

// CollectTo is the first half of IncreaseMinAllowedKey, for wrappers (such as
// a timing wheel) that must update their own state before any handler runs.
// It moves every element with a key below key from the levels to the tail of
// the due list, in removal order, and raises MinAllowedKey to key (a key at or
// below it, or above MaxKey, moves nothing). With limit > 0 it stops early:
// once it has moved at least limit elements it finishes the key it is at and
// raises MinAllowedKey only to the next key that still has elements below
// key. It returns MinAllowedKey afterwards. Nothing is removed and no handler
// runs: FireDue does that.
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
		// Every element with key k now sits in one level-0 slot, oldest first.
		n += q.take(lv0.slot(k))
		q.minValid = false
		if key-1 <= lv0.maxKey && key <= q.levelsAboveMin() {
			// Every key left below key is on level 0: walk its bitmap
			// instead of recomputing the minimum over every level.
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
// 1's minimum (each level's minimum is at least the one below's, and a level
// holds no key below its minimum), or MaxKey+1 with a single level. Level 1's
// first slot may start inside level 0's range, so level 0's maximum is not
// such a bound.
func (q *Queue[T]) levelsAboveMin() int64 {
	if len(q.levels) == 1 {
		return MaxKey + 1
	}
	return q.levels[1].minKey
}

// collectLevel0 is CollectTo's loop once every element with a key below key
// is on level 0 and none has a key below from: it takes level 0's slots for
// the keys [from, key) in order, with n elements already taken, and returns
// the key to raise MinAllowedKey to (key, or with limit the first key left
// untaken) and the new n. The first occupied slot it stops at holds the
// smallest key left when that key is below every key above level 0; it
// caches it then.
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

// FireDue removes the due list's elements in order, calling removed (if not
// nil) for each, and returns how many this call removed. It is the second
// half of IncreaseMinAllowedKey (see Removal handlers in the package doc).
// Its nothing-due case comes first, so that an advance that fires nothing
// pays no more than a test.
func (q *Queue[T]) FireDue(removed func(Element[T])) (n int) {
	if q.dueLen == 0 {
		q.dueBuf, q.duePos = q.dueBuf[:0], 0
		return 0
	}
	depth, epoch := len(q.firing), q.epoch
	defer func() {
		if len(q.firing) > depth { // a handler panicked
			q.endFiring(depth, epoch)
		}
	}()
	warm := 0 // due entries before this one have been touched
	for q.duePos < len(q.dueBuf) {
		if q.duePos >= warm {
			// Touch the next records together, so that their cache misses
			// overlap, rather than one by one between handlers (see touch).
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
			q.pool.Free(i)
			continue
		}
		q.firing = append(q.firing, i)
		removed(Element[T]{Alarm: q.pool.Handle(i), Key: q.keyOf(r), Time: r.Time, Value: r.Value})
		if q.epoch != epoch {
			return n // Clear ran inside the handler and freed everything
		}
		// Re-read the index: a Shrink inside the handler may have moved the
		// record (it updates q.firing, not this local).
		i = q.firing[len(q.firing)-1]
		q.firing = q.firing[:len(q.firing)-1]
		q.pool.Free(i)
	}
	q.dueBuf, q.duePos = q.dueBuf[:0], 0
	return n
}

// endFiring frees the records of handlers that panicked in this drain.
func (q *Queue[T]) endFiring(depth int, epoch uint64) {
	if q.epoch != epoch {
		return
	}
	for len(q.firing) > depth {
		i := q.firing[len(q.firing)-1]
		q.firing = q.firing[:len(q.firing)-1]
		q.pool.Free(i)
	}
}

// setMin sets level 0's minimum to newMin and raises every higher level's
// minimum as far as the no-gap rule allows, moving the elements of the slots
// each level leaves behind down to lower levels. No element may have a key
// below newMin.
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
	q.setReach()
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
		// Walk the slot in reverse order and put each element ahead of its
		// new slot: the new slot gets this slot's order, ahead of the newer
		// elements already there.
		v := &lv.slots[s]
		q.moveAll(l, v.back, true)
		q.moveAll(l, v.front, false)
		q.empty(l, s)
		if lv.length == 0 {
			return
		}
	}
}

// moveAll moves down the records of a level-l slot vector idx, from the end
// if reverse, skipping tombstones. It touches the records a window ahead
// (see touch): the moves read each record at a random address, and a slot
// can hold more records than the cache, so touching them all first would
// evict the first before they are moved.
func (q *Queue[T]) moveAll(l int, idx []uint32, reverse bool) {
	n := len(idx)
	// window returns the entries at move positions [lo, hi) (counted from
	// the end if reverse).
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

// touch loads the records named in idx in a tight loop of independent loads,
// so that their cache misses overlap, ahead of a loop that reads them one by
// one with more work in between (Go has no prefetch instruction).
func (q *Queue[T]) touch(idx []uint32) {
	var x uint8
	for _, i := range idx {
		x += touchRec(q.pool.Rec(i))
	}
	q.sink = x
}

// touchRec loads the first and the last word of record r (its time and its
// state), which lie in the two cache lines a 24-byte record may straddle,
// and returns a byte of them for a sink.
func touchRec[T any](r *pool.Record[T]) uint8 { return uint8(r.Time) + r.State() }

// moveDown puts record i, from a slot of level l that the minimum has passed,
// ahead of the highest lower level's slot for its key.
func (q *Queue[T]) moveDown(l int, i uint32) {
	key := q.keyOf(q.rec(i))
	t := l - 1
	for q.levels[t].minKey > key {
		t--
	}
	q.put(t, q.levels[t].slot(key), i, key, true)
	q.counts.Moved++
}

// RemoveAtMinKey removes, in order, the elements whose key is MinAllowedKey()
// and whose time is <= maxTime, calling removed for each; the timing wheel's
// FirePastAlarms. The elements it removes are fixed before any handler runs:
// first those a panicking handler left due (they come first in key order),
// then the chosen ones, oldest first, which it moves to the due list before
// FireDue fires it. So elements that removed adds are never removed by this
// call, whatever the queue held when it was called (see Removal handlers in
// the package doc).
func (q *Queue[T]) RemoveAtMinKey(maxTime int64, removed func(Element[T])) {
	// Below MaxKey every element with key MinAllowedKey is on level 0; at
	// MaxKey older ones may stay on higher levels, whose slots holding MaxKey
	// never pass. Older elements sit higher, so take from the top down.
	k := q.minAllowed
	if q.small {
		q.removeAtMinSmall(k, maxTime)
	}
	for l := len(q.levels) - 1; l >= 0; l-- {
		lv := &q.levels[l]
		if lv.length == 0 || k < lv.minKey || k > lv.maxKey {
			continue
		}
		s := lv.slot(k)
		chosen := q.scratch[:0]
		q.each(l, s, func(i uint32) bool {
			if r := q.rec(i); r.Time <= maxTime && q.keyOf(r) == k {
				chosen = append(chosen, i)
			}
			return true
		})
		for _, i := range chosen {
			q.del(l, s, i)
			q.toDue(i)
		}
		q.scratch = chosen[:0]
	}
	q.FireDue(removed)
	if checked.On {
		q.checkAfter("RemoveAtMinKey", maxTime)
	}
}

// All returns an iterator over every element in the queue, each once, in no
// promised order. The queue must not be changed during the iteration.
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

// Shrink releases the record memory a burst left behind: the records of the
// elements in the queue move to the front of the pool and the rest is freed.
// A queue left with few elements returns to small mode and releases its
// levels' slot arrays.
// Every handle stays valid (a moved element is found through a forwarding
// entry, one per moved element, dropped when it leaves the queue), and stale
// handles stay rejected. The queue can grow again afterwards. Cost:
// O(capacity).
func (q *Queue[T]) Shrink() {
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
			q.smallMoved(from, to)
			return
		}
		l := int(r.State()) - 1
		v := &q.levels[l].slots[q.levels[l].slot(q.keyOf(r))]
		if p := r.Next; p&frontBit != 0 {
			v.front[p&^frontBit] = to
		} else {
			v.back[p] = to
		}
	})
	// Release the slots' spare capacity too: an empty level drops its slots,
	// an empty slot returns to its arena chunk, and the others are rewritten
	// without tombstones in the smallest vector that holds them (their
	// arena chunk, or a new one of capacity vecBase·2^k), leaving the old
	// one to the collector, as the spares are. The entries keep their
	// positions.
	for l := range q.levels {
		lv := &q.levels[l]
		if lv.length == 0 {
			lv.slots, lv.arena, lv.occupied = nil, nil, nil
			continue
		}
		for s := range lv.slots {
			v := &lv.slots[s]
			if v.count == 0 {
				v.front, v.back = nil, lv.chunk(s)
				continue
			}
			q.compact(l, s)
			switch n := len(v.back); {
			case n <= slotStart && cap(v.back) > slotStart:
				v.back = append(lv.chunk(s), v.back...)
			case n > slotStart && vecClass(n) < vecClass(cap(v.back)):
				v.back = append(make([]uint32, 0, vecBase<<vecClass(n)), v.back...)
			}
		}
	}
	q.spare = nil
	q.smallClip()
	q.dueBuf = slices.Clip(q.dueBuf)
	q.firing = slices.Clip(q.firing)
	q.scratch = nil
	if checked.On {
		q.checkFull("Shrink")
	}
}

// BytesHeld estimates the memory the queue holds: its records (used or
// not) and free stack, slot heads, arenas, slot vectors and spare vectors,
// bitmaps, buffers and forwarding entries.
func (q *Queue[T]) BytesHeld() int {
	n := q.pool.BytesHeld()
	for l := range q.levels {
		lv := &q.levels[l]
		n += len(lv.occupied) * 8
		n += len(lv.slots)*int(unsafe.Sizeof(slot{})) + cap(lv.arena)*4
		for s := range lv.slots {
			if c := cap(lv.slots[s].back); c > slotStart {
				n += c * 4
			}
			n += cap(lv.slots[s].front) * 4
		}
	}
	for k, st := range q.spare {
		n += len(st)*(vecBase<<k)*4 + cap(st)*int(unsafe.Sizeof([]uint32(nil)))
	}
	n += cap(q.spare) * int(unsafe.Sizeof([][]uint32(nil)))
	n += (cap(q.firing)+cap(q.dueBuf)+cap(q.scratch))*4 + q.smallBytes()
	n += q.pool.Moved() * 48 // two map entries per moved record, roughly
	return n
}

// Clear removes every element; every handle becomes invalid. MinAllowedKey
// stays. Cost: O(slots + capacity).
func (q *Queue[T]) Clear() {
	q.pool.Reset()
	for l := range q.levels {
		lv := &q.levels[l]
		for s := range lv.slots {
			lv.slots[s].count = 0
			clear(lv.slots[s].front) // the indices are dead; keep the capacity
			clear(lv.slots[s].back)
			lv.slots[s].front, lv.slots[s].back = lv.slots[s].front[:0], lv.slots[s].back[:0]
		}
		lv.occupied.reset()
		lv.length = 0
	}
	q.counts.Cleared += uint64(q.length)
	q.length = 0
	q.dueBuf, q.duePos, q.dueLen = q.dueBuf[:0], 0, 0
	q.smallReset()
	q.small = false
	if q.smallCap > 0 {
		q.enterSmall()
	}
	q.minValid = false // the original keeps a stale cached minimum here
	q.minKey = 0
	q.firing = q.firing[:0]
	q.epoch++
	if checked.On {
		q.checkFull("Clear")
	}
}

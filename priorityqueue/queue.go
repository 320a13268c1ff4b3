// Package priorityqueue is a monotone priority queue of int64 keys, for a
// discrete-event simulator, a shortest-path search with integer lengths, or
// any loop that removes keys in ascending order. It is the port of the
// Priority_queue inside Jane Street's OCaml Timing_wheel, and the structure
// package timingwheel stands on.
//
// Keys are int64 in [0, MaxKey]. Unlike a heap, the queue has no "delete
// min": it has a minimum allowed key that only grows. IncreaseMinAllowedKey(k)
// removes every element whose key is below k, in ascending key order and,
// within one key, in the order the elements were added or changed.
//
//	q := priorityqueue.New[string](levelbits.Default(), 0)
//	q.Add(7, "b")
//	q.Add(3, "a")
//	q.IncreaseMinAllowedKey(8, func(e priorityqueue.Element[string]) {
//		fmt.Println(e.Key, e.Value) // 3 a, then 7 b
//	})
//
// The level bits (package levelbits) say how far ahead of the minimum the
// queue reaches: Add accepts keys in [MinAllowedKey(), MaxAllowedKey()], and
// MaxAllowedKey grows with the minimum. levelbits.Default() reaches every
// key.
//
// # Cost
//
// Mem and Remove are O(1); Add and Change are O(levels).
// IncreaseMinAllowedKey costs O(levels + occupied slots passed + elements
// removed or moved down a level), and each element moves down at most once
// per level: a jump across a long empty range costs what a short one does. MinKey is
// O(1) when cached and otherwise O(levels + the elements of one slot per
// level). Once the queue has held its peak load, a steady load allocates
// nothing. docs/design.md says how.
//
// # Removal handlers
//
// IncreaseMinAllowedKey hands each element it removes to a handler, as an
// Element. A handler may call any method of the queue. Inside it, the
// element being removed is no longer a member (Mem is false) but Key and
// Value still answer for it. What a call removes is fixed before its first
// handler runs: an element a handler removes or changes before its turn is
// not removed by this call, and elements it adds are not removed by this call
// (MinAllowedKey has already moved). If a handler panics, the panic
// propagates, the queue stays valid, and the elements not yet removed stay in
// it, below MinAllowedKey: the next IncreaseMinAllowedKey (any key) removes
// them first. An IncreaseMinAllowedKey made from a handler first removes,
// with its own handler, what the enclosing calls have not removed yet, then
// its own.
//
// # Errors
//
// A call that fails changes nothing and returns an error that wraps
// ErrKeyOutOfRange or ErrInvalidAlarm (use errors.Is) and names the value it
// got. A handle that is not in the queue (removed, removed by
// IncreaseMinAllowedKey, cleared, the zero Alarm, or another queue's) gives
// ErrInvalidAlarm.
//
// # Invariant
//
// Invariant checks the structure and names the first broken invariant by its
// ID (PQ1-PQ17 and the record pool's AP1-AP9); docs/invariants.md states each
// as a formula. Built with -tags twcheck (checked mode), every mutating call
// checks what it touched and panics at a violation, and Invariant runs once
// per as many calls as the queue has slots and records, or after every call
// with TWCHECK=full in the environment.
//
// A Queue is not safe for concurrent use.
package priorityqueue

import (
	"iter"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/internal/queue"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// MaxKey is the largest key a queue holds: 2^62 - 1.
const MaxKey = queue.MaxKey

// Errors, usable with errors.Is. Every error leaves the queue unchanged.
var (
	// ErrKeyOutOfRange: a key outside what the call accepts; the message
	// names the key and the allowed range.
	ErrKeyOutOfRange = queue.ErrKeyOutOfRange
	// ErrInvalidAlarm: the handle is null, was removed (by Remove or
	// IncreaseMinAllowedKey) or cleared, or belongs to another queue.
	ErrInvalidAlarm = queue.ErrInvalidAlarm
)

// Element is what a removal handler receives: the removed element's handle,
// key and value.
type Element[T any] struct {
	Alarm alarm.Alarm
	Key   int64
	Value T
}

// Counts are a queue's cumulative counters.
type Counts struct {
	Added   uint64 // elements added
	Removed uint64 // elements removed by Remove
	Fired   uint64 // elements removed by IncreaseMinAllowedKey
	Cleared uint64 // elements dropped by Clear
	Moved   uint64 // moves of an element down a level (the lazy radix sort's work)
}

// Queue is a monotone priority queue of values of type T. Make one with New.
type Queue[T any] struct {
	impl queue.Queue[T]
}

// New returns an empty queue with the given level bits and room for capacity
// elements before it allocates; MinAllowedKey is 0. Each level i allocates
// 2^b_i slots on first use (about 64 bytes each), so level bits such as [40]
// are not usable. The level bits must be valid (see levelbits.New) and the
// capacity in [0, 2^32-2] (the records a queue can index); New panics
// otherwise, naming the value.
func New[T any](lb levelbits.LevelBits, capacity int) *Queue[T] {
	q := &Queue[T]{}
	q.impl = *queue.NewTimed[T](lb, capacity, 0)
	return q
}

// Add adds an element with key key and value v, after every element already
// in the queue with that key, and returns its handle. Error: ErrKeyOutOfRange
// unless MinAllowedKey() <= key <= MaxAllowedKey(). Cost: O(levels).
func (q *Queue[T]) Add(key int64, v T) (alarm.Alarm, error) { return q.impl.Add(key, v) }

// Mem reports whether a is in the queue. Cost: O(1).
func (q *Queue[T]) Mem(a alarm.Alarm) bool { return q.impl.Mem(a) }

// Remove removes a; a becomes invalid. Error: ErrInvalidAlarm. Cost: O(1).
func (q *Queue[T]) Remove(a alarm.Alarm) error { return q.impl.Remove(a) }

// Change gives a the key key, keeping its handle and value; a goes after every
// other element with that key. It serves as decrease-key and increase-key
// alike. Errors: ErrInvalidAlarm, then ErrKeyOutOfRange as for Add. Cost:
// O(levels).
func (q *Queue[T]) Change(a alarm.Alarm, key int64) error { return q.impl.Change(a, key) }

// Key returns a's key. Inside the handler removing a, it still answers.
// Error: ErrInvalidAlarm. Cost: O(1).
func (q *Queue[T]) Key(a alarm.Alarm) (int64, error) {
	e, err := q.impl.Lookup(a)
	return e.Key, err
}

// Value returns a's value. Inside the handler removing a, it still answers.
// Error: ErrInvalidAlarm. Cost: O(1).
func (q *Queue[T]) Value(a alarm.Alarm) (T, error) {
	e, err := q.impl.Lookup(a)
	return e.Value, err
}

// Len returns the number of elements in the queue. Cost: O(1).
func (q *Queue[T]) Len() int { return q.impl.Len() }

// IsEmpty reports whether Len() == 0. Cost: O(1).
func (q *Queue[T]) IsEmpty() bool { return q.impl.Len() == 0 }

// MinAllowedKey returns the smallest key Add accepts. It only grows, through
// IncreaseMinAllowedKey. Cost: O(1).
func (q *Queue[T]) MinAllowedKey() int64 { return q.impl.MinAllowedKey() }

// MaxAllowedKey returns the largest key Add accepts: the top level's last
// key, which grows with MinAllowedKey, at most MaxKey. Cost: O(1), or
// O(levels) while the queue holds few elements after an increase (its
// levels are then laid out only when needed).
func (q *Queue[T]) MaxAllowedKey() int64 { return q.impl.MaxAllowedKey() }

// MinKey returns the smallest key in the queue, or false when it is empty.
// Cost: O(1) when cached (after Add and IncreaseMinAllowedKey), else
// O(levels + the elements of one slot per level).
func (q *Queue[T]) MinKey() (int64, bool) { return q.impl.MinKey() }

// MinElt returns the element IncreaseMinAllowedKey would remove first: the
// smallest key, and among those the earliest added or changed. False when the
// queue is empty. Cost: as MinKey, plus a walk of the slots holding that key.
func (q *Queue[T]) MinElt() (alarm.Alarm, bool) { return q.impl.MinElt() }

// IncreaseMinAllowedKey raises MinAllowedKey to key and removes every element
// whose key is below it, calling removed (if not nil) for each, in ascending
// key order and, within a key, in the order the elements were added or
// changed. A key at or below MinAllowedKey removes nothing. Error:
// ErrKeyOutOfRange for a key above MaxKey, and then nothing changes. What
// removed may do: see Removal handlers in the package doc. Cost: O(levels +
// occupied slots passed + elements removed or moved down).
func (q *Queue[T]) IncreaseMinAllowedKey(key int64, removed func(Element[T])) error {
	if removed == nil {
		return q.impl.IncreaseMinAllowedKey(key, nil)
	}
	return q.impl.IncreaseMinAllowedKey(key, func(e queue.Element[T]) {
		removed(Element[T]{Alarm: e.Alarm, Key: e.Key, Value: e.Value})
	})
}

// All returns an iterator over every element in the queue, each once, in no
// promised order. The queue must not be changed during the iteration.
func (q *Queue[T]) All() iter.Seq[alarm.Alarm] { return q.impl.All() }

// Clear removes every element; every handle becomes invalid, for good.
// MinAllowedKey stays. Cost: O(slots + capacity).
func (q *Queue[T]) Clear() { q.impl.Clear() }

// Shrink releases the memory a burst left behind: the records of the
// elements in the queue move to the front and the rest is freed, and slots
// drop their spare capacity. Every handle stays valid and stale ones stay
// rejected. Cost: O(capacity + slots).
func (q *Queue[T]) Shrink() { q.impl.Shrink() }

// Capacity returns how many elements the queue holds before it allocates
// records again.
func (q *Queue[T]) Capacity() int { return q.impl.Capacity() }

// Counts returns the cumulative counters.
func (q *Queue[T]) Counts() Counts { return Counts(q.impl.Counts()) }

// Invariant checks every invariant of the queue and returns nil or an
// *invariant.Violation naming the first one broken (see the package doc).
// Cost: O(slots + capacity).
func (q *Queue[T]) Invariant() error { return q.impl.Invariant() }

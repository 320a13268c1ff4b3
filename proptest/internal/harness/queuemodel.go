package harness

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
)

type queueElt[T any] struct {
	id  ModelAlarm
	key int64
	v   T
	seq int // order of the last Add or Change
}

// QueueModel is a reference model of priorityqueue.Queue[T]: the same
// methods, errors and removal order, written to be read at a glance. Elements
// live in a slice kept sorted by (key, sequence number of the last Add or
// Change); removal takes them from the front one at a time, so removal
// handlers may change the model as they run.
//
// MaxAllowedKey is computed from the level bits by the geometry recurrence
// alone; nothing else of the queue's layout is modelled.
type QueueModel[T any] struct {
	bits   []int
	min    int64
	elts   []queueElt[T] // sorted by (key, seq)
	seq    int
	lastID ModelAlarm
	firing queueElt[T] // the element whose removal handler is running
}

// NewQueueModel returns a model of priorityqueue.New[T](lb, capacity) (the
// capacity is not observable).
func NewQueueModel[T any](lb levelbits.LevelBits) *QueueModel[T] {
	return &QueueModel[T]{bits: lb.Bits()}
}

// Len returns the number of elements.
func (m *QueueModel[T]) Len() int { return len(m.elts) }

// IsEmpty reports whether Len() == 0.
func (m *QueueModel[T]) IsEmpty() bool { return len(m.elts) == 0 }

// MinAllowedKey returns the smallest key Add accepts.
func (m *QueueModel[T]) MinAllowedKey() int64 { return m.min }

// MaxAllowedKey returns the top level's last key when level 0 starts at
// MinAllowedKey: min_0 = MinAllowedKey; max_i = min(min_i + 2^(b_i+s_i) - 1,
// MaxKey); min_(i+1) = max_i + 1 rounded down to a multiple of 2^(s_(i+1)),
// where s_i is the sum of the bits below level i.
func (m *QueueModel[T]) MaxAllowedKey() int64 { return levelsReach(m.bits, m.min) }

// levelsReach is the last key levels with bits bits hold when level 0 starts
// at lo, by the geometry's recurrence (see MaxAllowedKey).
func levelsReach(bits []int, lo int64) int64 {
	var hi int64
	s := 0
	for _, b := range bits {
		if s > 0 {
			if hi == maxNs {
				lo = maxNs
			} else {
				lo = (hi + 1) / (int64(1) << s) * (int64(1) << s)
			}
		}
		if b+s >= 62 || lo > maxNs-(int64(1)<<(b+s)-1) {
			hi = maxNs
		} else {
			hi = lo + int64(1)<<(b+s) - 1
		}
		s += b
	}
	return hi
}

func (m *QueueModel[T]) checkKey(key int64) error {
	if key < m.min || key > m.MaxAllowedKey() {
		return fmt.Errorf("%w: key %d, allowed [%d, %d]", priorityqueue.ErrKeyOutOfRange, key, m.min, m.MaxAllowedKey())
	}
	return nil
}

func (m *QueueModel[T]) find(a ModelAlarm) int {
	return slices.IndexFunc(m.elts, func(e queueElt[T]) bool { return e.id == a })
}

// insert puts e after every element with a key <= e.key: e has the largest
// sequence number so far.
func (m *QueueModel[T]) insert(e queueElt[T]) {
	i, _ := slices.BinarySearchFunc(m.elts, e.key+1, func(x queueElt[T], k int64) int { return cmp.Compare(x.key, k) })
	m.elts = slices.Insert(m.elts, i, e)
}

// Add adds an element with key key after every element with that key.
func (m *QueueModel[T]) Add(key int64, v T) (ModelAlarm, error) {
	if err := m.checkKey(key); err != nil {
		return 0, err
	}
	m.lastID++
	m.seq++
	m.insert(queueElt[T]{id: m.lastID, key: key, v: v, seq: m.seq})
	return m.lastID, nil
}

// Mem reports whether a is in the model.
func (m *QueueModel[T]) Mem(a ModelAlarm) bool { return m.find(a) >= 0 }

var errInvalidElt = fmt.Errorf("model: %w", priorityqueue.ErrInvalidAlarm)

// Remove removes a.
func (m *QueueModel[T]) Remove(a ModelAlarm) error {
	i := m.find(a)
	if i < 0 {
		return errInvalidElt
	}
	m.elts = slices.Delete(m.elts, i, i+1)
	return nil
}

// Change gives a the key key and puts it after every element with that key.
func (m *QueueModel[T]) Change(a ModelAlarm, key int64) error {
	i := m.find(a)
	if i < 0 {
		return errInvalidElt
	}
	if err := m.checkKey(key); err != nil {
		return err
	}
	e := m.elts[i]
	m.elts = slices.Delete(m.elts, i, i+1)
	m.seq++
	e.key, e.seq = key, m.seq
	m.insert(e)
	return nil
}

func (m *QueueModel[T]) lookup(a ModelAlarm) (queueElt[T], error) {
	if i := m.find(a); i >= 0 {
		return m.elts[i], nil
	}
	if a != 0 && a == m.firing.id {
		return m.firing, nil
	}
	return queueElt[T]{}, errInvalidElt
}

// Key returns a's key; it answers inside a's own removal handler.
func (m *QueueModel[T]) Key(a ModelAlarm) (int64, error) {
	e, err := m.lookup(a)
	return e.key, err
}

// Value returns a's value; it answers inside a's own removal handler.
func (m *QueueModel[T]) Value(a ModelAlarm) (T, error) {
	e, err := m.lookup(a)
	return e.v, err
}

// MinElt returns the element removed first: the smallest key, and within it
// the earliest Add or Change.
func (m *QueueModel[T]) MinElt() (ModelAlarm, bool) {
	if len(m.elts) == 0 {
		return 0, false
	}
	return m.elts[0].id, true
}

// MinKey returns the smallest key.
func (m *QueueModel[T]) MinKey() (int64, bool) {
	if len(m.elts) == 0 {
		return 0, false
	}
	return m.elts[0].key, true
}

// IncreaseMinAllowedKey raises MinAllowedKey to key (it never goes down) and
// then removes, one at a time and in order, every element with a key below
// MinAllowedKey, calling removed for each. A key above MaxKey is an error.
// If removed panics, the elements not yet removed stay (below
// MinAllowedKey), and the next call removes them first.
func (m *QueueModel[T]) IncreaseMinAllowedKey(key int64, removed func(ModelAlarm)) error {
	if key > maxNs {
		return fmt.Errorf("%w: key %d above %d", priorityqueue.ErrKeyOutOfRange, key, maxNs)
	}
	m.min = max(m.min, key)
	for len(m.elts) > 0 && m.elts[0].key < m.min {
		e := m.elts[0]
		m.elts = m.elts[1:]
		if removed != nil {
			m.firing = e
			func() {
				defer func() { m.firing = queueElt[T]{} }()
				removed(e.id)
			}()
		}
	}
	return nil
}

// Clear removes every element; MinAllowedKey stays.
func (m *QueueModel[T]) Clear() { m.elts = nil }

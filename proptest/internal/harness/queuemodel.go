package harness

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gotimingwheel/timingwheel/priorityqueue"
)

type queueElt struct {
	id  ModelAlarm
	key int64
	v   int
	seq int // order of the last Add or Change
}

// QueueModel is the reference model of a priorityqueue.Queue[int]: elements
// in a slice sorted by (key, order of the last Add or Change), removed from
// the front one at a time, so removal handlers may change the model as they
// run. Of the queue's layout it knows only MaxAllowedKey, by levelsReach.
type QueueModel struct {
	bits   []int
	min    int64 // MinAllowedKey
	elts   []queueElt
	seq    int
	lastID ModelAlarm
	firing queueElt // the element whose removal handler is running
}

var errInvalidElt = fmt.Errorf("model: %w", priorityqueue.ErrInvalidAlarm)

func (m *QueueModel) maxAllowedKey() int64 { return levelsReach(m.bits, m.min) }

// levelsReach is the last key of levels with bits bits when level 0 starts
// at lo: max_0 = lo + 2^b_0 - 1; min_(i+1) = max_i + 1 rounded down to a
// multiple of 2^s_(i+1), max_(i+1) = min_(i+1) + 2^(b_(i+1)+s_(i+1)) - 1,
// where s_i is the sum of the bits below level i; every max is capped at
// 2^62-1.
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

func (m *QueueModel) find(a ModelAlarm) int {
	return slices.IndexFunc(m.elts, func(e queueElt) bool { return e.id == a })
}

// insert puts e, checked, after every element with a key <= its key.
func (m *QueueModel) insert(e queueElt) error {
	if e.key < m.min || e.key > m.maxAllowedKey() {
		return fmt.Errorf("%w: key %d, allowed [%d, %d]", priorityqueue.ErrKeyOutOfRange, e.key, m.min, m.maxAllowedKey())
	}
	m.elts = slices.DeleteFunc(m.elts, func(x queueElt) bool { return x.id == e.id }) // Change
	m.seq++
	e.seq = m.seq
	i, _ := slices.BinarySearchFunc(m.elts, e.key+1, func(x queueElt, k int64) int { return cmp.Compare(x.key, k) })
	m.elts = slices.Insert(m.elts, i, e)
	return nil
}

func (m *QueueModel) add(op Op, v int) (ModelAlarm, error) {
	if err := m.insert(queueElt{id: m.lastID + 1, key: op.At, v: v}); err != nil {
		return 0, err
	}
	m.lastID++
	return m.lastID, nil
}

func (m *QueueModel) remove(a ModelAlarm) error {
	i := m.find(a)
	if i < 0 {
		return errInvalidElt
	}
	m.elts = slices.Delete(m.elts, i, i+1)
	return nil
}

// move is Change: a takes the key op.At, after every element with that key.
func (m *QueueModel) move(op Op, a ModelAlarm) error {
	i := m.find(a)
	if i < 0 {
		return errInvalidElt
	}
	e := m.elts[i]
	e.key = op.At
	return m.insert(e)
}

func (m *QueueModel) clear()                { m.elts = nil } // MinAllowedKey stays
func (m *QueueModel) shrink()               {}
func (m *QueueModel) mem(a ModelAlarm) bool { return m.find(a) >= 0 }
func (m *QueueModel) base() int64           { return m.min }

// lookup finds a member, or the element whose removal handler is running.
func (m *QueueModel) lookup(a ModelAlarm) (queueElt, error) {
	if i := m.find(a); i >= 0 {
		return m.elts[i], nil
	}
	if a != 0 && a == m.firing.id {
		return m.firing, nil
	}
	return queueElt{}, errInvalidElt
}

func (m *QueueModel) value(a ModelAlarm) (int, error) {
	e, err := m.lookup(a)
	return e.v, err
}

func (m *QueueModel) at(a ModelAlarm) (int64, error) {
	e, err := m.lookup(a)
	return e.key, err
}

func (m *QueueModel) observeOne(a ModelAlarm) view {
	e, err := m.lookup(a)
	v := view{Mem: m.mem(a)}
	v.set(0, e.key, err)
	v.set(1, int64(e.v), err)
	return v
}

// observe answers Len, IsEmpty, MinAllowedKey, MaxAllowedKey, the value of
// MinElt and MinKey.
func (m *QueueModel) observe() obs {
	if len(m.elts) == 0 {
		return obs{0, none, m.min, m.maxAllowedKey(), none, none}
	}
	return obs{int64(len(m.elts)), 0, m.min, m.maxAllowedKey(), int64(m.elts[0].v), m.elts[0].key}
}

// fire is IncreaseMinAllowedKey: MinAllowedKey rises to op.At (it never
// goes down), then every element with a key below it is removed, one at a
// time and in order. A key above MaxKey is an error. If a handler panics,
// the rest stay, and the next call removes them first.
func (m *QueueModel) fire(op Op, removed func(ModelAlarm)) (string, error) {
	if op.At > maxNs {
		return "", fmt.Errorf("%w: key %d above %d", priorityqueue.ErrKeyOutOfRange, op.At, maxNs)
	}
	m.min = max(m.min, op.At)
	for len(m.elts) > 0 && m.elts[0].key < m.min {
		e := m.elts[0]
		m.elts = m.elts[1:]
		m.firing = e
		func() {
			defer func() { m.firing = queueElt{} }()
			removed(e.id)
		}()
	}
	return "", nil
}

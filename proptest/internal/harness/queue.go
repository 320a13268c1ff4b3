package harness

import (
	"fmt"
	"iter"
	"slices"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
)

// Queue is proptest.Queue: the methods of *priorityqueue.Queue[int] the
// checks call.
type Queue interface {
	Len() int
	IsEmpty() bool
	MinAllowedKey() int64
	MaxAllowedKey() int64
	Add(key int64, v int) (alarm.Alarm, error)
	Remove(a alarm.Alarm) error
	Change(a alarm.Alarm, key int64) error
	Mem(a alarm.Alarm) bool
	Key(a alarm.Alarm) (int64, error)
	Value(a alarm.Alarm) (int, error)
	MinElt() (alarm.Alarm, bool)
	MinKey() (int64, bool)
	IncreaseMinAllowedKey(key int64, removed func(priorityqueue.Element[int])) error
	Clear()
	All() iter.Seq[alarm.Alarm]
	Shrink()
	Invariant() error
}

// QueueFactory makes the queue under test.
type QueueFactory = func(lb levelbits.LevelBits, capacity int) Queue

// QueueKind describes the queue's calls.
var QueueKind = &Kind{Name: "queue", thing: "element", verb: "removed", liveOdds: 5,
	queries:    []string{"Len", "IsEmpty (none: true)", "MinAllowedKey", "MaxAllowedKey", "MinElt (its value)", "MinKey"},
	oneQueries: "Mem, Key, Value", ops: []opDef{
		{"Add", 8, "ai", kAdd}, {"Remove", 3, "i", kRemove}, {"Change", 3, "ia", kMove},
		{"IncreaseMinAllowedKey", 5, "a", kFire}, {"MinElt", 2, "", kQuery}, {"Shrink", 1, "", kShrink},
		{"Clear", 1, "", kClear},
	}, errs: []error{priorityqueue.ErrKeyOutOfRange, priorityqueue.ErrInvalidAlarm}}

// queueImpl is the implementation's side of a queue harness.
type queueImpl struct{ Queue }

func (s queueImpl) add(op Op, id int) (alarm.Alarm, error) { return s.Queue.Add(op.At, id) }
func (s queueImpl) move(op Op, a alarm.Alarm) error        { return s.Queue.Change(a, op.At) }
func (s queueImpl) value(a alarm.Alarm) (int, error)       { return s.Queue.Value(a) }
func (s queueImpl) at(a alarm.Alarm) (int64, error)        { return s.Queue.Key(a) }
func (s queueImpl) base() int64                            { return s.Queue.MinAllowedKey() }

func (s queueImpl) intervalOf(a alarm.Alarm) (int64, error) { return s.Queue.Key(a) }

func (s queueImpl) fire(op Op, handler func(alarm.Alarm)) (string, error) {
	var f func(priorityqueue.Element[int])
	if handler != nil {
		f = func(e priorityqueue.Element[int]) { handler(e.Alarm) }
	}
	return "", s.Queue.IncreaseMinAllowedKey(op.At, f)
}

func (s queueImpl) observe() obs {
	q := s.Queue
	minElt := none
	if a, ok := q.MinElt(); ok {
		x, err := q.Value(a)
		minElt = opt(int64(x), err == nil)
	}
	k, ok := q.MinKey()
	return obs{int64(q.Len()), opt(0, !q.IsEmpty()), q.MinAllowedKey(), q.MaxAllowedKey(), minElt, opt(k, ok)}
}

// queueSys is a harness's queue and model.
type queueSys struct {
	q Queue
	m *Model
}

// NewQueue starts a harness on the queue factory makes (nil:
// priorityqueue.New[int]) and a queue Model.
func NewQueue(lb levelbits.LevelBits, capacity int, factory QueueFactory) (*Harness, error) {
	return QueueSetup(lb, capacity, factory).New()
}

// QueueSetup is NewQueue, to call later.
func QueueSetup(lb levelbits.LevelBits, capacity int, factory QueueFactory) Setup {
	s := Setup{Kind: QueueKind, Header: fmt.Sprintf("queue bits=%s capacity=%d", joinInts(lb.Bits()), capacity)}
	s.New = func() (*Harness, error) { return newQueue(s, lb, capacity, factory) }
	return s
}

func newQueue(s Setup, lb levelbits.LevelBits, capacity int, factory QueueFactory) (*Harness, error) {
	var q Queue
	if factory != nil {
		q = factory(lb, capacity)
	} else {
		q = priorityqueue.New[int](lb, capacity)
	}
	m := &Model{queue: true, bits: lb.Bits()}
	h := &Harness{k: QueueKind, sys: &queueSys{q, m}, impl: queueImpl{q}, model: m, setup: s, header: s.Header}
	return h, h.compare()
}

// maxTraceBits is the most bits a level of a trace's wheel or queue may
// have: a level allocates its 2^bits slots at once, and a hostile trace
// must not take the process's memory.
const maxTraceBits = 20

// queue returns the setup of a queue trace's header.
func (t *trace) queue(factory QueueFactory) (Setup, error) {
	var bits []int
	var capacity int
	if err := t.fields(map[string]any{"bits": &bits, "capacity": &capacity}); err != nil {
		return Setup{}, err
	}
	if slices.ContainsFunc(bits, func(b int) bool { return b > maxTraceBits }) {
		return Setup{}, t.headerError("bits", t.kv["bits"], "a trace's levels have at most %d bits (a level's slots are allocated at once)", maxTraceBits)
	}
	lb, err := levelbits.New(bits...)
	if err != nil {
		return Setup{}, &traceError{t.header, fmt.Errorf("trace level bits: %w", err)}
	}
	return QueueSetup(lb, capacity, factory), nil
}

// DrawQueue draws the setup of a harness: level bits drawn from lbs (or
// random ones when lbs is empty) and a capacity.
func DrawQueue(src Source, lbs []levelbits.LevelBits, factory QueueFactory) (Setup, error) {
	var lb levelbits.LevelBits
	var err error
	if len(lbs) > 0 {
		lb = lbs[src.Intn("levelbits", len(lbs))]
	} else if lb, err = randomLevelBits(src); err != nil {
		return Setup{}, err
	}
	return QueueSetup(lb, src.Intn("cap", 9), factory), nil
}

// randomLevelBits draws level bits: [1], [1 1], [2 2], [3 1], [1 1 1],
// [2 1 1], the default, or 1 to 5 levels of 1 to 4 bits, extended to 62 bits
// with 1-bit levels half of the time.
func randomLevelBits(src Source) (levelbits.LevelBits, error) {
	bits := [][]int{{1}, {1, 1}, {2, 2}, {3, 1}, levelbits.Default().Bits(), {1, 1, 1}, {2, 1, 1}, nil, nil, nil}[src.Intn("lbchoice", 10)]
	if bits != nil {
		return levelbits.New(bits...)
	}
	n := 1 + src.Intn("numLevels", 5)
	for i := range n {
		bits = append(bits, 1+src.Intn(fmt.Sprintf("bits%d", i), 4))
	}
	if src.Intn("extend", 2) == 1 {
		return levelbits.NewExtended(bits...)
	}
	return levelbits.New(bits...)
}

func (s *queueSys) gen(h *Harness, src Source, op *Op, noPanic bool) {
	switch op.Name {
	case "Add":
		op.At = s.genKey(src, "key")
	case "Remove":
		op.ID = h.pick(src, "remove")
	case "Change":
		op.ID = h.pick(src, "change")
		op.At = s.genKey(src, "ckey")
	case "IncreaseMinAllowedKey":
		op.At = s.genIncrease(src)
		op.Script = h.genScript(src, noPanic, -1, 8)
	}
}

// genKey draws a key at and around the edges of the allowed range, near its
// bottom, equal to a key in use (elements with one key added at different
// minimums sit on different levels), or anywhere in the first 2^20 keys of
// the range.
func (s *queueSys) genKey(src Source, label string) int64 {
	lo, hi, elts := s.m.now, s.m.maxAllowedKey(), s.m.byOrder()
	// Not Choose: rapid's favourite here is the first kind, equal keys at
	// MinAllowedKey, which one increase removes together.
	switch src.Intn(label+"Kind", 9) {
	case 0:
		return lo
	case 1:
		return hi
	case 2:
		return hi + 1
	case 3:
		return lo - 1
	case 4, 5:
		return lo + src.Int64Range(label+"Near", 0, 12)
	case 6:
		if n := len(elts); n > 0 {
			return elts[src.Intn(label+"InUse", n)].at
		}
		return lo
	}
	return lo + src.Int64Range(label, 0, min(hi-lo, 1<<20))
}

// genIncrease draws a new minimum: by one, by a few, by large jumps, to the
// top of the key space and one past it, backwards, to just past the smallest
// key, or to MaxAllowedKey.
func (s *queueSys) genIncrease(src Source) int64 {
	cur := s.m.now
	switch src.Intn("incKind", 9) {
	case 0:
		return cur + 1
	case 1:
		return cur + src.Int64Range("small", 0, 8)
	case 2:
		return cur + src.Int64Range("big", 0, 1<<24)
	case 3:
		return priorityqueue.MaxKey
	case 4:
		return cur - src.Int64Range("back", 0, 3)
	case 5:
		return cur + src.Int64Range("huge", 0, priorityqueue.MaxKey-cur)
	case 6:
		if src.Intn("pastTop", 4) == 0 {
			return priorityqueue.MaxKey + 1
		}
		return s.m.maxAllowedKey() + src.Int64Range("pastMax", 0, 1)
	}
	if elts := s.m.byOrder(); len(elts) > 0 {
		return elts[0].at + src.Int64Range("nearMin", 0, 3)
	}
	return cur + 1
}

// firedCheck: a removed element's key is below the new MinAllowedKey.
func (s *queueSys) firedCheck(Op) func(id int, key int64) error {
	return func(id int, key int64) error {
		if min := s.q.MinAllowedKey(); key >= min {
			return fmt.Errorf("element %d with key %d removed, MinAllowedKey %d", id, key, min)
		}
		return nil
	}
}

func (s *queueSys) check(h *Harness) error {
	if err := s.q.Invariant(); err != nil {
		return fmt.Errorf("Invariant: %w", err)
	}
	return h.checkAll(s.q.All())
}

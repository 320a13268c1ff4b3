package harness

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// ModelAlarm is a model's handle: ids start at 1 and are never reused.
type ModelAlarm int

type modelAlarm struct {
	id  ModelAlarm
	at  int64 // ns since the epoch, or the queue's key
	v   int
	seq int // order of the last add or reschedule (Change)
}

// Model is the reference model of a timingwheel.Wheel[int], in nanoseconds,
// or of a priorityqueue.Queue[int] (queue: a wheel of precision 1 whose clock
// is MinAllowedKey): alarms in a plain slice, fired (removed) one at a time
// by smallest (interval, sequence), so handlers may change the model as they
// run. Of the layout it knows only the reach of the levels (MaxAllowedKey,
// MaxAllowedAlarmTime), by the geometry recurrence of levelsReach, or MaxTime
// with overflow levels, as config.WithOverflow promises.
type Model struct {
	queue    bool
	shift    uint
	bits     []int
	overflow bool
	now      int64 // the queue's MinAllowedKey
	alarms   []modelAlarm
	seq      int
	lastID   ModelAlarm
	firing   modelAlarm   // the alarm whose handler is running
	due      []ModelAlarm // chosen by a FirePastAlarms that a panic interrupted
}

const maxNs = int64(1)<<62 - 1

// errInvalid and errInvalidQueue are the model's answers about a handle
// that is not a member, for a wheel and for a queue: constants, as the
// harness asks about every dead handle after every call.
var (
	errInvalid      = fmt.Errorf("model: %w", timingwheel.ErrInvalidAlarm)
	errInvalidQueue = fmt.Errorf("model: %w", priorityqueue.ErrInvalidAlarm)
)

// invalid returns the model's error for a handle that is not a member.
func (m *Model) invalid() error {
	if m.queue {
		return errInvalidQueue
	}
	return errInvalid
}

func newModel(cfg config.Config, start int64) (*Model, error) {
	if err := checkNs(start); err != nil {
		return nil, err
	}
	return &Model{shift: uint(cfg.Precision().Log2()), bits: cfg.LevelBits().Bits(), overflow: cfg.Overflow(),
		now: start}, nil
}

func checkNs(ns int64) error {
	if ns < 0 || ns > maxNs {
		return fmt.Errorf("%w: %d ns", timingwheel.ErrTimeOutOfRange, ns)
	}
	return nil
}

// Now returns the clock in ns.
func (m *Model) Now() int64 { return m.now }

func (m *Model) interval() int64 { return m.now >> m.shift }

// maxAllowedKey is the last interval Add accepts.
func (m *Model) maxAllowedKey() int64 {
	if m.overflow {
		return maxNs >> m.shift
	}
	return min(levelsReach(m.bits, m.interval()), maxNs>>m.shift)
}

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

// MaxAllowedAlarmTime returns the last time Add accepts, in ns.
func (m *Model) MaxAllowedAlarmTime() int64 {
	if k := m.maxAllowedKey(); k < maxNs>>m.shift {
		return k<<m.shift + (1<<m.shift - 1)
	}
	return maxNs
}

// target checks and returns the time op adds or moves an alarm to: At, or
// the start of Interval for the ...AtIntervalNum calls.
func (m *Model) target(op Op) (int64, error) {
	if m.queue && (op.At < m.now || op.At > m.maxAllowedKey()) {
		return 0, fmt.Errorf("%w: key %d, allowed [%d, %d]", priorityqueue.ErrKeyOutOfRange, op.At, m.now, m.maxAllowedKey())
	}
	if n := op.At; op.Name == "AddAtIntervalNum" || op.Name == "RescheduleAtIntervalNum" {
		switch {
		case n < 0 || n > maxNs>>m.shift:
			return 0, fmt.Errorf("%w: %d", timingwheel.ErrIntervalNumOutOfRange, n)
		case n < m.interval():
			return 0, fmt.Errorf("%w: %d", timingwheel.ErrBeforeCurrentInterval, n)
		case n > m.maxAllowedKey():
			return 0, fmt.Errorf("%w: %d", timingwheel.ErrTooFarInFuture, n)
		}
		return n << m.shift, nil
	}
	switch {
	case m.queue:
	case op.At > m.MaxAllowedAlarmTime():
		return 0, fmt.Errorf("%w: %d ns", timingwheel.ErrTooFarInFuture, op.At)
	case op.At < m.interval()<<m.shift:
		return 0, fmt.Errorf("%w: %d ns", timingwheel.ErrBeforeCurrentInterval, op.At)
	}
	return op.At, nil
}

func (m *Model) find(a ModelAlarm) int {
	return slices.IndexFunc(m.alarms, func(e modelAlarm) bool { return e.id == a })
}

func (m *Model) add(op Op, v int) (ModelAlarm, error) {
	ns, err := m.target(op)
	if err != nil {
		return 0, err
	}
	m.lastID++
	m.seq++
	m.alarms = append(m.alarms, modelAlarm{id: m.lastID, at: ns, v: v, seq: m.seq})
	return m.lastID, nil
}

// Remove removes a member.
func (m *Model) Remove(a ModelAlarm) error {
	i := m.find(a)
	if i < 0 {
		return m.invalid()
	}
	m.alarms = slices.Delete(m.alarms, i, i+1)
	m.due = slices.DeleteFunc(m.due, func(id ModelAlarm) bool { return id == a }) // as in move
	return nil
}

// move puts a at its new time, at the back of its interval.
func (m *Model) move(op Op, a ModelAlarm) error {
	i := m.find(a)
	if i < 0 {
		return m.invalid()
	}
	ns, err := m.target(op)
	if err != nil {
		return err
	}
	m.seq++
	m.alarms[i].at, m.alarms[i].seq = ns, m.seq
	m.due = slices.DeleteFunc(m.due, func(id ModelAlarm) bool { return id == a })
	return nil
}

// Clear removes every member; the clock (MinAllowedKey) stays.
func (m *Model) Clear() { m.alarms, m.due = nil, nil }

// Shrink does nothing: the model keeps no spare storage.
func (m *Model) Shrink() {}

// Mem is whether a is a member.
func (m *Model) Mem(a ModelAlarm) bool { return m.find(a) >= 0 }

func (m *Model) base() int64 { return m.now }

// lookup finds a member, or the alarm whose handler is running.
func (m *Model) lookup(a ModelAlarm) (modelAlarm, error) {
	if i := m.find(a); i >= 0 {
		return m.alarms[i], nil
	}
	if a != 0 && a == m.firing.id {
		return m.firing, nil
	}
	return modelAlarm{}, m.invalid()
}

func (m *Model) value(a ModelAlarm) (int, error) {
	e, err := m.lookup(a)
	return e.v, err
}

func (m *Model) at(a ModelAlarm) (int64, error) {
	e, err := m.lookup(a)
	return e.at, err
}

func (m *Model) intervalOf(a ModelAlarm) (int64, error) {
	e, err := m.lookup(a)
	return e.at >> m.shift, err
}

// NextAlarmFiresAt returns the start of the interval after the smallest
// alarm interval; false when empty or when that interval is the last one.
func (m *Model) NextAlarmFiresAt() (int64, bool) {
	k, ok := m.minInterval()
	if !ok || k >= maxNs>>m.shift {
		return 0, false
	}
	return (k + 1) << m.shift, true
}

func (m *Model) minInterval() (int64, bool) {
	if len(m.alarms) == 0 {
		return 0, false
	}
	k := m.alarms[0].at >> m.shift
	for _, e := range m.alarms {
		k = min(k, e.at>>m.shift)
	}
	return k, true
}

// observe answers Len, IsEmpty, Now, NowIntervalNum, MaxAllowedAlarmTime,
// NextAlarmFiresAt, MinAlarmIntervalNum and the earliest and latest times
// in that interval.
func (m *Model) observe() obs {
	k, ok := m.minInterval()
	lo, hi := maxNs, int64(0)
	for _, e := range m.alarms {
		if e.at>>m.shift == k {
			lo, hi = min(lo, e.at), max(hi, e.at)
		}
	}
	if m.queue {
		minElt, minKey := none, none
		if i := m.first(func(modelAlarm) bool { return true }); i >= 0 {
			minElt, minKey = int64(m.alarms[i].v), m.alarms[i].at
		}
		return obs{int64(len(m.alarms)), opt(0, ok), m.now, m.maxAllowedKey(), minElt, minKey}
	}
	next, nok := m.NextAlarmFiresAt()
	return obs{int64(len(m.alarms)), opt(0, ok), m.now, m.interval(), m.MaxAllowedAlarmTime(), m.maxAllowedKey(),
		opt(next, nok), opt(k, ok), opt(lo, ok), opt(hi, ok)}
}

// first returns the index of the alarm that fires first among those ok
// accepts: smallest interval, then smallest sequence; -1 if none.
func (m *Model) first(ok func(e modelAlarm) bool) int {
	best := -1
	for i, e := range m.alarms {
		if ok(e) && (best < 0 || m.order(e, m.alarms[best]) < 0) {
			best = i
		}
	}
	return best
}

// byOrder returns the alarms in the order they fire.
func (m *Model) byOrder() []modelAlarm { return slices.SortedFunc(slices.Values(m.alarms), m.order) }

// order compares alarms by the order they fire: interval, then sequence.
func (m *Model) order(a, b modelAlarm) int {
	return cmp.Or(cmp.Compare(a.at>>m.shift, b.at>>m.shift), a.seq-b.seq)
}

// fireWhile fires, one at a time, the first alarm ok accepts, until none is.
func (m *Model) fireWhile(ok func(e modelAlarm) bool, fired func(ModelAlarm)) {
	for i := m.first(ok); i >= 0; i = m.first(ok) {
		e := m.alarms[i]
		m.alarms = slices.Delete(m.alarms, i, i+1)
		if fired != nil {
			m.firing = e
			func() {
				defer func() { m.firing = modelAlarm{} }()
				fired(e.id)
			}()
		}
	}
}

// fireOverdue fires what a panicking handler left behind: first the rest of
// an interrupted FirePastAlarms, in order, then every alarm before the
// current interval.
func (m *Model) fireOverdue(fired func(ModelAlarm)) {
	for len(m.due) > 0 {
		id := m.due[0]
		m.due = m.due[1:]
		m.fireWhile(func(e modelAlarm) bool { return e.id == id }, fired)
	}
	now := m.interval()
	m.fireWhile(func(e modelAlarm) bool { return e.at>>m.shift < now }, fired)
}

// fire runs the wheel's firing calls; the package doc of timingwheel says
// what each fires and when. The queue's IncreaseMinAllowedKey is AdvanceClock
// at precision 1 that never fails below 0: the rest of a call a handler's
// panic interrupted is removed first by the next call.
func (m *Model) fire(op Op, fired func(ModelAlarm)) (string, error) {
	switch {
	case m.queue && op.At > maxNs:
		return "", fmt.Errorf("%w: key %d above %d", priorityqueue.ErrKeyOutOfRange, op.At, maxNs)
	case m.queue:
		op.At = max(op.At, 0)
	}
	switch op.Name {
	case "FirePastAlarms":
		m.firePast(fired)
		return "", nil
	case "Step":
		return fmt.Sprint(m.step(fired)), nil
	case "AdvanceClockLimit":
		n, done, err := m.advanceLimit(op.At, op.Limit, fired)
		return fmt.Sprint(n, done), err
	}
	if err := checkNs(op.At); err != nil {
		return "", err
	}
	if op.Name == "AdvanceClock" || m.queue {
		m.now = max(m.now, op.At)
		m.fireOverdue(fired)
		return "", nil
	}
	m.stopAtNext(op.At, fired)
	return "", nil
}

// stopAtNext is AdvanceClockStopAtNextAlarm: to the earlier of to and the
// earliest alarm that is not overdue, never backwards, then as
// FirePastAlarms.
func (m *Model) stopAtNext(to int64, fired func(ModelAlarm)) {
	if next, ok := m.nextNotOverdue(); ok {
		to = min(to, next)
	}
	if to > m.now {
		m.chooseOverdue() // overdue by the interval the call starts in
		m.now = to
	}
	m.firePast(fired)
}

// hasOverdue reports whether a panicking handler left alarms behind: the
// rest of an interrupted FirePastAlarms, or alarms before the current
// interval.
func (m *Model) hasOverdue() bool {
	now := m.interval()
	return len(m.due) > 0 || slices.ContainsFunc(m.alarms, func(e modelAlarm) bool { return e.at>>m.shift < now })
}

// nextNotOverdue returns the earliest time of the alarms that are not
// overdue (in the due list, or before the current interval); false if none.
func (m *Model) nextNotOverdue() (int64, bool) {
	next, ok, now := maxNs, false, m.interval()
	for _, e := range m.alarms {
		if e.at>>m.shift >= now && !slices.Contains(m.due, e.id) {
			next, ok = min(next, e.at), true
		}
	}
	return next, ok
}

// step is Wheel.Step: the overdue alarms alone with the clock where it is,
// when there are any (they are the earliest); otherwise
// AdvanceClockStopAtNextAlarm to the earliest alarm time. It reports
// whether it fired anything.
func (m *Model) step(fired func(ModelAlarm)) bool {
	to, ok := m.nextNotOverdue()
	if !ok || m.hasOverdue() {
		to = m.now
	}
	n := 0
	m.stopAtNext(to, func(a ModelAlarm) {
		n++
		if fired != nil {
			fired(a)
		}
	})
	return n > 0
}

// advanceLimit fires what AdvanceClock(to) would, interval by interval,
// stopping after the interval in which the count of fired alarms reaches
// limit; then now is the start of the next interval with due alarms.
// Overdue alarms (left by a panic) fire first and do not count.
func (m *Model) advanceLimit(to int64, limit int, fired func(ModelAlarm)) (n int, done bool, err error) {
	if limit < 1 {
		return 0, false, fmt.Errorf("%w: %d", timingwheel.ErrNonPositiveLimit, limit)
	}
	if err := checkNs(to); err != nil {
		return 0, false, err
	}
	target := max(to, m.now)
	var keys []int64
	for _, e := range m.alarms {
		k := e.at >> m.shift
		if k < target>>m.shift && k >= m.interval() && !slices.Contains(m.due, e.id) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	stop := target >> m.shift
	for i, k := range keys {
		if i >= limit && k != keys[i-1] {
			stop = k
			break
		}
	}
	if stop == target>>m.shift {
		m.now, done = target, true
	} else {
		m.now = stop << m.shift
	}
	m.fireOverdue(func(a ModelAlarm) {
		n++
		if fired != nil {
			fired(a)
		}
	})
	return n, done, nil
}

// firePast fires, in order, the alarms it finds when it is called: the
// overdue ones (chooseOverdue), then those of the current interval with
// at <= now, by sequence. Alarms its handlers add do not fire in this call;
// alarms they remove or reschedule before their turn do not fire either.
func (m *Model) firePast(fired func(ModelAlarm)) {
	m.chooseOverdue()
	now := m.interval()
	var chosen []modelAlarm
	for _, e := range m.alarms {
		if e.at>>m.shift == now && e.at <= m.now && !slices.Contains(m.due, e.id) {
			chosen = append(chosen, e)
		}
	}
	slices.SortFunc(chosen, m.order) // one interval: by sequence
	for _, e := range chosen {
		m.due = append(m.due, e.id)
	}
	m.fireOverdue(fired)
}

// chooseOverdue appends to the due list, by interval and sequence, every
// alarm before the current interval that is not in it yet, so that the call
// fixes what it fires before any handler runs.
func (m *Model) chooseOverdue() {
	var late []modelAlarm
	for _, e := range m.alarms {
		if e.at>>m.shift < m.interval() && !slices.Contains(m.due, e.id) {
			late = append(late, e)
		}
	}
	slices.SortFunc(late, m.order)
	for _, e := range late {
		m.due = append(m.due, e.id)
	}
}

// FireOrder empties the model the way the wheel would fire its alarms
// (advanced to MaxTime, then FirePastAlarms) and returns their values and
// times in that order.
func (m *Model) FireOrder() (values []int, times []int64) {
	rec := func(a ModelAlarm) {
		e, _ := m.lookup(a)
		values, times = append(values, e.v), append(times, e.at)
	}
	_, _ = m.fire(Op{Name: "AdvanceClock", At: maxNs}, rec)
	m.firePast(rec)
	return values, times
}

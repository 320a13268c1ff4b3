package harness

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// ModelAlarm identifies an alarm of a Model (the model's handle). IDs start at 1
// and are never reused.
type ModelAlarm int

type modelAlarm[T any] struct {
	id  ModelAlarm
	at  int64 // ns since the epoch
	v   T
	seq int // order of the last add or reschedule
}

// Model is a reference model of timingwheel.Wheel[T]: the same methods, the
// same errors and the same fire order, written to be read at a glance. Alarms
// live in a plain slice; firing picks the smallest (interval, sequence)
// alarm one at a time, so handlers may change the model as they run.
//
// The reach of the levels (MaxAllowedAlarmTime) is computed from the level
// bits by the geometry recurrence alone (with config.WithOverflow it is
// MaxTime, as that option promises); nothing else of the wheel's layout is
// modelled.
type Model[T any] struct {
	shift    uint
	bits     []int
	overflow bool // config.WithOverflow: Add accepts every time up to MaxTime
	start    int64
	now      int64
	alarms   []modelAlarm[T]
	seq      int
	lastID   ModelAlarm
	firing   ModelAlarm // alarm whose handler is running
	firingV  modelAlarm[T]
	due      []ModelAlarm // chosen by a FirePastAlarms that a panic interrupted
}

const maxNs = int64(1)<<62 - 1

// errInvalid is the model's answer about a handle that is not a member: a
// constant, as the harness asks about every dead handle after every call.
var errInvalid = fmt.Errorf("model: %w", timingwheel.ErrInvalidAlarm)

// NewModel returns a model of timingwheel.NewWithConfig[T](cfg, start).
func NewModel[T any](cfg config.Config, start time.Time) (*Model[T], error) {
	s, err := modelNanos(start)
	if err != nil {
		return nil, err
	}
	return &Model[T]{shift: uint(cfg.Precision().Log2()), bits: cfg.LevelBits().Bits(), overflow: cfg.Overflow(),
		start: s, now: s}, nil
}

func modelNanos(t time.Time) (int64, error) {
	if t.Before(time.Unix(0, 0)) || t.After(timingwheel.MaxTime) {
		return 0, fmt.Errorf("%w: %v", timingwheel.ErrTimeOutOfRange, t)
	}
	return t.UnixNano(), nil
}

func ns2t(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// Now returns the model's clock.
func (m *Model[T]) Now() time.Time { return ns2t(m.now) }

// Len returns the number of alarms.
func (m *Model[T]) Len() int { return len(m.alarms) }

// IsEmpty reports whether Len() == 0.
func (m *Model[T]) IsEmpty() bool { return len(m.alarms) == 0 }

// NowIntervalNum returns now >> A.
func (m *Model[T]) NowIntervalNum() int64 { return m.now >> m.shift }

// MaxIntervalNum returns (2^62-1) >> A.
func (m *Model[T]) MaxIntervalNum() int64 { return maxNs >> m.shift }

// maxAllowedKey is the top level's last key when level 0 starts at the current
// interval: min_0 = now>>A; max_i = min(min_i + 2^(b_i+s_i) - 1, 2^62-1);
// min_(i+1) = max_i+1 rounded down to a multiple of 2^(s_(i+1)).
//
// With overflow levels the reach is the last interval, whatever the bits.
func (m *Model[T]) maxAllowedKey() int64 {
	if m.overflow {
		return m.MaxIntervalNum()
	}
	return levelsReach(m.bits, m.now>>m.shift)
}

// MaxAllowedAlarmTime returns the last time Add accepts now.
func (m *Model[T]) MaxAllowedAlarmTime() time.Time {
	k := m.maxAllowedKey()
	if k >= m.MaxIntervalNum() {
		return ns2t(maxNs)
	}
	return ns2t(k<<m.shift + (1<<m.shift - 1))
}

func (m *Model[T]) checkAt(at time.Time) (int64, error) {
	if at.After(m.MaxAllowedAlarmTime()) {
		return 0, fmt.Errorf("%w: %v", timingwheel.ErrTooFarInFuture, at)
	}
	if at.Before(ns2t(m.now >> m.shift << m.shift)) {
		return 0, fmt.Errorf("%w: %v", timingwheel.ErrBeforeCurrentInterval, at)
	}
	return at.UnixNano(), nil
}

func (m *Model[T]) checkInterval(n int64) error {
	switch {
	case n < 0 || n > m.MaxIntervalNum():
		return fmt.Errorf("%w: %d", timingwheel.ErrIntervalNumOutOfRange, n)
	case n < m.now>>m.shift:
		return fmt.Errorf("%w: %d", timingwheel.ErrBeforeCurrentInterval, n)
	case n > m.maxAllowedKey():
		return fmt.Errorf("%w: %d", timingwheel.ErrTooFarInFuture, n)
	}
	return nil
}

func (m *Model[T]) find(a ModelAlarm) int {
	for i := range m.alarms {
		if m.alarms[i].id == a {
			return i
		}
	}
	return -1
}

// Add adds an alarm, as Wheel.Add.
func (m *Model[T]) Add(at time.Time, v T) (ModelAlarm, error) {
	ns, err := m.checkAt(at)
	if err != nil {
		return 0, err
	}
	return m.add(ns, v), nil
}

func (m *Model[T]) add(ns int64, v T) ModelAlarm {
	m.lastID++
	m.seq++
	m.alarms = append(m.alarms, modelAlarm[T]{id: m.lastID, at: ns, v: v, seq: m.seq})
	return m.lastID
}

// AddAtIntervalNum adds an alarm at the start of interval n.
func (m *Model[T]) AddAtIntervalNum(n int64, v T) (ModelAlarm, error) {
	if err := m.checkInterval(n); err != nil {
		return 0, err
	}
	return m.add(n<<m.shift, v), nil
}

// Mem reports whether a is in the model.
func (m *Model[T]) Mem(a ModelAlarm) bool { return m.find(a) >= 0 }

// Remove removes a.
func (m *Model[T]) Remove(a ModelAlarm) error {
	i := m.find(a)
	if i < 0 {
		return errInvalid
	}
	m.alarms = slices.Delete(m.alarms, i, i+1)
	return nil
}

// Reschedule moves a to time at, to the back of its interval.
func (m *Model[T]) Reschedule(a ModelAlarm, at time.Time) error {
	i := m.find(a)
	if i < 0 {
		return errInvalid
	}
	ns, err := m.checkAt(at)
	if err != nil {
		return err
	}
	m.seq++
	m.alarms[i].at, m.alarms[i].seq = ns, m.seq
	m.due = slices.DeleteFunc(m.due, func(id ModelAlarm) bool { return id == a })
	return nil
}

// RescheduleAtIntervalNum moves a to the start of interval n.
func (m *Model[T]) RescheduleAtIntervalNum(a ModelAlarm, n int64) error {
	i := m.find(a)
	if i < 0 {
		return errInvalid
	}
	if err := m.checkInterval(n); err != nil {
		return err
	}
	m.seq++
	m.alarms[i].at, m.alarms[i].seq = n<<m.shift, m.seq
	m.due = slices.DeleteFunc(m.due, func(id ModelAlarm) bool { return id == a })
	return nil
}

// Clear removes every alarm.
func (m *Model[T]) Clear() { m.alarms, m.due = nil, nil }

// lookup finds a member or the alarm being fired.
func (m *Model[T]) lookup(a ModelAlarm) (modelAlarm[T], error) {
	if i := m.find(a); i >= 0 {
		return m.alarms[i], nil
	}
	if a != 0 && a == m.firing {
		return m.firingV, nil
	}
	return modelAlarm[T]{}, errInvalid
}

// AlarmAt returns a's time; it answers inside a's own handler.
func (m *Model[T]) AlarmAt(a ModelAlarm) (time.Time, error) {
	e, err := m.lookup(a)
	return ns2t(e.at), err
}

// AlarmValue returns a's value; it answers inside a's own handler.
func (m *Model[T]) AlarmValue(a ModelAlarm) (T, error) {
	e, err := m.lookup(a)
	return e.v, err
}

// AlarmIntervalNum returns a's interval number.
func (m *Model[T]) AlarmIntervalNum(a ModelAlarm) (int64, error) {
	e, err := m.lookup(a)
	return e.at >> m.shift, err
}

// first returns the index of the alarm that fires first among those accepted
// by ok: smallest interval, then smallest sequence. -1 if none.
func (m *Model[T]) first(ok func(e modelAlarm[T]) bool) int {
	best := -1
	for i, e := range m.alarms {
		if !ok(e) {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := m.alarms[best]
		if e.at>>m.shift < b.at>>m.shift || e.at>>m.shift == b.at>>m.shift && e.seq < b.seq {
			best = i
		}
	}
	return best
}

// fireWhile fires, one at a time, the first alarm accepted by ok, until none is.
func (m *Model[T]) fireWhile(ok func(e modelAlarm[T]) bool, fired func(ModelAlarm)) {
	for {
		i := m.first(ok)
		if i < 0 {
			return
		}
		e := m.alarms[i]
		m.alarms = slices.Delete(m.alarms, i, i+1)
		if fired != nil {
			m.firing, m.firingV = e.id, e
			func() {
				defer func() { m.firing = 0 }()
				fired(e.id)
			}()
		}
	}
}

// fireOverdue fires what a panicking handler left behind: first the rest of an
// interrupted FirePastAlarms, in order, then every alarm before the current
// interval.
func (m *Model[T]) fireOverdue(fired func(ModelAlarm)) {
	for len(m.due) > 0 {
		id := m.due[0]
		m.due = m.due[1:]
		if m.find(id) >= 0 {
			m.fireWhile(func(e modelAlarm[T]) bool { return e.id == id }, fired)
		}
	}
	now := m.now >> m.shift
	m.fireWhile(func(e modelAlarm[T]) bool { return e.at>>m.shift < now }, fired)
}

// AdvanceClock moves the clock to to (if later) and fires every alarm with
// at < IntervalStart(to), in order.
func (m *Model[T]) AdvanceClock(to time.Time, fired func(ModelAlarm)) error {
	ns, err := modelNanos(to)
	if err != nil {
		return err
	}
	if ns > m.now {
		m.now = ns
	}
	m.fireOverdue(fired)
	return nil
}

// AdvanceClockLimit fires what AdvanceClock(to) would, interval by interval,
// stopping after the interval in which the count of fired alarms reaches
// limit; then Now() is the start of the next interval with due alarms.
func (m *Model[T]) AdvanceClockLimit(to time.Time, limit int, fired func(ModelAlarm)) (n int, done bool, err error) {
	if limit < 1 {
		return 0, false, fmt.Errorf("%w: %d", timingwheel.ErrNonPositiveLimit, limit)
	}
	ns, err := modelNanos(to)
	if err != nil {
		return 0, false, err
	}
	target := max(ns, m.now)
	// Which intervals this call covers: whole intervals, ascending, until the
	// alarms in them reach limit. Overdue alarms (left by a panic) fire first
	// and do not count.
	var keys []int64
	for _, e := range m.alarms {
		k := e.at >> m.shift
		if k < target>>m.shift && k >= m.now>>m.shift && !slices.Contains(m.due, e.id) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	stop, count := target>>m.shift, 0
	for i, k := range keys {
		if count >= limit && (i == 0 || k != keys[i-1]) {
			stop = k
			break
		}
		count++
	}
	if stop == target>>m.shift {
		m.now, done = target, true
	} else {
		m.now = stop << m.shift
	}
	counting := func(a ModelAlarm) {
		n++
		if fired != nil {
			fired(a)
		}
	}
	m.fireOverdue(counting)
	return n, done, nil
}

// FirePastAlarms fires, in order, the alarms it finds when it is called:
// first any overdue alarms a panicking handler left behind (the rest of an
// interrupted FirePastAlarms, then every alarm before the current interval,
// by interval and sequence), then the alarms of the current interval with
// at <= now, by sequence. Alarms its handlers add do not fire in this call;
// alarms they remove or reschedule before their turn do not fire either.
func (m *Model[T]) FirePastAlarms(fired func(ModelAlarm)) {
	m.chooseOverdue()
	now := m.now >> m.shift
	var chosen []modelAlarm[T]
	for _, e := range m.alarms {
		if e.at>>m.shift == now && e.at <= m.now && !slices.Contains(m.due, e.id) {
			chosen = append(chosen, e)
		}
	}
	slices.SortFunc(chosen, func(a, b modelAlarm[T]) int { return a.seq - b.seq })
	for _, e := range chosen {
		m.due = append(m.due, e.id)
	}
	m.fireOverdue(fired)
}

// chooseOverdue appends to the due list, by interval and sequence, every
// alarm before the current interval that is not in it yet, so that the call
// fixes what it fires before any handler runs.
func (m *Model[T]) chooseOverdue() {
	now := m.now >> m.shift
	var late []modelAlarm[T]
	for _, e := range m.alarms {
		if e.at>>m.shift < now && !slices.Contains(m.due, e.id) {
			late = append(late, e)
		}
	}
	slices.SortFunc(late, func(a, b modelAlarm[T]) int {
		if ka, kb := a.at>>m.shift, b.at>>m.shift; ka != kb {
			return cmp.Compare(ka, kb)
		}
		return a.seq - b.seq
	})
	for _, e := range late {
		m.due = append(m.due, e.id)
	}
}

// AdvanceClockStopAtNextAlarm sets now to min(to, the earliest time of an
// alarm that is not overdue), never backwards, then fires as FirePastAlarms
// does: the overdue alarms a panicking handler left, then the alarms with
// at <= now. Alarms its handlers add do not fire in this call.
func (m *Model[T]) AdvanceClockStopAtNextAlarm(to time.Time, fired func(ModelAlarm)) error {
	ns, err := modelNanos(to)
	if err != nil {
		return err
	}
	now := m.now >> m.shift
	for _, e := range m.alarms {
		if e.at>>m.shift >= now && !slices.Contains(m.due, e.id) {
			ns = min(ns, e.at)
		}
	}
	if ns > m.now {
		m.chooseOverdue() // overdue by the interval the call starts in
		m.now = ns
	}
	m.FirePastAlarms(fired)
	return nil
}

// MinAlarmIntervalNum returns the smallest interval of any alarm.
func (m *Model[T]) MinAlarmIntervalNum() (int64, bool) {
	if len(m.alarms) == 0 {
		return 0, false
	}
	k := m.alarms[0].at >> m.shift
	for _, e := range m.alarms {
		k = min(k, e.at>>m.shift)
	}
	return k, true
}

// NextAlarmFiresAt returns the start of the interval after the smallest alarm
// interval; false when empty or when that interval is the last one.
func (m *Model[T]) NextAlarmFiresAt() (time.Time, bool) {
	k, ok := m.MinAlarmIntervalNum()
	if !ok || k >= m.MaxIntervalNum() {
		return time.Time{}, false
	}
	return ns2t((k + 1) << m.shift), true
}

// MinAlarmTimeInMinInterval returns the earliest time in the smallest interval.
func (m *Model[T]) MinAlarmTimeInMinInterval() (time.Time, bool) {
	lo, _, ok := m.minIntervalTimes()
	return ns2t(lo), ok
}

// MaxAlarmTimeInMinInterval returns the latest time in the smallest interval.
func (m *Model[T]) MaxAlarmTimeInMinInterval() (time.Time, bool) {
	_, hi, ok := m.minIntervalTimes()
	return ns2t(hi), ok
}

func (m *Model[T]) minIntervalTimes() (lo, hi int64, ok bool) {
	k, ok := m.MinAlarmIntervalNum()
	if !ok {
		return 0, 0, false
	}
	lo, hi = maxNs, 0
	for _, e := range m.alarms {
		if e.at>>m.shift == k {
			lo, hi = min(lo, e.at), max(hi, e.at)
		}
	}
	return lo, hi, true
}

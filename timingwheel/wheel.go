// Package timingwheel is a hierarchical timing wheel, the port of Jane
// Street's OCaml Timing_wheel: a clock plus a set of alarms, each with a time
// and a value. Alarms fire only inside the firing calls (AdvanceClock,
// AdvanceClockLimit, Step, FirePastAlarms, AdvanceClockStopAtNextAlarm), on
// the caller's goroutine, each handed to its handler as a Fired value.
//
//	w, _ := timingwheel.New[string](start, time.Millisecond)
//	w.Add(start.Add(time.Second), "retry")
//	w.AdvanceClock(start.Add(2*time.Second), func(f timingwheel.Fired[string]) {
//		fmt.Println(f.Value, f.At)
//	})
//
// # Time and intervals
//
// A wheel holds times from the Unix epoch to MaxTime (in 2116). Its alarm
// precision is a power of two nanoseconds, 2^A ns: New rounds the precision
// it is given down to one (time.Millisecond gives 524.288µs). Time is cut
// into half-open intervals of one precision, numbered from the epoch
// (IntervalNum). Add accepts a time from the start of the current interval
// (the one holding Now()) up to MaxAllowedAlarmTime(), which the level bits
// set (package config) and which moves forward with the clock; with
// config.WithOverflow it is MaxTime.
//
// # Choosing a firing call
//
//   - Step: a discrete-event simulation (see Simulation below).
//   - AdvanceClock(to): timeouts, retries, periodic work driven by a real or
//     fake clock. It fires every alarm of the intervals before to's, with
//     Now() already at to inside the handlers.
//   - AdvanceClockLimit(to, limit): AdvanceClock in bounded steps, for a
//     loop with a latency budget.
//   - FirePastAlarms: the alarms of the current interval with at <= Now(),
//     without moving the clock.
//   - AdvanceClockStopAtNextAlarm(to): Step bounded by to; on an empty wheel
//     it moves the clock to to.
//
// # Simulation
//
// Step fires the alarms of the earliest alarm time with Now() set to that
// time, so a handler schedules follow-up events relative to Now(). Read the
// next event's exact time with Next (the original's
// MinAlarmTimeInMinInterval; NextAlarmFiresAt is the end of its interval)
// to stop at the end of the run:
//
//	for {
//		t, ok := w.Next() // the exact time of the next event
//		if !ok || t.After(end) {
//			break
//		}
//		w.Step(handle)
//	}
//
// With no end, for w.Step(handle) {} runs until no event is left; Step on an
// empty wheel changes nothing. Whatever the precision, Step fires an alarm
// added at or after Now() at its own time; an alarm added late (before
// Now(), in the current interval) fires at the next Step, at Now(). The
// M/M/1 example checks a simulation against queueing theory.
//
// # Choosing a precision
//
// For a simulation, use 1 ns and Step. Step fires each event at its own time
// whatever the precision (as above), and at a coarser precision it orders
// the alarms of the earliest interval by time once, when it first reaches
// it, and keeps that order as alarms come and go, so it costs about what it
// does at 1 ns; but at 1 ns every firing call fires in time order,
// AdvanceClock included.
//
// A coarser precision is faster only when many alarms share an interval and
// AdvanceClock fires them together (timeouts, periodic work, advancing to
// NextAlarmFiresAt). The price is the event times: an alarm fires up to one
// precision after its time, with Now() at the advance's target (the end of
// its interval or later; Fired.At is still its own time), so a handler that
// schedules from Now() schedules late, and along a chain of events the
// delays add up. New rounds the precision down to a power of two ns, and
// AlarmPrecision reports it.
//
// # Guarantees
//
// The rules every method's doc refers to (docs/invariants.md has formulas):
//
//   - Never early: AdvanceClock(to) and AdvanceClockLimit fire only alarms
//     with at < IntervalStart(to), so at < Now(); Step, FirePastAlarms and
//     AdvanceClockStopAtNextAlarm only alarms with at <= Now().
//   - Bounded lateness: after every call, every alarm in the wheel has
//     IntervalStart(at) >= IntervalStart(Now()), so an alarm in the wheel is
//     late by less than one precision: AdvanceClock(t) fires it at the latest
//     when t reaches the interval after the alarm's, at most one precision
//     after its time. The exceptions are the due alarms not fired yet while
//     a handler runs, and those a panicking handler left overdue, which fire
//     first at the next firing call.
//   - Nothing lost, nothing twice: every alarm added is, exactly once, fired,
//     removed or cleared, even when a handler panics.
//   - Order: alarms fire in ascending interval, however large the advance.
//     Within an interval, AdvanceClock, AdvanceClockLimit and FirePastAlarms
//     fire them in the order they were added or rescheduled. Step and
//     AdvanceClockStopAtNextAlarm fire one time per call, so in time order,
//     and the alarms of one time in the order they were added or
//     rescheduled; the late alarms they find (at or before Now()) fire
//     together, in that order too. At 1 ns precision the orders agree.
//
// # Handlers
//
// A handler runs with the clock already where its call moves it: at to for
// AdvanceClock, at the alarm's time for Step (or later, for an overdue alarm
// that fires first). It may call any method of the wheel. Inside it, the
// firing alarm is no longer a member (Mem is false) but AlarmAt, AlarmValue
// and AlarmIntervalNum still answer for it. What a firing call fires is
// fixed before its first handler runs: an alarm a handler removes or
// reschedules before its turn does not fire in this call, and one a handler
// adds fires in a later call.
//
// If a handler panics, the panic reaches the caller and the wheel stays
// valid: the due alarms not yet fired stay in the wheel, overdue, and fire
// first, in order, at the next firing call (whatever its time or limit). A
// firing call made from inside a handler first fires, with its own
// handler, the due alarms the enclosing calls have not fired yet (they count
// in its result and its limit does not hold them back), then its own. Every
// alarm still fires once and in order, but the enclosing calls' handlers do
// not see those. If such a nested call panics and an enclosing handler
// recovers, the enclosing call goes on with what is left, which may include
// alarms its own handler added, if the nested call had already taken them as
// due.
//
// # Errors
//
// A call that fails changes nothing and returns an error that wraps one of
// the Err variables (use errors.Is) and names the value it got and, where
// there is one, the range it allows. A handle that is not in the wheel
// (removed, fired, cleared, the zero Alarm, or another wheel's) gives
// ErrInvalidAlarm; it never names another alarm.
//
// # Cost
//
// Remove and Mem are O(1); Add and Reschedule are O(levels). A firing call
// costs O(levels + alarms fired + alarms moved down a level), however far it
// moves the clock: empty intervals cost nothing. A steady load allocates
// nothing: Add allocates only to hold more alarms than ever before, or more
// in one slot than that slot ever held. A call that fails allocates its
// error, which names its arguments: where cancelling an alarm that may have
// fired is common, test first (if w.Mem(a) { w.Remove(a) }). Each method's
// doc gives its cost where it differs.
//
// A Wheel is not safe for concurrent use.
package timingwheel

import (
	"errors"
	"fmt"
	"iter"
	"time"
	"unsafe"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/internal/checked"
	"github.com/gotimingwheel/timingwheel/internal/queue"
)

const maxTimeNs = queue.MaxKey // 2^62-1 ns after the epoch

// MaxTime is the last time a wheel represents, 2^62-1 ns after the Unix
// epoch: 2116-02-20 23:53:38.427387903 UTC.
var MaxTime = time.Unix(0, maxTimeNs).UTC()

// Errors, usable with errors.Is (see Errors in the package doc).
var (
	ErrTimeOutOfRange        = errors.New("timingwheel: time out of range")
	ErrIntervalNumOutOfRange = errors.New("timingwheel: interval number out of range")
	ErrTooFarInFuture        = errors.New("timingwheel: alarm time too far in the future")
	ErrBeforeCurrentInterval = errors.New("timingwheel: alarm time before the current interval")
	ErrInvalidConfig         = errors.New("timingwheel: invalid config")
	ErrNonPositiveLimit      = errors.New("timingwheel: limit must be positive")
	// ErrInvalidAlarm: the handle is the null alarm, was removed, fired or
	// cleared, or belongs to another wheel.
	ErrInvalidAlarm = errors.New("timingwheel: alarm is not in the wheel")
)

// Alarm is the handle of an alarm (alarm.Alarm): a small comparable value,
// checked in O(1), accepted only by the wheel that issued it while its alarm
// is in the wheel; the zero Alarm is the null alarm.
type Alarm = alarm.Alarm

// Fired is what a handler receives for each alarm that fires: its handle,
// time and value (see Handlers in the package doc).
type Fired[T any] struct {
	Alarm Alarm
	At    time.Time
	Value T
}

// adapt turns a wheel handler into the queue's removal handler.
func adapt[T any](fired func(Fired[T])) func(queue.Element[T]) {
	if fired == nil {
		return nil
	}
	return func(e queue.Element[T]) {
		fired(Fired[T]{Alarm: e.Alarm, At: fromNanos(e.Time), Value: e.Value})
	}
}

// Option sets an optional part of a wheel's configuration: WithCapacity,
// WithOverflow, or any option of package config (config.WithLevelBits).
type Option = config.Option

// WithCapacity sets how many alarms the wheel has room for before it
// allocates more (default 0: grow on demand); with the peak load, it never
// grows its alarm records (its slots still allocate on first use). New fails
// with ErrInvalidConfig unless 0 <= n <= config.MaxCapacity.
func WithCapacity(n int) Option { return config.WithCapacity(n) }

// WithOverflow lets the wheel accept alarms at any time up to MaxTime,
// whatever its level bits; see config.WithOverflow.
func WithOverflow() Option { return config.WithOverflow() }

// Wheel is a timing wheel whose alarms carry values of type T.
type Wheel[T any] struct {
	cfg            config.Config
	q              *queue.Queue[T]
	shift          uint
	start          int64
	now            int64
	maxIntervalNum int64
}

// New returns an empty wheel whose clock reads start, with the default level
// bits (which reach MaxTime) and as alarm precision the largest power of two
// nanoseconds not above precision, at most 2^61 ns (time.Millisecond gives
// 2^19 ns = 524.288µs; AlarmPrecision reports it). Errors: ErrInvalidConfig
// (wrapping config's error) when precision <= 0 or an option is invalid or
// nil;
// ErrTimeOutOfRange when start is before the Unix epoch or after MaxTime.
func New[T any](start time.Time, precision time.Duration, opts ...Option) (*Wheel[T], error) {
	cfg, err := config.NewFromDuration(precision, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return NewWithConfig[T](cfg, start)
}

// NewWithConfig returns an empty wheel with the given config whose clock
// reads start: the form for full control of the precision and level bits.
// Errors: ErrTimeOutOfRange when start is before the epoch or after MaxTime;
// ErrInvalidConfig for a config that is not valid (the zero Config).
func NewWithConfig[T any](cfg config.Config, start time.Time) (*Wheel[T], error) {
	if err := cfg.Invariant(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	s, err := toNanos(start)
	if err != nil {
		return nil, err
	}
	shift := uint(cfg.Precision().Log2())
	w := &Wheel[T]{
		cfg:            cfg,
		q:              queue.NewTimed[T](cfg.QueueLevelBits(), cfg.Capacity(), shift),
		shift:          shift,
		start:          s,
		now:            s,
		maxIntervalNum: maxTimeNs >> shift,
	}
	w.q.SetInvalidAlarmError(ErrInvalidAlarm)
	if err := w.q.IncreaseMinAllowedKey(s>>shift, nil); err != nil {
		return nil, err // unreachable: s >> shift <= MaxKey
	}
	return w, nil
}

// checkAfter is checked mode's check after a mutating call (-tags twcheck).
func (w *Wheel[T]) checkAfter(call string, args ...any) {
	if err := w.checkCall(); err != nil {
		checked.Fail("timingwheel."+call, args, err)
	}
}

func toNanos(t time.Time) (int64, error) {
	if ns, ok := nanos(t); ok {
		return ns, nil
	}
	return 0, outOfRange(t)
}

// nanos returns t as nanoseconds after the epoch and whether t lies in
// [epoch, MaxTime]; it inlines, unlike toNanos.
func nanos(t time.Time) (int64, bool) {
	sec := t.Unix()
	ns := sec*1e9 + int64(t.Nanosecond()) // no overflow when sec is in range
	return ns, uint64(sec) <= uint64(maxTimeNs/1e9) && ns <= maxTimeNs
}

func outOfRange(t time.Time) error {
	return fmt.Errorf("%w: %v, allowed [%v, %v]", ErrTimeOutOfRange,
		t.UTC(), time.Unix(0, 0).UTC(), MaxTime)
}

// fromNanos returns the time ns >= 0 nanoseconds after the epoch, in UTC
// (an unsigned split, cheaper than time.Unix(0, ns)).
func fromNanos(ns int64) time.Time {
	u := uint64(ns)
	return time.Unix(int64(u/1e9), int64(u%1e9)).UTC()
}

// Config returns the wheel's config.
func (w *Wheel[T]) Config() config.Config { return w.cfg }

// AlarmPrecision returns the length of one interval, 2^A ns.
func (w *Wheel[T]) AlarmPrecision() time.Duration { return time.Duration(1) << w.shift }

// Now returns the wheel's clock in UTC, as are all the times the wheel
// returns, Fired.At included (compare them with Equal, not ==).
func (w *Wheel[T]) Now() time.Time { return fromNanos(w.now) }

// Start returns the time the wheel was created with, in UTC (Equal to it).
func (w *Wheel[T]) Start() time.Time { return fromNanos(w.start) }

// Len returns the number of alarms in the wheel. Cost: O(1).
func (w *Wheel[T]) Len() int { return w.q.Len() }

// IsEmpty reports whether the wheel holds no alarm.
func (w *Wheel[T]) IsEmpty() bool { return w.q.Len() == 0 }

// All returns an iterator over every alarm in the wheel, each once, in no
// promised order. The wheel must not be changed during the iteration.
func (w *Wheel[T]) All() iter.Seq[Alarm] { return w.q.All() }

// IntervalNum returns the number of the interval holding t: ns(t) >> A.
// Error: ErrTimeOutOfRange.
func (w *Wheel[T]) IntervalNum(t time.Time) (int64, error) {
	ns, err := toNanos(t)
	if err != nil {
		return 0, err
	}
	return ns >> w.shift, nil
}

// key returns the interval number of ns (the mask, shift <= 61, spares Go's
// code for shifts of 64 or more).
func (w *Wheel[T]) key(ns int64) int64 { return ns >> (w.shift & 63) }

// NowIntervalNum returns the interval number of Now().
func (w *Wheel[T]) NowIntervalNum() int64 { return w.now >> w.shift }

// MaxIntervalNum returns the interval number of MaxTime: (2^62-1) >> A.
func (w *Wheel[T]) MaxIntervalNum() int64 { return w.maxIntervalNum }

// IntervalNumStart returns the first time of interval n: n << A. Error:
// ErrIntervalNumOutOfRange for n < 0 or n > MaxIntervalNum().
func (w *Wheel[T]) IntervalNumStart(n int64) (time.Time, error) {
	if err := w.checkIntervalNum(n); err != nil {
		return time.Time{}, err
	}
	return fromNanos(n << w.shift), nil
}

func (w *Wheel[T]) checkIntervalNum(n int64) error {
	if n < 0 || n > w.maxIntervalNum {
		return fmt.Errorf("%w: %d, allowed [0, %d]", ErrIntervalNumOutOfRange, n, w.maxIntervalNum)
	}
	return nil
}

// IntervalStart returns the first time of the interval holding t. Error:
// ErrTimeOutOfRange.
func (w *Wheel[T]) IntervalStart(t time.Time) (time.Time, error) {
	n, err := w.IntervalNum(t)
	if err != nil {
		return time.Time{}, err
	}
	return fromNanos(n << w.shift), nil
}

// MinAllowedAlarmIntervalNum returns NowIntervalNum(), the smallest interval
// number an alarm may have.
func (w *Wheel[T]) MinAllowedAlarmIntervalNum() int64 { return w.now >> w.shift }

// MaxAllowedAlarmIntervalNum returns the largest interval number an alarm may
// have now; it grows as the clock advances.
func (w *Wheel[T]) MaxAllowedAlarmIntervalNum() int64 {
	return min(w.q.MaxAllowedKey(), w.maxIntervalNum)
}

// MaxAllowedAlarmTime returns the last time an alarm may have now: the last
// nanosecond of the last interval the levels can hold, or MaxTime.
func (w *Wheel[T]) MaxAllowedAlarmTime() time.Time {
	if k := w.q.MaxAllowedKey(); k < w.maxIntervalNum {
		return fromNanos(k<<w.shift + (1<<w.shift - 1))
	}
	return MaxTime
}

// outside maps a time outside [epoch, MaxTime] to nanoseconds the queue
// refuses: -1 or MaxTime+1.
func outside(at time.Time) int64 {
	if at.Unix() < 0 {
		return -1
	}
	return maxTimeNs + 1
}

// rangeError turns the queue's range error for interval n (at, or with
// byNum the start of n) into ErrBeforeCurrentInterval or ErrTooFarInFuture;
// another error passes as it is.
func (w *Wheel[T]) rangeError(err error, n int64, at time.Time, byNum bool) error {
	if !errors.Is(err, queue.ErrKeyOutOfRange) {
		return err
	}
	switch before := n < w.now>>w.shift; {
	case byNum && before:
		return fmt.Errorf("%w: interval %d, allowed from %d", ErrBeforeCurrentInterval, n, w.now>>w.shift)
	case byNum:
		return fmt.Errorf("%w: interval %d, allowed up to %d", ErrTooFarInFuture, n, w.MaxAllowedAlarmIntervalNum())
	case before:
		return fmt.Errorf("%w: %v, allowed from %v (now %v)", ErrBeforeCurrentInterval,
			at.UTC(), fromNanos(w.now>>w.shift<<w.shift), w.Now())
	}
	return fmt.Errorf("%w: %v, allowed up to %v", ErrTooFarInFuture, at.UTC(), w.MaxAllowedAlarmTime())
}

// Add adds an alarm at time at with value v and returns its handle. It fires
// after every alarm already in the wheel at the same time and, when
// AdvanceClock, AdvanceClockLimit or FirePastAlarms fires it, after every
// alarm already in its interval (see Order in the package doc). Errors:
// ErrTooFarInFuture if at > MaxAllowedAlarmTime() (checked first),
// ErrBeforeCurrentInterval if at is before the start of the current
// interval. A time in the current interval but before Now() is accepted, as
// in the original: the alarm is late at once, and the next Step,
// FirePastAlarms or AdvanceClockStopAtNextAlarm fires it, as does an advance
// to a later interval (not one within the current interval). Cost:
// O(levels). It allocates only to hold more alarms than ever, or more in
// one slot than that slot ever held.
func (w *Wheel[T]) Add(at time.Time, v T) (Alarm, error) {
	ns, ok := nanos(at)
	if !ok {
		ns = outside(at)
	}
	a, err := w.q.Add(ns, v)
	if err != nil {
		return Alarm{}, w.rangeError(err, w.key(ns), at, false)
	}
	if checked.On {
		w.checkAfter("Add", at)
	}
	return a, nil
}

// AddAtIntervalNum adds an alarm at the start of interval n. Errors:
// ErrIntervalNumOutOfRange, ErrBeforeCurrentInterval, ErrTooFarInFuture.
func (w *Wheel[T]) AddAtIntervalNum(n int64, v T) (Alarm, error) {
	if err := w.checkIntervalNum(n); err != nil {
		return Alarm{}, err
	}
	a, err := w.q.Add(n<<w.shift, v)
	if err != nil {
		return Alarm{}, w.rangeError(err, n, time.Time{}, true)
	}
	if checked.On {
		w.checkAfter("AddAtIntervalNum", n)
	}
	return a, nil
}

// Mem reports whether a is in the wheel. Cost: O(1).
func (w *Wheel[T]) Mem(a Alarm) bool { return w.q.Mem(a) }

// Remove removes a; a becomes invalid. Error: ErrInvalidAlarm. Cost: O(1).
func (w *Wheel[T]) Remove(a Alarm) error {
	err := w.q.Remove(a)
	if checked.On {
		w.checkAfter("Remove", a)
	}
	return err
}

// Reschedule moves a to time at, keeping its handle and value; a then fires
// after the alarms already at that time (and in that interval), as an alarm
// added now would (see Add). Errors: ErrInvalidAlarm, then those of Add.
// Cost: O(levels).
func (w *Wheel[T]) Reschedule(a Alarm, at time.Time) error {
	ns, ok := nanos(at)
	if !ok {
		ns = outside(at)
	}
	if err := w.q.Change(a, ns); err != nil {
		return w.rangeError(err, w.key(ns), at, false)
	}
	if checked.On {
		w.checkAfter("Reschedule", a, at)
	}
	return nil
}

// RescheduleAtIntervalNum moves a to the start of interval n. Errors:
// ErrInvalidAlarm, then those of AddAtIntervalNum.
func (w *Wheel[T]) RescheduleAtIntervalNum(a Alarm, n int64) error {
	if err := w.checkIntervalNum(n); err != nil {
		if !w.q.Mem(a) {
			return fmt.Errorf("%w: %v", ErrInvalidAlarm, a)
		}
		return err
	}
	if err := w.q.Change(a, n<<w.shift); err != nil {
		return w.rangeError(err, n, time.Time{}, true)
	}
	if checked.On {
		w.checkAfter("RescheduleAtIntervalNum", a, n)
	}
	return nil
}

// Clear removes every alarm; every handle becomes invalid, for good. The
// clock stays. Cost: O(slots + records).
func (w *Wheel[T]) Clear() {
	w.q.Clear()
	if checked.On {
		w.checkAfter("Clear")
	}
}

// Stats describes a wheel's load and memory, and its cumulative counters.
type Stats struct {
	Live      int    // alarms in the wheel (Len)
	Capacity  int    // alarm records allocated (used or free)
	BytesHeld int    // estimated bytes the wheel holds: records, slots and vectors, bitmaps, buffers
	Levels    []int  // alarms on each level of the config's level bits
	Overflow  int    // alarms on the overflow levels (config.WithOverflow)
	Due       int    // alarms waiting to fire: inside a handler, or overdue after a panic
	Added     uint64 // alarms added, ever
	Removed   uint64 // alarms removed by Remove, ever
	Fired     uint64 // alarms fired, ever
	Cleared   uint64 // alarms dropped by Clear, ever
	Moved     uint64 // moves of an alarm down a level, ever
}

// Stats returns the wheel's statistics. It allocates the Levels slice.
func (w *Wheel[T]) Stats() Stats {
	c := w.q.Counts()
	st := Stats{
		Live: w.q.Len(), Capacity: w.q.Capacity(), BytesHeld: int(unsafe.Sizeof(*w)) + w.q.BytesHeld(), Due: w.q.DueLen(),
		Added: c.Added, Removed: c.Removed, Fired: c.Fired, Cleared: c.Cleared, Moved: c.Moved,
	}
	user := w.cfg.LevelBits().Len()
	for l := 0; l < w.q.NumLevels(); l++ {
		if l < user {
			st.Levels = append(st.Levels, w.q.LevelLen(l))
		} else {
			st.Overflow += w.q.LevelLen(l)
		}
	}
	return st
}

// Shrink releases what a burst left behind (alarm records, slot vectors,
// the due list's buffer, the slots of empty levels), so that the memory
// held follows the live alarms. Every handle stays valid (AlarmAt, Remove and
// the rest work on it) and stale ones stay rejected. Cost: O(records).
func (w *Wheel[T]) Shrink() {
	w.q.Shrink()
	if checked.On {
		w.checkAfter("Shrink")
	}
}

// AlarmAt returns a's time, also inside a's handler. Error: ErrInvalidAlarm.
func (w *Wheel[T]) AlarmAt(a Alarm) (time.Time, error) {
	e, err := w.q.Lookup(a)
	if err != nil {
		return time.Time{}, err
	}
	return fromNanos(e.Time), nil
}

// AlarmIntervalNum returns a's interval number. Error: ErrInvalidAlarm.
func (w *Wheel[T]) AlarmIntervalNum(a Alarm) (int64, error) {
	e, err := w.q.Lookup(a)
	return e.Key, err
}

// AlarmValue returns a's value. Error: ErrInvalidAlarm.
func (w *Wheel[T]) AlarmValue(a Alarm) (T, error) {
	e, err := w.q.Lookup(a)
	return e.Value, err
}

// AdvanceClock moves the clock to to and fires, in order, every alarm with
// at < IntervalStart(to), calling fired (if not nil) for each (see Handlers
// in the package doc). If to <= Now() the clock stays. Error:
// ErrTimeOutOfRange when to is before the epoch or after MaxTime. Cost:
// O(levels + alarms fired + alarms moved down a level).
func (w *Wheel[T]) AdvanceClock(to time.Time, fired func(Fired[T])) error {
	ns, ok := nanos(to)
	if !ok {
		return outOfRange(to)
	}
	if ns > w.now {
		w.now = ns
	}
	w.q.CollectTo(w.key(w.now), 0)
	w.q.FireDue(adapt(fired))
	if checked.On {
		w.checkAfter("AdvanceClock", to)
	}
	return nil
}

// AdvanceClockLimit is AdvanceClock in bounded steps, for event loops with a
// latency budget. It fires due alarms in AdvanceClock's order and stops once
// it has fired at least limit of them, finishing the interval it is in, so
// it may exceed limit by the rest of that interval and by the alarms that
// fire first (see Handlers in the package doc). When it stops early, Now()
// is the start of the first interval still holding due alarms, and a call
// with the same to continues. It returns how many alarms it fired and done
// = true when no alarm before IntervalStart(to) remains (then Now() = to, or
// stays if to <= Now()). Limited calls fire the sequence one AdvanceClock
// would, as long as their handlers (which see the earlier Now()) add no
// alarm before to. Errors: ErrNonPositiveLimit for limit < 1, then
// ErrTimeOutOfRange as AdvanceClock.
func (w *Wheel[T]) AdvanceClockLimit(to time.Time, limit int, fired func(Fired[T])) (n int, done bool, err error) {
	if limit < 1 {
		return 0, false, fmt.Errorf("%w: got %d", ErrNonPositiveLimit, limit)
	}
	ns, err := toNanos(to)
	if err != nil {
		return 0, false, err
	}
	n, done = w.q.Advance(&w.now, ns, limit, adapt(fired))
	if checked.On {
		w.checkAfter("AdvanceClockLimit", to, limit)
	}
	return n, done, nil
}

// FirePastAlarms fires, in order, the alarms of the current interval with
// at <= Now() (after the alarms that fire first, see Handlers in the package
// doc). The clock does not move. Cost: O(levels + alarms in the current
// interval).
func (w *Wheel[T]) FirePastAlarms(fired func(Fired[T])) {
	w.q.RemoveAtMinKey(w.now, adapt(fired))
	if checked.On {
		w.checkAfter("FirePastAlarms")
	}
}

// AdvanceClockStopAtNextAlarm sets Now() to the earlier of to and the
// earliest alarm time (never backwards) and then fires, in order, the alarms
// of the current interval with at <= Now(); the alarms that fire first (see
// Handlers in the package doc) do not hold the clock back. On an empty
// wheel, or when every alarm is after to, it moves the clock to to, so with
// to = MaxTime every later Add fails with ErrBeforeCurrentInterval: use Step
// for a simulation. (The original's call fires nothing; see docs/design.md.)
// Error: ErrTimeOutOfRange, and then nothing changes. Cost: as Step.
func (w *Wheel[T]) AdvanceClockStopAtNextAlarm(to time.Time, fired func(Fired[T])) error {
	ns, err := toNanos(to)
	if err != nil {
		return err
	}
	if lo, ok := w.q.MinTime(false); ok && lo < ns {
		ns = lo
	}
	if ns > w.now {
		w.now = ns // no alarm not due is before ns: this collects nothing
		w.q.CollectTo(ns>>w.shift, 0)
	}
	w.q.RemoveAtMinKey(w.now, adapt(fired))
	if checked.On {
		w.checkAfter("AdvanceClockStopAtNextAlarm", to)
	}
	return nil
}

// Step is the discrete-event step (see Simulation in the package doc): it
// fires the alarms of the earliest alarm time, in the order they were added
// or rescheduled, and reports whether it fired any. When no alarm is at or
// before Now(), it first moves the clock to the earliest alarm time.
// Otherwise the clock stays and Step fires the alarms of the current
// interval at or before Now() (late alarms, see Add, and alarms a handler
// added at Now()), after any a panicking handler left overdue: those are
// the earliest, so a Step that finds them fires no later alarm. It is
// AdvanceClockStopAtNextAlarm with to the earliest alarm time (Next's,
// overdue alarms included), with the same handler rules, except that on an
// empty wheel it changes nothing and returns false: it never moves the
// clock past the last alarm. With fired nil, the alarms leave the wheel
// without a call, and Step still reports them. Cost: O(levels + alarms
// fired + alarms moved down a level); at a precision above 1 ns, the
// first Step or Next to reach an interval of m alarms also orders them by
// time (a heap), O(m), and the later ones read
// that order, which Add, Reschedule and Remove keep: each of them, and
// each alarm Step fires, then costs O(log m) more.
func (w *Wheel[T]) Step(fired func(Fired[T])) bool {
	if w.q.Len() == 0 {
		return false
	}
	n := w.q.Step(&w.now, adapt(fired))
	if checked.On {
		w.checkAfter("Step")
	}
	return n > 0
}

// NextAlarmFiresAt returns the earliest time to which AdvanceClock fires an
// alarm: the start of the interval after the earliest alarm's (not that
// alarm's time: MinAlarmTimeInMinInterval). It is false when the wheel is
// empty or the earliest alarm is in the last interval, which no advance
// fires (use Step or FirePastAlarms). Cost: as MinAlarmIntervalNum.
func (w *Wheel[T]) NextAlarmFiresAt() (time.Time, bool) {
	k, ok := w.q.MinKey()
	if !ok || k >= w.maxIntervalNum {
		return time.Time{}, false
	}
	return fromNanos((k + 1) << (w.shift & 63)), true // see key
}

// MinAlarmIntervalNum returns the smallest interval number of any alarm, or
// false when the wheel is empty. Cost: O(1) when cached (after a query,
// until an alarm leaves or the clock moves), else O(levels + the alarms of
// one slot per level).
func (w *Wheel[T]) MinAlarmIntervalNum() (int64, bool) { return w.q.MinKey() }

// MinAlarmTimeInMinInterval returns the earliest time among the alarms of the
// smallest interval, overdue ones included, or false when the wheel is
// empty: the next event's time (see Simulation in the package doc). Cost: as
// MinAlarmIntervalNum; at a precision above 1 ns, plus ordering the alarms
// of that interval when no earlier call has (see Step).
func (w *Wheel[T]) MinAlarmTimeInMinInterval() (time.Time, bool) {
	lo, ok := w.q.MinTime(true)
	if !ok {
		return time.Time{}, false
	}
	return fromNanos(lo), true
}

// Next returns the time of the next event of a simulation, the earliest
// alarm time (overdue alarms included), or false when the wheel is empty:
// the time of the alarms the next Step fires (see Simulation in the package
// doc), which fires overdue ones at Now(), as the clock never goes back.
// It is MinAlarmTimeInMinInterval, under the name a simulation loop reads.
// Cost: as MinAlarmTimeInMinInterval.
func (w *Wheel[T]) Next() (time.Time, bool) { return w.MinAlarmTimeInMinInterval() }

// MaxAlarmTimeInMinInterval returns the latest time among the alarms of the
// smallest interval, or false when the wheel is empty. Cost: as
// MinAlarmTimeInMinInterval, plus O(alarms in that interval) above 1 ns.
func (w *Wheel[T]) MaxAlarmTimeInMinInterval() (time.Time, bool) {
	_, hi, ok := w.q.MinTimes(true)
	if !ok {
		return time.Time{}, false
	}
	return fromNanos(hi), true
}

package proptest

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"runtime/debug"
	"slices"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// Wheel is what the checks drive: the methods of *timingwheel.Wheel[int] they
// call. *timingwheel.Wheel[int] implements it; so may a wrapper of your own
// (a locked wheel, a wheel behind a simulated clock), checked through
// WithWheelFactory.
type Wheel interface {
	Now() time.Time
	Start() time.Time
	AlarmPrecision() time.Duration
	Len() int
	IsEmpty() bool
	All() iter.Seq[alarm.Alarm]
	NowIntervalNum() int64
	MaxAllowedAlarmTime() time.Time
	MaxAllowedAlarmIntervalNum() int64
	Add(at time.Time, v int) (alarm.Alarm, error)
	AddAtIntervalNum(n int64, v int) (alarm.Alarm, error)
	Mem(a alarm.Alarm) bool
	Remove(a alarm.Alarm) error
	Reschedule(a alarm.Alarm, at time.Time) error
	RescheduleAtIntervalNum(a alarm.Alarm, n int64) error
	Clear()
	Shrink()
	Stats() timingwheel.Stats
	AlarmAt(a alarm.Alarm) (time.Time, error)
	AlarmIntervalNum(a alarm.Alarm) (int64, error)
	AlarmValue(a alarm.Alarm) (int, error)
	AdvanceClock(to time.Time, fired func(timingwheel.Fired[int])) error
	AdvanceClockLimit(to time.Time, limit int, fired func(timingwheel.Fired[int])) (int, bool, error)
	FirePastAlarms(fired func(timingwheel.Fired[int]))
	AdvanceClockStopAtNextAlarm(to time.Time, fired func(timingwheel.Fired[int])) error
	NextAlarmFiresAt() (time.Time, bool)
	MinAlarmIntervalNum() (int64, bool)
	MinAlarmTimeInMinInterval() (time.Time, bool)
	MaxAlarmTimeInMinInterval() (time.Time, bool)
	Invariant() error
}

// WheelFactory makes the wheel under test for a config and start time.
type WheelFactory func(cfg config.Config, start time.Time) (Wheel, error)

func defaultWheelFactory(cfg config.Config, start time.Time) (Wheel, error) {
	return timingwheel.NewWithConfig[int](cfg, start)
}

// wheelHarness runs calls on a wheel and a Model side by side and reports the
// first difference. It is shared by CheckWheel, GopterProperties, the fuzz
// entry point and the replayer, so all of them check exactly the same things.
type wheelHarness struct {
	cfg   config.Config
	w     Wheel
	m     *Model[int]
	real  map[int]alarm.Alarm // every id ever added -> wheel handle
	mod   map[int]ModelAlarm  // every id ever added -> model handle
	live  map[int]bool        // ids in both
	ended map[int]bool        // ids fired, removed or cleared: never again
	maxID int
	trace WheelTrace
}

func newWheelHarness(cfg config.Config, start time.Time, factory WheelFactory) (*wheelHarness, error) {
	if factory == nil {
		factory = defaultWheelFactory
	}
	h := &wheelHarness{cfg: cfg, real: map[int]alarm.Alarm{}, mod: map[int]ModelAlarm{},
		live: map[int]bool{}, ended: map[int]bool{}, trace: traceOfConfig(cfg, start)}
	w, err := factory(cfg, start)
	m, merr := NewModel[int](cfg, start)
	if (err == nil) != (merr == nil) || err != nil && !errors.Is(err, timingwheel.ErrTimeOutOfRange) {
		return nil, fmt.Errorf("New(%v, %d): wheel error %v, model error %v", cfg, start.UnixNano(), err, merr)
	}
	if err != nil {
		return nil, err
	}
	h.w, h.m = w, m
	return h, h.compare()
}

// newWheelHarnessFromTrace builds the harness for a trace's header.
func newWheelHarnessFromTrace(tr WheelTrace, factory WheelFactory) (*wheelHarness, error) {
	cfg, err := tr.Config()
	if err != nil {
		return nil, fmt.Errorf("proptest: trace config: %w", err)
	}
	return newWheelHarness(cfg, ns2t(tr.Start), factory)
}

// runWheelTrace runs every call of tr and returns the first difference.
func runWheelTrace(tr WheelTrace, factory WheelFactory) error {
	h, err := newWheelHarnessFromTrace(tr, factory)
	if err != nil {
		return err
	}
	for _, op := range tr.Ops {
		if err := h.step(op); err != nil {
			return err
		}
	}
	return nil
}

var wheelSentinels = []error{timingwheel.ErrTimeOutOfRange, timingwheel.ErrIntervalNumOutOfRange,
	timingwheel.ErrTooFarInFuture, timingwheel.ErrBeforeCurrentInterval, timingwheel.ErrInvalidAlarm,
	timingwheel.ErrNonPositiveLimit}

// sameErr reports whether two errors are both nil or wrap the same sentinels.
func sameErr(got, want error, sentinels []error) bool {
	if (got == nil) != (want == nil) {
		return false
	}
	for _, e := range sentinels {
		if errors.Is(got, e) != errors.Is(want, e) {
			return false
		}
	}
	return true
}

func (h *wheelHarness) handles(id int) (alarm.Alarm, ModelAlarm) { return h.real[id], h.mod[id] }

// newID is the id the next added alarm gets when the trace does not name one.
func (h *wheelHarness) newID(want int) int {
	if want > h.maxID {
		return want
	}
	return h.maxID + 1
}

func (h *wheelHarness) register(id int, a alarm.Alarm, ma ModelAlarm) {
	h.real[id], h.mod[id], h.live[id] = a, ma, true
	h.maxID = max(h.maxID, id)
}

// step runs op on both sides, records it in the trace, and checks every
// observable and the invariant afterwards.
func (h *wheelHarness) step(op WheelOp) (err error) {
	if op.Name == OpAdd || op.Name == OpAddAtIntervalNum {
		op.ID = h.newID(op.ID)
	}
	h.trace.Ops = append(h.trace.Ops, op)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v: unexpected panic: %v\n%s", op, r, debug.Stack())
		}
	}()
	if err := h.apply(op); err != nil {
		return fmt.Errorf("%v: %w", op, err)
	}
	if err := h.compare(); err != nil {
		return fmt.Errorf("after %v: %w", op, err)
	}
	return nil
}

func errPair(call string, got, want error) error {
	return fmt.Errorf("%s: wheel error %v, model error %v", call, got, want)
}

func (h *wheelHarness) apply(op WheelOp) error {
	a, ma := h.handles(op.ID)
	switch op.Name {
	case OpAdd, OpAddAtIntervalNum:
		var got alarm.Alarm
		var mgot ModelAlarm
		var err, merr error
		if op.Name == OpAdd {
			got, err = h.w.Add(ns2t(op.Time), op.ID)
			mgot, merr = h.m.Add(ns2t(op.Time), op.ID)
		} else {
			got, err = h.w.AddAtIntervalNum(op.Interval, op.ID)
			mgot, merr = h.m.AddAtIntervalNum(op.Interval, op.ID)
		}
		if !sameErr(err, merr, wheelSentinels) {
			return errPair(op.Name, err, merr)
		}
		if err == nil {
			h.register(op.ID, got, mgot)
		}
	case OpRemove:
		err, merr := h.w.Remove(a), h.m.Remove(ma)
		if !sameErr(err, merr, wheelSentinels) {
			return errPair(op.Name, err, merr)
		}
	case OpReschedule:
		err, merr := h.w.Reschedule(a, ns2t(op.Time)), h.m.Reschedule(ma, ns2t(op.Time))
		if !sameErr(err, merr, wheelSentinels) {
			return errPair(op.Name, err, merr)
		}
	case OpRescheduleAtIntervalNum:
		err, merr := h.w.RescheduleAtIntervalNum(a, op.Interval), h.m.RescheduleAtIntervalNum(ma, op.Interval)
		if !sameErr(err, merr, wheelSentinels) {
			return errPair(op.Name, err, merr)
		}
	case OpShrink:
		h.w.Shrink() // not observable: every handle and alarm must survive it
	case OpClear:
		h.w.Clear()
		h.m.Clear()
	case OpAdvanceClock:
		to := ns2t(op.Time)
		return h.fire(op, true,
			func(f func(timingwheel.Fired[int])) error { return h.w.AdvanceClock(to, f) },
			func(f func(ModelAlarm)) error { return h.m.AdvanceClock(to, f) })
	case OpAdvanceClockLimit:
		to := ns2t(op.Time)
		var gotN, wantN int
		var gotDone, wantDone bool
		err := h.fire(op, true,
			func(f func(timingwheel.Fired[int])) (err error) {
				gotN, gotDone, err = h.w.AdvanceClockLimit(to, op.Limit, f)
				return err
			},
			func(f func(ModelAlarm)) (err error) {
				wantN, wantDone, err = h.m.AdvanceClockLimit(to, op.Limit, f)
				return err
			})
		if err != nil {
			return err
		}
		if gotN != wantN || gotDone != wantDone {
			return fmt.Errorf("returned (%d, %v), model (%d, %v)", gotN, gotDone, wantN, wantDone)
		}
	case OpFirePastAlarms:
		return h.fire(op, false,
			func(f func(timingwheel.Fired[int])) error { h.w.FirePastAlarms(f); return nil },
			func(f func(ModelAlarm)) error { h.m.FirePastAlarms(f); return nil })
	case OpAdvanceClockStopAtNextAlarm:
		to := ns2t(op.Time)
		return h.fire(op, false,
			func(f func(timingwheel.Fired[int])) error { return h.w.AdvanceClockStopAtNextAlarm(to, f) },
			func(f func(ModelAlarm)) error { return h.m.AdvanceClockStopAtNextAlarm(to, f) })
	default:
		return fmt.Errorf("unknown call %q", op.Name)
	}
	return h.resync()
}

// scriptPanic is the value a scripted handler panics with.
type scriptPanic struct{}

// fire runs a firing call on both sides with the same handler script and
// compares the fired ids, the handlers' own errors and the panics. strict
// means alarms must fire with at < Now() (AdvanceClock); otherwise at <= Now()
// (FirePastAlarms and the stop-at-next-alarm step).
func (h *wheelHarness) fire(op WheelOp, strict bool,
	wheelCall func(func(timingwheel.Fired[int])) error, modelCall func(func(ModelAlarm)) error) error {
	hs := op.Script
	addID := h.maxID + 1
	var got, want []int
	var gotActErr, wantActErr error
	var added, madded bool
	var addHandle alarm.Alarm
	var addModel ModelAlarm
	var failure error
	fail := func(format string, args ...any) {
		if failure == nil {
			failure = fmt.Errorf(format, args...)
		}
	}
	// Alarms a panicking FirePastAlarms left due were due by its rule, at <= now.
	leftover := map[int]bool{}
	for _, ma := range h.m.due {
		if v, err := h.m.AlarmValue(ma); err == nil {
			leftover[v] = true
		}
	}
	calls := 0
	wheelHandler := func(ev timingwheel.Fired[int]) {
		a := ev.Alarm

		calls++
		id, err := h.w.AlarmValue(a)
		if err != nil {
			fail("AlarmValue inside the handler: %v", err)
			return
		}
		at, err := h.w.AlarmAt(a)
		if err != nil {
			fail("AlarmAt(id %d) inside the handler: %v", id, err)
		}
		now := h.w.Now()
		if strict && !leftover[id] && !at.Before(now) || at.After(now) {
			fail("alarm %d at %d fired early, now %d", id, at.UnixNano(), now.UnixNano())
		}
		if h.w.Mem(a) {
			fail("Mem(id %d) true inside its own handler", id)
		}
		if h.ended[id] {
			fail("alarm %d fired after it was fired, removed or cleared", id)
		}
		if !h.live[id] {
			fail("alarm %d fired in the call whose handler added it", id)
		}
		h.ended[id] = true
		got = append(got, id)
		if calls != hs.Call {
			return
		}
		target, _ := h.handles(hs.Target)
		switch hs.Action {
		case ActAdd:
			addHandle, gotActErr = h.w.Add(now.Add(time.Duration(hs.Offset)), addID)
			added = gotActErr == nil
		case ActRemove:
			gotActErr = h.w.Remove(target)
		case ActReschedule:
			gotActErr = h.w.Reschedule(target, now.Add(time.Duration(hs.Offset)))
		case ActShrink:
			h.w.Shrink()
		case ActPanic:
			panic(scriptPanic{})
		}
	}
	mcalls := 0
	modelHandler := func(ma ModelAlarm) {
		mcalls++
		id, err := h.m.AlarmValue(ma)
		if err != nil {
			fail("model AlarmValue inside the handler: %v", err)
			return
		}
		want = append(want, id)
		if mcalls != hs.Call {
			return
		}
		_, target := h.handles(hs.Target)
		now := h.m.Now()
		switch hs.Action {
		case ActAdd:
			addModel, wantActErr = h.m.Add(now.Add(time.Duration(hs.Offset)), addID)
			madded = wantActErr == nil
		case ActRemove:
			wantActErr = h.m.Remove(target)
		case ActReschedule:
			wantActErr = h.m.Reschedule(target, now.Add(time.Duration(hs.Offset)))
		case ActPanic:
			panic(scriptPanic{})
		}
	}
	var fired func(timingwheel.Fired[int])
	var mfired func(ModelAlarm)
	fired, mfired = wheelHandler, modelHandler
	if hs.Action == ActNil {
		// A nil handler must remove the due alarms just the same; the model
		// still reports them.
		fired = nil
	}
	errW, pW := runScripted(func() error { return wheelCall(fired) })
	errM, pM := runScripted(func() error { return modelCall(mfired) })
	if fired == nil {
		got = want // nothing to observe; resync checks that they are gone
		for _, id := range want {
			h.ended[id] = true
		}
	}
	if failure != nil {
		return failure
	}
	if !sameErr(errW, errM, wheelSentinels) {
		return errPair(op.Name, errW, errM)
	}
	if pW != pM {
		return fmt.Errorf("handler panic reached the caller: wheel %v, model %v", pW, pM)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("fired a different sequence (-model +wheel):\n%s", diff)
	}
	if !sameErr(gotActErr, wantActErr, wheelSentinels) {
		return fmt.Errorf("handler %s: wheel error %v, model error %v", hs.Action, gotActErr, wantActErr)
	}
	if added != madded {
		return fmt.Errorf("handler add: wheel added %v, model added %v", added, madded)
	}
	for _, id := range got {
		delete(h.live, id)
	}
	if added {
		h.register(addID, addHandle, addModel)
	}
	return h.resync()
}

// runScripted calls f and reports whether it panicked with scriptPanic; any
// other panic goes on.
func runScripted(f func() error) (err error, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(scriptPanic); !ok {
				panic(r)
			}
			panicked = true
		}
	}()
	return f(), false
}

// resync drops from the live set the ids that left both sides (removed,
// cleared, or removed by a handler) and fails when the sides disagree on
// which ids are members.
func (h *wheelHarness) resync() error {
	for _, id := range slices.Sorted(maps.Keys(h.real)) {
		inW, inM := h.w.Mem(h.real[id]), h.m.Mem(h.mod[id])
		if inW != inM {
			return fmt.Errorf("alarm %d: wheel Mem %v, model Mem %v", id, inW, inM)
		}
		if inW && !h.live[id] {
			return fmt.Errorf("alarm %d is a member again after it was fired, removed or cleared", id)
		}
		if !inW && h.live[id] {
			delete(h.live, id)
			h.ended[id] = true
		}
	}
	return nil
}

// compare checks every observable and the invariant.
func (h *wheelHarness) compare() error {
	w, m := h.w, h.m
	if err := CompareQueries(w, m); err != nil {
		return err
	}
	for _, id := range slices.Sorted(maps.Keys(h.real)) {
		a, ma := h.handles(id)
		if !h.live[id] {
			if w.Mem(a) {
				return fmt.Errorf("alarm %d is a member after it was fired, removed or cleared", id)
			}
			if _, err := w.AlarmAt(a); !errors.Is(err, timingwheel.ErrInvalidAlarm) {
				return fmt.Errorf("AlarmAt(dead id %d): error %v, want ErrInvalidAlarm", id, err)
			}
			continue
		}
		at, err := w.AlarmAt(a)
		mat, merr := m.AlarmAt(ma)
		if err != nil || merr != nil || !at.Equal(mat) {
			return fmt.Errorf("AlarmAt(id %d) %d %v, model %d %v", id, at.UnixNano(), err, mat.UnixNano(), merr)
		}
		n, err := w.AlarmIntervalNum(a)
		mn, merr := m.AlarmIntervalNum(ma)
		if err != nil || merr != nil || n != mn {
			return fmt.Errorf("AlarmIntervalNum(id %d) %d %v, model %d %v", id, n, err, mn, merr)
		}
		if v, err := w.AlarmValue(a); err != nil || v != id {
			return fmt.Errorf("AlarmValue(id %d) = %d, %v", id, v, err)
		}
	}
	seen := map[int]bool{}
	for a := range w.All() {
		v, err := w.AlarmValue(a)
		if err != nil || !h.live[v] || seen[v] || h.real[v] != a {
			return fmt.Errorf("All yields alarm %v (id %d, %v): not a live alarm, or twice", a, v, err)
		}
		seen[v] = true
	}
	if len(seen) != len(h.live) {
		return fmt.Errorf("All yields %d alarms, %d live", len(seen), len(h.live))
	}
	st := w.Stats()
	onLevels := st.Overflow + st.Due
	for _, c := range st.Levels {
		onLevels += c
	}
	if st.Live != w.Len() || onLevels != st.Live || st.Capacity < st.Live {
		return fmt.Errorf("Stats %+v inconsistent with Len %d", st, w.Len())
	}
	if !h.cfg.Overflow() && st.Overflow != 0 {
		return fmt.Errorf("Stats.Overflow %d without overflow levels", st.Overflow)
	}
	return nil
}

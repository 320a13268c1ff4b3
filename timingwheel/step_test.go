package timingwheel_test

// Step: each claim of its doc, worked out by hand. The property tests
// (proptest) compare it with the reference model on random calls.

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// stepLog records what a handler saw: the value, the alarm's time and Now()
// inside the handler.
type stepLog struct {
	w    *timingwheel.Wheel[string]
	seen []string
	at   []time.Time
	now  []time.Time
}

func (l *stepLog) handle(f timingwheel.Fired[string]) {
	l.seen = append(l.seen, f.Value)
	l.at = append(l.at, f.At)
	l.now = append(l.now, l.w.Now())
}

func (l *stepLog) reset() { l.seen, l.at, l.now = nil, nil, nil }

func mustAdd[T any](t *testing.T, w *timingwheel.Wheel[T], at time.Time, v T) timingwheel.Alarm {
	t.Helper()
	a, err := w.Add(at, v)
	if err != nil {
		t.Fatalf("Add(%v, %v): %v", at, v, err)
	}
	return a
}

func TestStepEmptyChangesNothing(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	w, err := timingwheel.New[string](start, time.Millisecond)
	ok(t, err)
	for range 3 {
		if w.Step(func(timingwheel.Fired[string]) { t.Fatal("a handler ran on an empty wheel") }) {
			t.Fatal("Step on an empty wheel returned true")
		}
	}
	if !w.Now().Equal(start) || w.Len() != 0 {
		t.Fatalf("after Step on an empty wheel: Now %v (want %v), Len %d", w.Now(), start, w.Len())
	}
	// The wheel stays usable: an alarm a second later is accepted and fires.
	mustAdd(t, w, start.Add(time.Second), "later")
	l := &stepLog{w: w}
	if !w.Step(l.handle) || !slices.Equal(l.seen, []string{"later"}) {
		t.Fatalf("Step after the empty steps: fired %v", l.seen)
	}
}

// At a coarse precision Step fires one instant per call, in time order,
// each alarm with Now() equal to its own time; alarms of the same instant
// fire in the order they were added.
func TestStepOneInstantPerCall(t *testing.T) {
	start := time.Unix(0, 0)
	w, err := timingwheel.New[string](start, time.Millisecond) // 2^19 ns intervals
	ok(t, err)
	if w.AlarmPrecision() <= 300*time.Microsecond {
		t.Fatalf("precision %v: the alarms below must share one interval", w.AlarmPrecision())
	}
	t1, t2 := start.Add(100*time.Microsecond), start.Add(300*time.Microsecond)
	mustAdd(t, w, t2, "c")
	mustAdd(t, w, t1, "a")
	mustAdd(t, w, t1, "b")
	l := &stepLog{w: w}
	want := []struct {
		seen []string
		at   time.Time
	}{{[]string{"a", "b"}, t1}, {[]string{"c"}, t2}}
	for i, st := range want {
		l.reset()
		if !w.Step(l.handle) {
			t.Fatalf("step %d returned false", i)
		}
		if !slices.Equal(l.seen, st.seen) {
			t.Fatalf("step %d fired %v, want %v", i, l.seen, st.seen)
		}
		for j := range l.seen {
			if !l.at[j].Equal(st.at) || !l.now[j].Equal(st.at) {
				t.Fatalf("step %d: %s fired at %v with Now() %v, want both %v", i, l.seen[j], l.at[j], l.now[j], st.at)
			}
		}
		if !w.Now().Equal(st.at) {
			t.Fatalf("after step %d: Now %v, want %v", i, w.Now(), st.at)
		}
	}
	if w.Step(l.handle) {
		t.Fatal("Step returned true once the wheel was empty")
	}
	if !w.Now().Equal(t2) {
		t.Fatalf("the last Step moved the clock to %v, want it to stay at %v", w.Now(), t2)
	}
}

// At 1 ns precision an instant is an interval: Step fires the earliest
// interval.
func TestStepOneNanosecond(t *testing.T) {
	start := time.Unix(0, 0)
	w, err := timingwheel.New[string](start, time.Nanosecond)
	ok(t, err)
	for _, c := range []struct {
		d time.Duration
		v string
	}{{5, "x"}, {3, "y"}, {5, "z"}, {3, "w"}} {
		mustAdd(t, w, start.Add(c.d), c.v)
	}
	l := &stepLog{w: w}
	for _, want := range [][]string{{"y", "w"}, {"x", "z"}} {
		l.reset()
		w.Step(l.handle)
		if !slices.Equal(l.seen, want) {
			t.Fatalf("Step fired %v, want %v", l.seen, want)
		}
	}
}

// A late alarm (added inside the current interval before Now()) fires at the
// next Step, and the clock does not go back.
func TestStepLateAlarm(t *testing.T) {
	start := time.Unix(0, 0)
	w, err := timingwheel.New[string](start, time.Millisecond)
	ok(t, err)
	now := start.Add(400 * time.Microsecond) // inside interval 0
	ok(t, w.AdvanceClock(now, nil))
	mustAdd(t, w, start.Add(100*time.Microsecond), "late")
	mustAdd(t, w, now.Add(50*time.Microsecond), "next")
	l := &stepLog{w: w}
	if !w.Step(l.handle) || !slices.Equal(l.seen, []string{"late"}) || !w.Now().Equal(now) {
		t.Fatalf("Step fired %v with Now() %v, want [late] at %v", l.seen, w.Now(), now)
	}
	l.reset()
	if !w.Step(l.handle) || !slices.Equal(l.seen, []string{"next"}) {
		t.Fatalf("second Step fired %v, want [next]", l.seen)
	}
}

// An alarm a handler adds at Now() fires at the next Step, not in the one
// whose handler added it.
func TestStepHandlerAddsAtNow(t *testing.T) {
	start := time.Unix(0, 0)
	w, err := timingwheel.New[string](start, time.Microsecond)
	ok(t, err)
	mustAdd(t, w, start.Add(time.Millisecond), "first")
	var seen []string
	handle := func(f timingwheel.Fired[string]) {
		seen = append(seen, f.Value)
		if f.Value == "first" {
			mustAdd(t, w, w.Now(), "follow-up")
		}
	}
	w.Step(handle)
	if !slices.Equal(seen, []string{"first"}) || w.Len() != 1 {
		t.Fatalf("first Step fired %v, Len %d; want [first], 1", seen, w.Len())
	}
	w.Step(handle)
	if !slices.Equal(seen, []string{"first", "follow-up"}) || !w.Now().Equal(start.Add(time.Millisecond)) {
		t.Fatalf("second Step: fired %v, Now %v", seen, w.Now())
	}
}

// Alarms a panicking handler left overdue are the earliest: the next Step
// fires them alone, with the clock where it is, as Next says; the Step after
// it goes on to the next time. The loop of the package doc therefore stops
// at its end even after a recovered panic.
func TestStepAfterPanic(t *testing.T) {
	start := time.Unix(0, 0)
	for _, precision := range []time.Duration{time.Nanosecond, time.Millisecond} {
		w, err := timingwheel.New[string](start, precision)
		ok(t, err)
		mustAdd(t, w, start.Add(10*precision), "boom")
		mustAdd(t, w, start.Add(20*precision), "overdue")
		mustAdd(t, w, start.Add(100*precision), "later")
		func() {
			defer func() { _ = recover() }()
			_ = w.AdvanceClock(start.Add(50*precision), func(f timingwheel.Fired[string]) {
				if f.Value == "boom" {
					panic("handler failed")
				}
			})
		}()
		if next, _ := w.Next(); !next.Equal(start.Add(20 * precision)) {
			t.Fatalf("precision %v: Next after a panic %v, want the overdue alarm's time", precision, next)
		}
		l := &stepLog{w: w}
		if !w.Step(l.handle) || !slices.Equal(l.seen, []string{"overdue"}) || !w.Now().Equal(start.Add(50*precision)) {
			t.Fatalf("precision %v: Step after a panic fired %v, Now %v; want [overdue], Now unchanged", precision, l.seen, w.Now())
		}
		l.reset()
		if !w.Step(l.handle) || !slices.Equal(l.seen, []string{"later"}) || !w.Now().Equal(start.Add(100*precision)) {
			t.Fatalf("precision %v: second Step fired %v, Now %v; want [later] at its time", precision, l.seen, w.Now())
		}
		ok(t, w.Invariant())
	}
}

// The same after a Step whose handler panics: the alarms of its time it did
// not fire come next, at that time, before the later ones.
func TestStepLoopAfterPanic(t *testing.T) {
	start := time.Unix(0, 0)
	w, err := timingwheel.New[string](start, time.Nanosecond)
	ok(t, err)
	mustAdd(t, w, start.Add(10), "boom")
	mustAdd(t, w, start.Add(10), "b")
	mustAdd(t, w, start.Add(20), "c")
	var seen []string
	var at []int64
	handle := func(f timingwheel.Fired[string]) {
		if f.Value == "boom" {
			panic("handler failed")
		}
		seen = append(seen, f.Value)
		at = append(at, w.Now().UnixNano())
	}
	end := start.Add(15)
	for {
		next, more := w.Next()
		if !more || next.After(end) {
			break
		}
		func() {
			defer func() { _ = recover() }()
			w.Step(handle)
		}()
	}
	if !slices.Equal(seen, []string{"b"}) || !slices.Equal(at, []int64{10}) || w.Len() != 1 {
		t.Fatalf("the loop to 15ns fired %v at %v, Len %d; want [b] at [10], Len 1", seen, at, w.Len())
	}
}

// Step reports what it fired even with a nil handler.
func TestStepNilHandler(t *testing.T) {
	start := time.Unix(0, 0)
	w, err := timingwheel.New[int](start, time.Nanosecond)
	ok(t, err)
	mustAdd(t, w, start.Add(7), 1)
	if !w.Step(nil) || w.Len() != 0 || !w.Now().Equal(start.Add(7)) {
		t.Fatalf("Step(nil): Len %d, Now %v", w.Len(), w.Now())
	}
	if w.Step(nil) {
		t.Fatal("Step(nil) on an empty wheel returned true")
	}
}

// The documented loop stops at end: the events after it stay in the wheel,
// the clock stands at the last event fired, and AdvanceClock(end) then moves
// it to end without firing them.
func TestStepLoopWithEnd(t *testing.T) {
	start := time.Unix(0, 0)
	w, err := timingwheel.New[int](start, time.Millisecond)
	ok(t, err)
	for _, ms := range []int{30, 10, 20, 40, 50} {
		mustAdd(t, w, start.Add(time.Duration(ms)*time.Millisecond+time.Duration(ms)), ms)
	}
	end := start.Add(35 * time.Millisecond)
	var seen []int
	handle := func(f timingwheel.Fired[int]) {
		if !w.Now().Equal(f.At) {
			t.Fatalf("%d fired at %v with Now() %v", f.Value, f.At, w.Now())
		}
		seen = append(seen, f.Value)
	}
	for {
		next, ok := w.MinAlarmTimeInMinInterval()
		if !ok || next.After(end) {
			break
		}
		w.Step(handle)
	}
	if !slices.Equal(seen, []int{10, 20, 30}) || w.Len() != 2 {
		t.Fatalf("fired %v, %d left; want [10 20 30], 2 left", seen, w.Len())
	}
	if want := start.Add(30*time.Millisecond + 30); !w.Now().Equal(want) {
		t.Fatalf("Now %v, want the last event's time %v", w.Now(), want)
	}
	ok(t, w.AdvanceClock(end, handle))
	if !w.Now().Equal(end) || w.Len() != 2 {
		t.Fatalf("AdvanceClock(end): Now %v, Len %d", w.Now(), w.Len())
	}
	for w.Step(handle) {
	}
	if !slices.Equal(seen, []int{10, 20, 30, 40, 50}) {
		t.Fatalf("fired %v", seen)
	}
}

// AdvanceClockStopAtNextAlarm's warning: on an empty wheel, to = MaxTime
// moves the clock to MaxTime, and every later Add fails.
func TestStopAtNextAlarmMaxTimeOnEmptyWheel(t *testing.T) {
	start := time.Unix(0, 0)
	w, err := timingwheel.New[int](start, time.Millisecond)
	ok(t, err)
	ok(t, w.AdvanceClockStopAtNextAlarm(timingwheel.MaxTime, nil))
	if !w.Now().Equal(timingwheel.MaxTime) {
		t.Fatalf("Now %v, want MaxTime", w.Now())
	}
	if _, err := w.Add(time.Now(), 1); !errors.Is(err, timingwheel.ErrBeforeCurrentInterval) {
		t.Fatalf("Add after the clock reached MaxTime: %v, want ErrBeforeCurrentInterval", err)
	}
}

// A Step made inside a handler fires the due alarms the enclosing call has
// not fired yet (see Handlers in the package doc): they are the earliest, so
// it fires them alone and the clock stays; the enclosing call then has
// nothing left.
func TestStepNested(t *testing.T) {
	start := time.Unix(0, 0)
	w, err := timingwheel.New[string](start, time.Nanosecond)
	ok(t, err)
	mustAdd(t, w, start.Add(10), "a")
	mustAdd(t, w, start.Add(20), "b")
	mustAdd(t, w, start.Add(100), "c")
	var outer, inner []string
	var innerNow []time.Time
	ok(t, w.AdvanceClock(start.Add(50), func(f timingwheel.Fired[string]) {
		outer = append(outer, f.Value)
		if f.Value == "a" {
			if !w.Step(func(g timingwheel.Fired[string]) {
				inner = append(inner, g.Value)
				innerNow = append(innerNow, w.Now())
			}) {
				t.Error("nested Step returned false")
			}
		}
	}))
	if !slices.Equal(outer, []string{"a"}) || !slices.Equal(inner, []string{"b"}) {
		t.Fatalf("outer handler saw %v, nested Step's %v; want [a] and [b]", outer, inner)
	}
	if !innerNow[0].Equal(start.Add(50)) || !w.Now().Equal(start.Add(50)) || w.Len() != 1 {
		t.Fatalf("Now() in b's handler %v, after %v, Len %d; want 50ns, 50ns, 1", innerNow[0], w.Now(), w.Len())
	}
	ok(t, w.Invariant())
}

// Next is the exact time of the next event: empty, then the earliest of
// several alarms at a coarse precision, then a late alarm (added before
// Now() in the current interval), which the next Step fires at Now().
func TestNext(t *testing.T) {
	start := time.Unix(0, 0)
	w, err := timingwheel.New[string](start, time.Millisecond) // 2^19 ns
	if err != nil {
		t.Fatal(err)
	}
	if next, ok := w.Next(); ok {
		t.Fatalf("Next on an empty wheel = %v, true", next)
	}
	t1, t2 := start.Add(1000), start.Add(3000) // one interval
	mustAdd(t, w, t2, "b")
	mustAdd(t, w, t1, "a")
	mustAdd(t, w, start.Add(time.Second), "c")
	if next, ok := w.Next(); !ok || !next.Equal(t1) {
		t.Fatalf("Next = %v, %v; want %v (the earliest time, not its interval's)", next, ok, t1)
	}
	l := &stepLog{w: w}
	w.Step(l.handle)
	if next, ok := w.Next(); !ok || !next.Equal(t2) {
		t.Fatalf("after a Step, Next = %v, %v; want %v", next, ok, t2)
	}
	w.Step(l.handle) // now t2
	late := start.Add(2000)
	mustAdd(t, w, late, "late")
	if next, ok := w.Next(); !ok || !next.Equal(late) {
		t.Fatalf("with a late alarm, Next = %v, %v; want its time %v", next, ok, late)
	}
	l.reset()
	w.Step(l.handle)
	if !slices.Equal(l.seen, []string{"late"}) || !l.now[0].Equal(t2) {
		t.Fatalf("the Step after Next fired %v at %v, want [late] at %v", l.seen, l.now, t2)
	}
}

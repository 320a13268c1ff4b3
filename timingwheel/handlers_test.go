package timingwheel_test

// Handlers (issue 3, "Handlers"): what a handler sees, what it may do, and
// what happens when it panics.

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// ledger tracks the fate of every alarm a test adds, by value: exactly one
// of fired, removed or cleared, never twice.
type ledger struct {
	t      *testing.T
	w      *timingwheel.Wheel[int]
	h      map[int]alarm.Alarm
	fate   map[int]string
	fired  []int
	nextID int
}

func newLedger(t *testing.T, w *timingwheel.Wheel[int]) *ledger {
	return &ledger{t: t, w: w, h: map[int]alarm.Alarm{}, fate: map[int]string{}}
}

func (l *ledger) add(at time.Time) int {
	l.t.Helper()
	id := l.nextID
	l.nextID++
	a, err := l.w.Add(at, id)
	if err != nil {
		l.t.Fatalf("Add(%v): %v", at.UnixNano(), err)
	}
	l.h[id] = a
	return id
}

func (l *ledger) settle(id int, how string) {
	l.t.Helper()
	if old, done := l.fate[id]; done {
		l.t.Fatalf("alarm %d %s after it was already %s", id, how, old)
	}
	l.fate[id] = how
}

func (l *ledger) remove(id int) {
	l.t.Helper()
	if err := l.w.Remove(l.h[id]); err != nil {
		l.t.Fatalf("Remove(%d): %v", id, err)
	}
	l.settle(id, "removed")
}

// fire is the basic handler: record the alarm, checking that it is not early
// and that what the handler receives agrees with what the wheel answers.
func (l *ledger) fire(ev timingwheel.Fired[int]) {
	l.t.Helper()
	id := valueOf(l.t, l.w, ev.Alarm)
	at, err := l.w.AlarmAt(ev.Alarm)
	if err != nil {
		l.t.Fatalf("AlarmAt of the firing alarm %d: %v", id, err)
	}
	if id != ev.Value || !at.Equal(ev.At) {
		l.t.Fatalf("handler got (%v, %d), the wheel says (%v, %d)", ev.At.UnixNano(), ev.Value, at.UnixNano(), id)
	}
	if !at.Before(l.w.Now()) && !at.Equal(l.w.Now()) {
		l.t.Fatalf("alarm %d at %d fired early, now %d", id, at.UnixNano(), l.w.Now().UnixNano())
	}
	l.fired = append(l.fired, id)
	l.settle(id, "fired")
}

// done checks that every alarm has a fate, or is still in the wheel.
func (l *ledger) done() {
	l.t.Helper()
	inv(l.t, l.w)
	consistent(l.t, l.w)
	live := 0
	for id, a := range l.h {
		_, settled := l.fate[id]
		if l.w.Mem(a) == settled {
			l.t.Fatalf("alarm %d: Mem %v, fate %q", id, l.w.Mem(a), l.fate[id])
		}
		if !settled {
			live++
		}
	}
	if live != l.w.Len() {
		t := l.t
		t.Fatalf("Len %d, %d alarms unsettled", l.w.Len(), live)
	}
}

func microWheel(t *testing.T) *timingwheel.Wheel[int] {
	return mkWheel[int](t, wheelCfg{p: config.AboutOneMicrosecond}, atNs(0))
}

// During AdvanceClock, Now() is already the target, and the firing alarm can
// be read although it is no longer a member.
func TestHandlerSeesTargetAndFiringAlarm(t *testing.T) {
	w := microWheel(t)
	a, err := w.Add(atNs(5000), 42) // interval 4
	ok(t, err)
	to := atNs(1_000_000)
	calls := 0
	ok(t, w.AdvanceClock(to, func(ev timingwheel.Fired[int]) {
		b := ev.Alarm

		calls++
		if b != a {
			t.Fatalf("handler got %v, want %v", b, a)
		}
		if !w.Now().Equal(to) || w.NowIntervalNum() != 1_000_000>>10 || w.MinAllowedAlarmIntervalNum() != 1_000_000>>10 {
			t.Fatalf("inside the handler Now %v", w.Now().UnixNano())
		}
		if at, err := w.AlarmAt(b); err != nil || !at.Equal(atNs(5000)) {
			t.Fatalf("AlarmAt %v %v", at, err)
		}
		if n, err := w.AlarmIntervalNum(b); err != nil || n != 4 {
			t.Fatalf("AlarmIntervalNum %d %v", n, err)
		}
		if v, err := w.AlarmValue(b); err != nil || v != 42 {
			t.Fatalf("AlarmValue %d %v", v, err)
		}
		if w.Mem(b) || w.Len() != 0 || !w.IsEmpty() {
			t.Fatalf("the firing alarm is still counted: Mem %v Len %d", w.Mem(b), w.Len())
		}
		// It cannot be removed or rescheduled: it is no longer in the wheel.
		isErr(t, w.Remove(b), timingwheel.ErrInvalidAlarm, "Remove(firing alarm)")
		isErr(t, w.Reschedule(b, to.Add(time.Hour)), timingwheel.ErrInvalidAlarm, "Reschedule(firing alarm)")
	}))
	if calls != 1 {
		t.Fatalf("%d calls", calls)
	}
	// After its handler, nothing answers for it.
	if _, err := w.AlarmValue(a); !errors.Is(err, timingwheel.ErrInvalidAlarm) {
		t.Fatalf("AlarmValue after firing: %v", err)
	}
	inv(t, w)
}

// A handler removes or reschedules alarms that are due in the same call but
// have not fired yet: they do not fire in this call.
func TestHandlerRemovesAndReschedulesDueAlarms(t *testing.T) {
	w := microWheel(t)
	l := newLedger(t, w)
	for i := int64(0); i < 8; i++ {
		l.add(atNs(1000 + i*2000)) // intervals 0, 2, 4, ...
	}
	future := l.add(atNs(1 << 30))
	to := atNs(100_000)
	var reschedErr error
	ok(t, w.AdvanceClock(to, func(ev timingwheel.Fired[int]) {
		a := ev.Alarm

		l.fire(ev)
		switch valueOf(t, w, a) {
		case 1:
			l.remove(3)      // due, later in this call
			l.remove(future) // not due
		case 2:
			// 5 moves to this interval's start (IntervalStart(to)): not due
			// now; 6 moves later still.
			start, _ := w.IntervalStart(to)
			ok(t, w.Reschedule(l.h[5], start))
			ok(t, w.Reschedule(l.h[6], to.Add(time.Millisecond)))
			// Before IntervalStart(to): refused, and 7 stays due.
			reschedErr = w.Reschedule(l.h[7], start.Add(-1))
		}
	}))
	isErr(t, reschedErr, timingwheel.ErrBeforeCurrentInterval, "Reschedule before IntervalStart(to) in a handler")
	if want := []int{0, 1, 2, 4, 7}; !slices.Equal(l.fired, want) {
		t.Fatalf("fired %v, want %v", l.fired, want)
	}
	l.done()
	ok(t, w.AdvanceClock(to.Add(time.Second), l.fire))
	if want := []int{0, 1, 2, 4, 7, 5, 6}; !slices.Equal(l.fired, want) {
		t.Fatalf("fired %v, want %v", l.fired, want)
	}
	l.done()
}

// An alarm a handler adds must be at or after IntervalStart(to) and fires in
// a later call, never in this one.
func TestHandlerAdds(t *testing.T) {
	w := microWheel(t)
	l := newLedger(t, w)
	l.add(atNs(10))
	to := atNs(5000 + 3) // interval 4, starting at 4096
	var errEarly error
	var added []int
	ok(t, w.AdvanceClock(to, func(ev timingwheel.Fired[int]) {
		l.fire(ev)
		if len(added) > 0 {
			return
		}
		_, errEarly = w.Add(atNs(4095), -1)
		added = append(added, l.add(atNs(4096)), l.add(to), l.add(atNs(5000)), l.add(atNs(9000)))
	}))
	isErr(t, errEarly, timingwheel.ErrBeforeCurrentInterval, "Add before IntervalStart(to) in a handler")
	if !slices.Equal(l.fired, []int{0}) {
		t.Fatalf("fired %v: an alarm added by a handler fired in the same call", l.fired)
	}
	// FirePastAlarms fires those at or before now (at == now included) in
	// the current interval, in the order they were added.
	w.FirePastAlarms(l.fire)
	if want := []int{0, added[0], added[1], added[2]}; !slices.Equal(l.fired, want) {
		t.Fatalf("fired %v, want %v", l.fired, want)
	}
	ok(t, w.AdvanceClock(atNs(10_000), l.fire))
	if want := []int{0, added[0], added[1], added[2], added[3]}; !slices.Equal(l.fired, want) {
		t.Fatalf("fired %v, want %v", l.fired, want)
	}
	l.done()
}

// Handlers may advance the clock themselves. Every alarm still fires once,
// in time order, and never early.
func TestHandlerAdvancesClock(t *testing.T) {
	for _, nested := range []string{"AdvanceClock", "FirePastAlarms", "AdvanceClockStopAtNextAlarm", "AdvanceClockLimit"} {
		t.Run(nested, func(t *testing.T) {
			w := microWheel(t)
			l := newLedger(t, w)
			for i := int64(0); i < 20; i++ {
				l.add(atNs(1000 * i))
			}
			depth := 0
			var h func(timingwheel.Fired[int])
			h = func(ev timingwheel.Fired[int]) {
				a := ev.Alarm

				l.fire(ev)
				if depth > 0 || valueOf(t, w, a) != 3 {
					return
				}
				depth++
				defer func() { depth-- }()
				switch nested {
				case "AdvanceClock":
					ok(t, w.AdvanceClock(atNs(15_000), h))
				case "FirePastAlarms":
					w.FirePastAlarms(h)
				case "AdvanceClockStopAtNextAlarm":
					ok(t, w.AdvanceClockStopAtNextAlarm(atNs(15_000), h))
				case "AdvanceClockLimit":
					_, _, err := w.AdvanceClockLimit(atNs(15_000), 2, h)
					ok(t, err)
				}
				inv(t, w)
			}
			ok(t, w.AdvanceClock(atNs(8000), h))
			ok(t, w.AdvanceClock(atNs(30_000), h))
			if len(l.fired) != 20 || !slices.IsSorted(l.fired) {
				t.Fatalf("fired %v, want 0..19 in order", l.fired)
			}
			l.done()
		})
	}
}

// A firing call made from a handler fires, with its own handler, the
// alarms the enclosing call has not fired yet (the documented sharing of the
// due alarms): the outer handler sees only what fired before the nested
// call, and a nested AdvanceClockLimit counts those alarms without being
// held back by its limit.
func TestNestedCallFiresEnclosingDue(t *testing.T) {
	for _, nested := range []string{"FirePastAlarms", "AdvanceClock", "AdvanceClockLimit"} {
		t.Run(nested, func(t *testing.T) {
			w := microWheel(t)
			for i := int64(1); i <= 3; i++ {
				if _, err := w.Add(atNs(1000*i), int(i)); err != nil {
					t.Fatal(err)
				}
			}
			var outer, inner []int
			n, done := -1, false
			innerH := func(ev timingwheel.Fired[int]) {
				a := ev.Alarm
				inner = append(inner, valueOf(t, w, a))
			}
			ok(t, w.AdvanceClock(atNs(10_000), func(ev timingwheel.Fired[int]) {
				a := ev.Alarm

				outer = append(outer, valueOf(t, w, a))
				if len(outer) > 1 {
					return
				}
				switch nested {
				case "FirePastAlarms":
					w.FirePastAlarms(innerH)
				case "AdvanceClock":
					ok(t, w.AdvanceClock(w.Now(), innerH))
				case "AdvanceClockLimit":
					var err error
					n, done, err = w.AdvanceClockLimit(w.Now(), 1, innerH)
					ok(t, err)
				}
			}))
			if !slices.Equal(outer, []int{1}) || !slices.Equal(inner, []int{2, 3}) || !w.IsEmpty() {
				t.Fatalf("outer handler saw %v, nested %v, Len %d; want [1], [2 3], 0", outer, inner, w.Len())
			}
			if nested == "AdvanceClockLimit" && (n != 2 || !done) {
				t.Fatalf("nested AdvanceClockLimit(now, 1) = %d, %v; want 2, true", n, done)
			}
			inv(t, w)
		})
	}
}

// Clear inside a handler: the due alarms not yet fired are cleared, not
// fired, and the wheel is valid.
func TestHandlerClears(t *testing.T) {
	w := microWheel(t)
	l := newLedger(t, w)
	for i := int64(0); i < 6; i++ {
		l.add(atNs(1000 * i))
	}
	l.add(atNs(1 << 30))
	ok(t, w.AdvanceClock(atNs(10_000), func(ev timingwheel.Fired[int]) {
		a := ev.Alarm

		l.fire(ev)
		if valueOf(t, w, a) == 2 {
			w.Clear()
			for id := range l.h {
				if _, done := l.fate[id]; !done {
					l.settle(id, "cleared")
				}
			}
		}
	}))
	if !slices.Equal(l.fired, []int{0, 1, 2}) || !w.IsEmpty() {
		t.Fatalf("fired %v, Len %d", l.fired, w.Len())
	}
	l.done()
	after := l.add(atNs(20_000))
	ok(t, w.AdvanceClock(atNs(30_000), l.fire))
	if !slices.Equal(l.fired, []int{0, 1, 2, after}) {
		t.Fatalf("fired %v", l.fired)
	}
	l.done()
}

// errBoom is what the panicking handlers throw.
var errBoom = errors.New("boom")

// panicsWith runs f and returns what it panicked with.
func panicsWith(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

// A handler that panics: the panic reaches the caller, the wheel stays
// valid, and the due alarms that did not fire fire first on the next call,
// whichever call that is. Nothing is lost, nothing fires twice.
func TestHandlerPanics(t *testing.T) {
	type next struct {
		name string
		call func(w *timingwheel.Wheel[int], h func(timingwheel.Fired[int]))
	}
	nexts := []next{
		{"AdvanceClock to the same time", func(w *timingwheel.Wheel[int], h func(timingwheel.Fired[int])) { ok(t, w.AdvanceClock(w.Now(), h)) }},
		{"AdvanceClock to an earlier time", func(w *timingwheel.Wheel[int], h func(timingwheel.Fired[int])) { ok(t, w.AdvanceClock(atNs(0), h)) }},
		{"AdvanceClock later", func(w *timingwheel.Wheel[int], h func(timingwheel.Fired[int])) {
			ok(t, w.AdvanceClock(atNs(50_000), h))
		}},
		{"FirePastAlarms", func(w *timingwheel.Wheel[int], h func(timingwheel.Fired[int])) { w.FirePastAlarms(h) }},
		{"AdvanceClockStopAtNextAlarm", func(w *timingwheel.Wheel[int], h func(timingwheel.Fired[int])) {
			ok(t, w.AdvanceClockStopAtNextAlarm(timingwheel.MaxTime, h))
		}},
		{"AdvanceClockLimit", func(w *timingwheel.Wheel[int], h func(timingwheel.Fired[int])) {
			_, _, err := w.AdvanceClockLimit(w.Now(), 1, h)
			ok(t, err)
		}},
	}
	type first struct {
		name string
		call func(w *timingwheel.Wheel[int], h func(timingwheel.Fired[int]))
	}
	firsts := []first{
		{"AdvanceClock", func(w *timingwheel.Wheel[int], h func(timingwheel.Fired[int])) { _ = w.AdvanceClock(atNs(20_000), h) }},
		{"AdvanceClockLimit", func(w *timingwheel.Wheel[int], h func(timingwheel.Fired[int])) {
			_, _, _ = w.AdvanceClockLimit(atNs(20_000), 100, h)
		}},
	}
	for _, f := range firsts {
		for _, n := range nexts {
			t.Run(f.name+" then "+n.name, func(t *testing.T) {
				w := microWheel(t)
				l := newLedger(t, w)
				for i := int64(0); i < 10; i++ {
					l.add(atNs(1000 + 1500*i)) // all due before 20_000
				}
				l.add(atNs(1000)) // 10: same interval as 0
				later := l.add(atNs(40_000))
				var addedInHandler int
				p := panicsWith(func() {
					f.call(w, func(ev timingwheel.Fired[int]) {
						a := ev.Alarm

						l.fire(ev)
						if valueOf(t, w, a) == 3 {
							addedInHandler = l.add(atNs(30_000))
							panic(errBoom)
						}
					})
				})
				if p != errBoom {
					t.Fatalf("panic %v did not reach the caller", p)
				}
				if want := []int{0, 10, 1, 2, 3}; !slices.Equal(l.fired, want) {
					t.Fatalf("before the panic fired %v, want %v", l.fired, want)
				}
				l.done() // Invariant nil, every unfired alarm still a member
				if st := w.Stats(); st.Due != 6 {
					t.Fatalf("Stats.Due = %d after the panic, want 6 overdue", st.Due)
				}
				// The clock is where the call put it.
				if !w.Now().Equal(atNs(20_000)) {
					t.Fatalf("Now %v", w.Now().UnixNano())
				}
				// An overdue alarm can still be removed; it then never fires.
				l.remove(5)
				n.call(w, l.fire)
				if want := []int{0, 10, 1, 2, 3, 4, 6, 7, 8, 9}; !slices.Equal(l.fired[:min(len(l.fired), len(want))], want) {
					t.Fatalf("after the panic %s fired %v, want %v first", n.name, l.fired, want)
				}
				l.done()
				ok(t, w.AdvanceClock(atNs(50_000), l.fire))
				if want := []int{0, 10, 1, 2, 3, 4, 6, 7, 8, 9, addedInHandler, later}; !slices.Equal(l.fired, want) {
					t.Fatalf("in all fired %v, want %v", l.fired, want)
				}
				l.done()
			})
		}
	}
}

// A panic in FirePastAlarms and in AdvanceClockStopAtNextAlarm behaves the
// same: the rest fire first next time.
func TestHandlerPanicsInFirePastAndStopAtNext(t *testing.T) {
	for _, name := range []string{"FirePastAlarms", "AdvanceClockStopAtNextAlarm"} {
		t.Run(name, func(t *testing.T) {
			w := microWheel(t)
			l := newLedger(t, w)
			ok(t, w.AdvanceClock(atNs(1500), nil))
			for i := 0; i < 5; i++ {
				l.add(atNs(1100)) // interval 1, before now
			}
			l.add(atNs(1600)) // 5: interval 1, after now
			p := panicsWith(func() {
				h := func(ev timingwheel.Fired[int]) {
					a := ev.Alarm

					l.fire(ev)
					if valueOf(t, w, a) == 1 {
						panic(fmt.Sprint("boom"))
					}
				}
				if name == "FirePastAlarms" {
					w.FirePastAlarms(h)
				} else {
					_ = w.AdvanceClockStopAtNextAlarm(timingwheel.MaxTime, h)
				}
			})
			if p != "boom" {
				t.Fatalf("panic %v", p)
			}
			l.done()
			w.FirePastAlarms(l.fire)
			if want := []int{0, 1, 2, 3, 4}; !slices.Equal(l.fired, want) {
				t.Fatalf("fired %v, want %v", l.fired, want)
			}
			ok(t, w.AdvanceClockStopAtNextAlarm(timingwheel.MaxTime, l.fire))
			if want := []int{0, 1, 2, 3, 4, 5}; !slices.Equal(l.fired, want) || !w.Now().Equal(atNs(1600)) {
				t.Fatalf("fired %v, now %v", l.fired, w.Now().UnixNano())
			}
			l.done()
		})
	}
}

// Two panics in a row, the second while firing the leftovers of the first.
func TestHandlerPanicsTwice(t *testing.T) {
	w := microWheel(t)
	l := newLedger(t, w)
	for i := int64(0); i < 10; i++ {
		l.add(atNs(1000 * i))
	}
	h := func(ev timingwheel.Fired[int]) {
		a := ev.Alarm

		l.fire(ev)
		if v := valueOf(t, w, a); v == 2 || v == 5 {
			panic(v)
		}
	}
	if p := panicsWith(func() { _ = w.AdvanceClock(atNs(20_000), h) }); p != 2 {
		t.Fatalf("panic %v", p)
	}
	l.done()
	if p := panicsWith(func() { _ = w.AdvanceClock(atNs(20_000), h) }); p != 5 {
		t.Fatalf("panic %v", p)
	}
	l.done()
	ok(t, w.AdvanceClock(atNs(20_000), h))
	if want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}; !slices.Equal(l.fired, want) {
		t.Fatalf("fired %v", l.fired)
	}
	l.done()
	if st := w.Stats(); st.Due != 0 || st.Fired != 10 || st.Added != 10 {
		t.Fatalf("Stats %+v", st)
	}
}

// Shrink from inside a handler, while other alarms are due, and after a
// panic left alarms overdue: the rest still fire once each, in order.
func TestShrinkWhileFiring(t *testing.T) {
	for _, mode := range []string{"in handler", "after panic"} {
		w := microWheel(t)
		l := newLedger(t, w)
		var victims []int
		for i := int64(0); i < 300; i++ {
			id := l.add(atNs(100 * i))
			if i%3 != 0 {
				victims = append(victims, id)
			}
		}
		for _, id := range victims[:150] {
			l.remove(id) // holes for Shrink to close
		}
		h := func(ev timingwheel.Fired[int]) {
			a := ev.Alarm

			l.fire(ev)
			if valueOf(t, w, a) == 3 {
				if mode == "in handler" {
					w.Shrink()
					inv(t, w)
				} else {
					panic("boom")
				}
			}
		}
		_ = panicsWith(func() { _ = w.AdvanceClock(atNs(100_000), h) })
		if mode == "after panic" {
			l.done()
			w.Shrink()
			l.done()
			ok(t, w.AdvanceClock(atNs(100_000), l.fire))
		}
		l.done()
		if !w.IsEmpty() || !slices.IsSorted(l.fired) || len(l.fired) != 150 {
			t.Fatalf("%s: fired %d, sorted %v, Len %d", mode, len(l.fired), slices.IsSorted(l.fired), w.Len())
		}
	}
}

// Inside a handler the queries still agree with All(): the due alarms not
// yet fired are members (and may sit in an interval before now's), the
// firing one is not.
func TestQueriesInsideHandlers(t *testing.T) {
	w := microWheel(t)
	l := newLedger(t, w)
	for i := int64(0); i < 50; i++ {
		l.add(atNs(700 * i))
	}
	check := func(ev timingwheel.Fired[int]) {
		a := ev.Alarm

		if w.Mem(a) {
			t.Fatal("the firing alarm is a member")
		}
		consistent(t, w)
		inv(t, w)
	}
	calls := 0
	ok(t, w.AdvanceClock(atNs(20_000), func(ev timingwheel.Fired[int]) {
		calls++
		l.fire(ev)
		if k, _ := w.MinAlarmIntervalNum(); w.Len() > 0 && calls == 1 && k >= w.NowIntervalNum() {
			t.Fatalf("inside the first handler the minimum interval %d is not a due one", k)
		}
		check(ev)
	}))
	ok(t, w.AdvanceClockStopAtNextAlarm(atNs(30_000), func(ev timingwheel.Fired[int]) {
		l.fire(ev)
		check(ev)
	}))
	w.FirePastAlarms(func(ev timingwheel.Fired[int]) {
		l.fire(ev)
		check(ev)
	})
	_, _, err := w.AdvanceClockLimit(atNs(40_000), 2, func(ev timingwheel.Fired[int]) {
		l.fire(ev)
		check(ev)
	})
	ok(t, err)
	l.done()
}

// A nil handler removes the due alarms without calling anything: their
// handles go stale and they count as fired.
func TestNilHandler(t *testing.T) {
	w := microWheel(t)
	l := newLedger(t, w)
	for i := int64(0); i < 10; i++ {
		l.add(atNs(1000 * i))
	}
	ok(t, w.AdvanceClock(atNs(5000), nil)) // intervals 0..3: ids 0..4 (4096 > 4000)
	if w.Len() != 5 || w.Stats().Fired != 5 {
		t.Fatalf("Len %d, fired %d", w.Len(), w.Stats().Fired)
	}
	for id := 0; id < 5; id++ {
		if w.Mem(l.h[id]) {
			t.Fatalf("alarm %d still a member", id)
		}
	}
	ok(t, w.AdvanceClockStopAtNextAlarm(timingwheel.MaxTime, nil)) // id 5, at 5000 = now
	if w.Len() != 4 || w.Mem(l.h[5]) || !w.Now().Equal(atNs(5000)) {
		t.Fatalf("after StopAtNextAlarm: Len %d, now %v", w.Len(), w.Now().UnixNano())
	}
	// Target interval 8; due: 6000, 7000, 8000 (intervals 5, 6, 7). Limit 1
	// fires interval 5 and stops at the start of interval 6.
	n, done, err := w.AdvanceClockLimit(atNs(9000), 1, nil)
	ok(t, err)
	if n != 1 || done || w.Mem(l.h[6]) || !w.Now().Equal(atNs(6<<10)) {
		t.Fatalf("AdvanceClockLimit: n %d, done %v, now %v", n, done, w.Now().UnixNano())
	}
	w.FirePastAlarms(nil) // nothing at or before 6144 in interval 6
	if w.Len() != 3 || w.Stats().Fired != 7 {
		t.Fatalf("Len %d, fired %d", w.Len(), w.Stats().Fired)
	}
	inv(t, w)
}

// The overdue alarms a panic leaves are ordinary members: they can be
// rescheduled (not into the past) and then fire at their new times.
func TestRescheduleOverdueAfterPanic(t *testing.T) {
	w := microWheel(t)
	l := newLedger(t, w)
	for i := int64(0); i < 8; i++ {
		l.add(atNs(1000 * i))
	}
	_ = panicsWith(func() {
		_ = w.AdvanceClock(atNs(20_000), func(ev timingwheel.Fired[int]) {
			a := ev.Alarm

			l.fire(ev)
			if valueOf(t, w, a) == 1 {
				panic("boom")
			}
		})
	})
	l.done() // 2..7 overdue
	ok(t, w.Reschedule(l.h[3], atNs(50_000)))
	ok(t, w.Reschedule(l.h[5], w.Now()))                           // now's interval, at now
	ok(t, w.RescheduleAtIntervalNum(l.h[6], w.NowIntervalNum()+1)) // the next interval
	isErr(t, w.Reschedule(l.h[4], atNs(100)), timingwheel.ErrBeforeCurrentInterval, "Reschedule an overdue alarm into the past")
	l.done()
	ok(t, w.AdvanceClock(w.Now(), l.fire)) // the rest of the overdue
	if want := []int{0, 1, 2, 4, 7}; !slices.Equal(l.fired, want) {
		t.Fatalf("fired %v, want %v", l.fired, want)
	}
	w.FirePastAlarms(l.fire)
	ok(t, w.AdvanceClock(atNs(60_000), l.fire))
	if want := []int{0, 1, 2, 4, 7, 5, 6, 3}; !slices.Equal(l.fired, want) {
		t.Fatalf("fired %v, want %v", l.fired, want)
	}
	l.done()
}

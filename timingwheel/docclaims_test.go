package timingwheel_test

// Claims of the package doc and of Add's doc that no other test states
// alone: what fires a late alarm, the order within an interval, the times
// Step fires at whatever the precision, and the text of the errors.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// lateWheel returns a wheel of precision 2^19 ns whose clock is 400µs into
// interval 0, holding one late alarm at 100µs, and the start of interval 1.
func lateWheel(t *testing.T) (*timingwheel.Wheel[string], time.Time) {
	t.Helper()
	start := time.Unix(0, 0)
	w, err := timingwheel.New[string](start, time.Millisecond)
	ok(t, err)
	ok(t, w.AdvanceClock(start.Add(400*time.Microsecond), nil))
	mustAdd(t, w, start.Add(100*time.Microsecond), "late")
	next, err := w.IntervalNumStart(1)
	ok(t, err)
	return w, next
}

// Add's doc: a late alarm fires at the next Step, FirePastAlarms or
// AdvanceClockStopAtNextAlarm, or at an AdvanceClock or AdvanceClockLimit to
// a later interval; an advance that stays inside the current interval does
// not fire it.
func TestLateAlarmFiresAt(t *testing.T) {
	inside := func(w *timingwheel.Wheel[string]) time.Time { return w.Now().Add(100 * time.Microsecond) }
	calls := []struct {
		name  string
		fires bool
		call  func(w *timingwheel.Wheel[string], next time.Time, h func(timingwheel.Fired[string]))
	}{
		{"AdvanceClock inside the interval", false, func(w *timingwheel.Wheel[string], _ time.Time, h func(timingwheel.Fired[string])) {
			ok(t, w.AdvanceClock(inside(w), h))
		}},
		{"AdvanceClockLimit inside the interval", false, func(w *timingwheel.Wheel[string], _ time.Time, h func(timingwheel.Fired[string])) {
			_, _, err := w.AdvanceClockLimit(inside(w), 1, h)
			ok(t, err)
		}},
		{"AdvanceClock to the next interval", true, func(w *timingwheel.Wheel[string], next time.Time, h func(timingwheel.Fired[string])) {
			ok(t, w.AdvanceClock(next, h))
		}},
		{"AdvanceClockLimit to the next interval", true, func(w *timingwheel.Wheel[string], next time.Time, h func(timingwheel.Fired[string])) {
			_, _, err := w.AdvanceClockLimit(next, 1, h)
			ok(t, err)
		}},
		{"Step", true, func(w *timingwheel.Wheel[string], _ time.Time, h func(timingwheel.Fired[string])) { w.Step(h) }},
		{"FirePastAlarms", true, func(w *timingwheel.Wheel[string], _ time.Time, h func(timingwheel.Fired[string])) {
			w.FirePastAlarms(h)
		}},
		{"AdvanceClockStopAtNextAlarm", true, func(w *timingwheel.Wheel[string], _ time.Time, h func(timingwheel.Fired[string])) {
			ok(t, w.AdvanceClockStopAtNextAlarm(timingwheel.MaxTime, h))
		}},
	}
	for _, c := range calls {
		w, next := lateWheel(t)
		if !inside(w).Before(next) {
			t.Fatalf("%v is not inside the current interval (next starts %v)", inside(w), next)
		}
		var seen []string
		c.call(w, next, func(f timingwheel.Fired[string]) { seen = append(seen, f.Value) })
		if fired := slices.Equal(seen, []string{"late"}); fired != c.fires || !fired && len(seen) > 0 {
			t.Errorf("%s fired %v, want the late alarm fired: %v", c.name, seen, c.fires)
		}
	}
}

// The package doc's Order: within an interval AdvanceClock fires in the
// order of adding; Step one time per call, in time order, and the late
// alarms it finds together, in the order of adding.
func TestOrderWithinInterval(t *testing.T) {
	start := time.Unix(0, 0)
	build := func() *timingwheel.Wheel[string] {
		w, err := timingwheel.New[string](start, time.Millisecond)
		ok(t, err)
		for _, c := range []struct {
			us int
			v  string
		}{{300, "c300"}, {100, "a100"}, {200, "b200"}, {100, "d100"}} {
			mustAdd(t, w, start.Add(time.Duration(c.us)*time.Microsecond), c.v)
		}
		return w
	}
	collect := func(run func(w *timingwheel.Wheel[string], h func(timingwheel.Fired[string]))) []string {
		w := build()
		var seen []string
		run(w, func(f timingwheel.Fired[string]) { seen = append(seen, f.Value) })
		return seen
	}
	byAdvance := collect(func(w *timingwheel.Wheel[string], h func(timingwheel.Fired[string])) {
		ok(t, w.AdvanceClock(start.Add(time.Second), h))
	})
	if want := []string{"c300", "a100", "b200", "d100"}; !slices.Equal(byAdvance, want) {
		t.Errorf("AdvanceClock fired %v, want the order of adding %v", byAdvance, want)
	}
	bySteps := collect(func(w *timingwheel.Wheel[string], h func(timingwheel.Fired[string])) {
		for w.Step(h) {
		}
	})
	if want := []string{"a100", "d100", "b200", "c300"}; !slices.Equal(bySteps, want) {
		t.Errorf("Step fired %v, want time order %v", bySteps, want)
	}

	// Late alarms: the clock at 400µs, x at 100µs added before y at 50µs.
	w, err := timingwheel.New[string](start, time.Millisecond)
	ok(t, err)
	ok(t, w.AdvanceClock(start.Add(400*time.Microsecond), nil))
	mustAdd(t, w, start.Add(100*time.Microsecond), "x100")
	mustAdd(t, w, start.Add(50*time.Microsecond), "y50")
	mustAdd(t, w, start.Add(450*time.Microsecond), "z450")
	var seen []string
	w.Step(func(f timingwheel.Fired[string]) { seen = append(seen, f.Value) })
	if want := []string{"x100", "y50"}; !slices.Equal(seen, want) || !w.Now().Equal(start.Add(400*time.Microsecond)) {
		t.Errorf("Step with late alarms fired %v, Now %v; want %v together, the clock staying", seen, w.Now(), want)
	}
}

// The package doc's Simulation: whatever the precision, Step fires an alarm
// added at or after Now() at its own time. The same random simulation (each
// event schedules up to two more, some at Now()) fires the same events at
// the same times at 1 ns, 2^19 ns and 2^30 ns, and every event's handler
// sees Now() equal to its time.
func TestStepTimesIndependentOfPrecision(t *testing.T) {
	start := time.Unix(1_000, 0)
	type ev struct {
		v  int
		at time.Time
	}
	run := func(precision time.Duration) []ev {
		w, err := timingwheel.New[int](start, precision)
		ok(t, err)
		r := rand.New(rand.NewPCG(7, 7))
		next := 0
		add := func(d time.Duration) {
			next++
			mustAdd(t, w, w.Now().Add(d), next)
		}
		for range 20 {
			add(time.Duration(r.Int64N(int64(5 * time.Second))))
		}
		var out []ev
		for w.Step(func(f timingwheel.Fired[int]) {
			if !w.Now().Equal(f.At) {
				t.Fatalf("precision %v: alarm %d at %v fired with Now() %v", precision, f.Value, f.At, w.Now())
			}
			out = append(out, ev{f.Value, f.At})
			for range r.IntN(3) {
				if next < 2000 {
					switch r.IntN(4) {
					case 0:
						add(0)
					case 1:
						add(time.Duration(r.Int64N(1000)))
					default:
						add(time.Duration(r.Int64N(int64(time.Second))))
					}
				}
			}
		}) {
		}
		return out
	}
	want := run(time.Nanosecond)
	if len(want) < 500 {
		t.Fatalf("only %d events", len(want))
	}
	for i := 1; i < len(want); i++ {
		if want[i].at.Before(want[i-1].at) {
			t.Fatalf("event %d at %v before event %d at %v", want[i].v, want[i].at, want[i-1].v, want[i-1].at)
		}
	}
	for _, p := range []time.Duration{time.Millisecond, time.Second} {
		if got := run(p); !slices.Equal(got, want) {
			t.Errorf("precision %v: %d events, differing from 1 ns precision's %d", p, len(got), len(want))
		}
	}
}

// The package doc's Choosing a precision: advancing to NextAlarmFiresAt, an
// alarm fires up to one precision after its time, exactly one for an alarm
// at the start of its interval, with Now() at the end of its interval and
// Fired.At its own time; at 1 ns, one nanosecond late, in time order.
func TestAdvanceLatenessUpToOnePrecision(t *testing.T) {
	start := time.Unix(1_000, 0)
	for _, precision := range []time.Duration{time.Nanosecond, time.Millisecond} {
		w, err := timingwheel.New[int](start, precision)
		ok(t, err)
		p := w.AlarmPrecision()
		first, err := w.IntervalStart(start)
		ok(t, err)
		r := rand.New(rand.NewPCG(1, 2))
		ats := []time.Time{first.Add(p), first.Add(5 * p)} // interval starts
		for range 200 {
			ats = append(ats, start.Add(time.Duration(r.Int64N(int64(10*time.Millisecond)))))
		}
		for i, at := range ats {
			mustAdd(t, w, at, i)
		}
		fired, starts := 0, 0
		var last time.Time
		for !w.IsEmpty() {
			to, _ := w.NextAlarmFiresAt()
			ok(t, w.AdvanceClock(to, func(f timingwheel.Fired[int]) {
				fired++
				late := w.Now().Sub(f.At)
				if !f.At.Equal(ats[f.Value]) || !w.Now().Equal(to) || late <= 0 || late > p {
					t.Fatalf("precision %v: alarm at %v fired with At %v, Now %v (advancing to %v)", p, ats[f.Value], f.At, w.Now(), to)
				}
				if is, _ := w.IntervalStart(f.At); is.Equal(f.At) {
					starts++
					if late != p {
						t.Errorf("precision %v: the alarm at the interval start %v fired %v late, want %v", p, f.At, late, p)
					}
				}
				if p == 1 && f.At.Before(last) {
					t.Fatalf("1 ns: alarm at %v fired after one at %v", f.At, last)
				}
				last = f.At
			}))
		}
		if fired != len(ats) || starts < 2 {
			t.Fatalf("precision %v: %d alarms fired, %d at interval starts; %d added", p, fired, starts, len(ats))
		}
	}
}

// The package doc's Time and intervals: New rounds the precision down to a
// power of two nanoseconds, as config.PrecisionFor says.
func TestNewRoundsPrecision(t *testing.T) {
	for _, d := range []time.Duration{1, 3, time.Microsecond, time.Millisecond, time.Second, time.Hour} {
		w, err := timingwheel.New[int](time.Unix(0, 0), d)
		ok(t, err)
		if got := w.AlarmPrecision(); got != config.PrecisionFor(d) || got > d || 2*got <= d {
			t.Errorf("New(%v): precision %v, PrecisionFor %v", d, got, config.PrecisionFor(d))
		}
	}
	if w, _ := timingwheel.New[int](time.Unix(0, 0), time.Millisecond); w.AlarmPrecision() != 524288 {
		t.Errorf("New(1ms): precision %v, want 524.288µs", w.AlarmPrecision())
	}
	if _, err := timingwheel.New[int](time.Unix(0, 0), 0); !errors.Is(err, timingwheel.ErrInvalidConfig) ||
		!errors.Is(err, config.ErrNonPositivePrecision) {
		t.Errorf("New with precision 0: %v, want ErrInvalidConfig wrapping config.ErrNonPositivePrecision", err)
	}
}

// New's doc: a nil option is an invalid option, ErrInvalidConfig wrapping
// config.ErrInvalidOption, naming its position.
func TestNewNilOption(t *testing.T) {
	for _, opts := range [][]timingwheel.Option{{nil}, {timingwheel.WithOverflow(), nil}} {
		_, err := timingwheel.New[int](time.Unix(0, 0), time.Second, opts...)
		at := fmt.Sprintf("opts[%d]", len(opts)-1)
		if !errors.Is(err, timingwheel.ErrInvalidConfig) || !errors.Is(err, config.ErrInvalidOption) ||
			!strings.HasPrefix(err.Error(), "timingwheel: ") || !strings.Contains(err.Error(), at) {
			t.Errorf("New with a nil option: %v, want ErrInvalidConfig wrapping config.ErrInvalidOption naming %s", err, at)
		}
	}
}

// Errors name the package the user called and what it holds: a bad handle
// is "timingwheel: alarm is not in the wheel" from a wheel and
// "priorityqueue: alarm is not in the queue" from a queue, each matching its
// own package's sentinel only.
func TestErrorsNameTheirPackage(t *testing.T) {
	start := time.Unix(0, 0)
	w, err := timingwheel.New[int](start, time.Nanosecond)
	ok(t, err)
	a := mustAdd(t, w, start.Add(10), 1)
	ok(t, w.Remove(a))
	_, errAt := w.AlarmAt(a)
	_, errValue := w.AlarmValue(a)
	_, errN := w.AlarmIntervalNum(a)
	for name, err := range map[string]error{
		"Remove":                  w.Remove(a),
		"Remove(null)":            w.Remove(alarm.Alarm{}),
		"Reschedule":              w.Reschedule(a, start.Add(5)),
		"Reschedule(bad time)":    w.Reschedule(a, start.Add(-5)),
		"RescheduleAtIntervalNum": w.RescheduleAtIntervalNum(a, 5),
		"AlarmAt":                 errAt,
		"AlarmValue":              errValue,
		"AlarmIntervalNum":        errN,
	} {
		if !errors.Is(err, timingwheel.ErrInvalidAlarm) || errors.Is(err, priorityqueue.ErrInvalidAlarm) ||
			!strings.HasPrefix(err.Error(), "timingwheel: alarm is not in the wheel") {
			t.Errorf("%s of a removed alarm: %v", name, err)
		}
	}
	for _, s := range []error{timingwheel.ErrTimeOutOfRange, timingwheel.ErrIntervalNumOutOfRange,
		timingwheel.ErrTooFarInFuture, timingwheel.ErrBeforeCurrentInterval, timingwheel.ErrInvalidConfig,
		timingwheel.ErrNonPositiveLimit, timingwheel.ErrInvalidAlarm} {
		if !strings.HasPrefix(s.Error(), "timingwheel: ") {
			t.Errorf("sentinel %q does not name timingwheel", s)
		}
	}

	lb, err := config.New(0)
	ok(t, err)
	q := priorityqueue.New[int](lb.LevelBits(), 0)
	b, err := q.Add(3, 1)
	ok(t, err)
	ok(t, q.Remove(b))
	if _, err := q.Add(-5, 2); !errors.Is(err, priorityqueue.ErrKeyOutOfRange) ||
		!strings.HasPrefix(err.Error(), "priorityqueue: ") || !strings.Contains(err.Error(), "-5") {
		t.Errorf("queue Add(-5): %v, want ErrKeyOutOfRange naming priorityqueue and -5", err)
	}
	_, errKey := q.Key(b)
	for name, err := range map[string]error{"Remove": q.Remove(b), "Change": q.Change(b, 4), "Key": errKey} {
		if !errors.Is(err, priorityqueue.ErrInvalidAlarm) || errors.Is(err, timingwheel.ErrInvalidAlarm) ||
			!strings.HasPrefix(err.Error(), "priorityqueue: alarm is not in the queue") {
			t.Errorf("queue %s of a removed element: %v", name, err)
		}
	}
}

// Package config's doc: a wheel accepts alarms in at least 2^(sum of the
// level bits) intervals, the current one included, wherever the clock
// stands, and
// up to MaxTime with the default level bits or WithOverflow. New's doc: the
// default level bits reach every time up to MaxTime. MicrosecondPrecision
// has 2,216 slots and reaches 2^50 ns from the start of the current
// interval (unless MaxTime is nearer).
func TestReachOfLevelBits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	starts := func() []int64 {
		xs := []int64{0, 1, 1<<40 + 12345, timingwheel.MaxTime.UnixNano() - 1<<30, timingwheel.MaxTime.UnixNano()}
		for range 20 {
			xs = append(xs, r.Int64N(timingwheel.MaxTime.UnixNano()))
		}
		return xs
	}()
	for _, bits := range [][]int{{1}, {2, 1}, {3, 3, 3}, {10, 10, 6, 6, 5, 3}, {5, 1, 7}, {11, 10, 10}} {
		lb, err := levelbits.New(bits...)
		ok(t, err)
		for _, prec := range []config.AlarmPrecision{0, 3, 19, 30} {
			for _, overflow := range []bool{false, true} {
				opts := []config.Option{config.WithLevelBits(lb)}
				if overflow {
					opts = append(opts, config.WithOverflow())
				}
				cfg, err := config.New(prec, opts...)
				ok(t, err)
				ok(t, cfg.Invariant())
				sum := cfg.LevelBits().NumBits()
				for _, s := range starts {
					w, err := timingwheel.NewWithConfig[int](cfg, time.Unix(0, s))
					ok(t, err)
					ahead := w.MaxAllowedAlarmIntervalNum() - w.NowIntervalNum()
					if w.MaxAllowedAlarmIntervalNum() < w.MaxIntervalNum() && ahead < int64(1)<<sum-1 {
						t.Errorf("bits %v, precision %v, start %d: %d intervals ahead, want at least 2^%d-1", bits, prec, s, ahead, sum)
					}
					if overflow && !w.MaxAllowedAlarmTime().Equal(timingwheel.MaxTime) {
						t.Errorf("bits %v with overflow, precision %v, start %d: reach %v, want MaxTime", bits, prec, s, w.MaxAllowedAlarmTime())
					}
				}
			}
		}
	}
	for _, d := range []time.Duration{1, time.Microsecond, time.Millisecond, time.Second, time.Hour, 1 << 62} {
		for _, s := range starts {
			w, err := timingwheel.New[int](time.Unix(0, s), d)
			ok(t, err)
			if !w.MaxAllowedAlarmTime().Equal(timingwheel.MaxTime) {
				t.Errorf("New(start %d, %v): reach %v, want MaxTime", s, d, w.MaxAllowedAlarmTime())
			}
		}
	}
	c := config.MicrosecondPrecision()
	slots := 0
	for _, b := range c.LevelBits().Bits() {
		slots += 1 << b
	}
	if slots != 2216 {
		t.Errorf("MicrosecondPrecision has %d slots, its doc says 2,216", slots)
	}
	for _, s := range starts {
		w, err := timingwheel.NewWithConfig[int](c, time.Unix(0, s))
		ok(t, err)
		is, err := w.IntervalStart(w.Now())
		ok(t, err)
		if reach := w.MaxAllowedAlarmTime().Sub(is) + 1; reach < 1<<50 && !w.MaxAllowedAlarmTime().Equal(timingwheel.MaxTime) {
			t.Errorf("MicrosecondPrecision from %d reaches %v ahead, want 2^50 ns", s, reach)
		}
	}
}

// WithCapacity's doc: New fails with ErrInvalidConfig unless
// 0 <= n <= config.MaxCapacity.
func TestWithCapacityRange(t *testing.T) {
	for _, n := range []int{-1, math.MinInt} {
		if _, err := timingwheel.New[int](time.Unix(0, 0), time.Millisecond, timingwheel.WithCapacity(n)); !errors.Is(err, timingwheel.ErrInvalidConfig) ||
			!errors.Is(err, config.ErrCapacityOutOfRange) {
			t.Errorf("WithCapacity(%d): %v, want ErrInvalidConfig wrapping config.ErrCapacityOutOfRange", n, err)
		}
	}
	if big := int64(config.MaxCapacity) + 1; big <= math.MaxInt {
		if _, err := timingwheel.New[int](time.Unix(0, 0), time.Millisecond, timingwheel.WithCapacity(int(big))); !errors.Is(err, timingwheel.ErrInvalidConfig) {
			t.Errorf("WithCapacity(MaxCapacity+1): %v, want ErrInvalidConfig", err)
		}
	}
	w, err := timingwheel.New[int](time.Unix(0, 0), time.Millisecond, timingwheel.WithCapacity(100))
	ok(t, err)
	if st := w.Stats(); st.Capacity < 100 {
		t.Errorf("WithCapacity(100): Stats().Capacity %d", st.Capacity)
	}
}

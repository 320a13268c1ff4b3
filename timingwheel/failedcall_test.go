package timingwheel_test

// "A failed call leaves the wheel exactly as it was": every error path of
// every mutating method, from several starting states, compared on every
// observable before and after, and on the fire sequence that follows.

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// handles names the alarms a scenario made, live or not.
type handles struct {
	live    []alarm.Alarm // members, at least one
	removed alarm.Alarm   // removed by Remove
	fired   alarm.Alarm   // fired by an advance
	foreign alarm.Alarm   // a member of another wheel
	reused  alarm.Alarm   // removed, and its record reused by a later Add
}

func (h handles) all() []alarm.Alarm {
	return append([]alarm.Alarm{h.removed, h.fired, h.foreign, h.reused, {}}, h.live...)
}

type scenario struct {
	name  string
	build func(t *testing.T) (*timingwheel.Wheel[int], handles)
}

// addAll adds an alarm at each time, valued by its index plus base.
func addAll(t *testing.T, w *timingwheel.Wheel[int], base int, times ...time.Time) []alarm.Alarm {
	t.Helper()
	var out []alarm.Alarm
	for i, at := range times {
		a, err := w.Add(at, base+i)
		if err != nil {
			t.Fatalf("Add(%v): %v", at, err)
		}
		out = append(out, a)
	}
	return out
}

// commonHandles gives the wheel a removed, a fired, a reused and a foreign
// handle; the wheel's clock must allow alarms at its now.
func commonHandles(t *testing.T, w *timingwheel.Wheel[int], fireAt time.Time) handles {
	t.Helper()
	var h handles
	other, err := timingwheel.NewWithConfig[int](w.Config(), w.Now())
	ok(t, err)
	h.foreign = addAll(t, other, 0, w.Now())[0]
	h.reused = addAll(t, w, 900, fireAt)[0]
	ok(t, w.Remove(h.reused))
	addAll(t, w, 901, fireAt) // takes the freed record
	h.fired = addAll(t, w, 902, w.Now())[0]
	var n int
	ok(t, w.AdvanceClock(fireAt, func(timingwheel.Fired[int]) { n++ }))
	if n == 0 || w.Mem(h.fired) {
		t.Fatal("scenario: the alarm to fire did not fire")
	}
	h.removed = addAll(t, w, 903, fireAt)[0]
	ok(t, w.Remove(h.removed))
	return h
}

var scenarios = []scenario{
	{"microseconds, default levels", func(t *testing.T) (*timingwheel.Wheel[int], handles) {
		w := mkWheel[int](t, wheelCfg{p: config.AboutOneMicrosecond}, atNs(1e9))
		h := commonHandles(t, w, atNs(1e9+5000))
		now := w.Now()
		// Alarms on several levels, two in the current interval.
		h.live = addAll(t, w, 0, now, now.Add(10), now.Add(3000), now.Add(time.Millisecond),
			now.Add(time.Second), now.Add(time.Hour), now.Add(1000*time.Hour), timingwheel.MaxTime)
		return w, h
	}},
	{"[1 1] at 2^30: short reach", func(t *testing.T) (*timingwheel.Wheel[int], handles) {
		w := mkWheel[int](t, wheelCfg{p: config.AboutOneSecond, bits: []int{1, 1}}, atNs(0))
		h := commonHandles(t, w, atNs(gib+5))
		lo, hi := w.MinAllowedAlarmIntervalNum(), w.MaxAllowedAlarmIntervalNum()
		for n := lo; n <= hi; n++ {
			a, err := w.AddAtIntervalNum(n, int(n))
			ok(t, err)
			h.live = append(h.live, a)
		}
		return w, h
	}},
	{"overdue alarms after a panicking handler", func(t *testing.T) (*timingwheel.Wheel[int], handles) {
		w := mkWheel[int](t, wheelCfg{p: config.AboutOneMicrosecond}, atNs(0))
		h := commonHandles(t, w, atNs(5000))
		now := w.Now()
		h.live = addAll(t, w, 0, now.Add(1000), now.Add(2000), now.Add(3000), now.Add(4000), now.Add(time.Hour))
		p := panicsWith(func() {
			_ = w.AdvanceClock(now.Add(time.Millisecond), func(ev timingwheel.Fired[int]) {
				a := ev.Alarm

				if valueOf(t, w, a) == 1 {
					panic("boom")
				}
			})
		})
		if p == nil || w.Stats().Due != 2 {
			t.Fatalf("scenario: panic %v, %d due", p, w.Stats().Due)
		}
		h.live = h.live[2:] // 0 and 1 fired
		return w, h
	}},
	{"near MaxTime, 1-bit levels", func(t *testing.T) (*timingwheel.Wheel[int], handles) {
		w := mkWheel[int](t, wheelCfg{p: config.OneNanosecond, bits: []int{1}, extend: true}, atNs(0))
		ok(t, w.AdvanceClock(atNs(maxNs-20), nil))
		h := commonHandles(t, w, atNs(maxNs-10))
		h.live = addAll(t, w, 0, atNs(maxNs-10), atNs(maxNs-3), timingwheel.MaxTime, timingwheel.MaxTime)
		return w, h
	}},
	{"overflow levels", func(t *testing.T) (*timingwheel.Wheel[int], handles) {
		c := wheelCfg{p: config.AboutOneMicrosecond, bits: []int{4, 4}, opts: []config.Option{config.WithOverflow()}}
		w := mkWheel[int](t, c, atNs(1e6))
		h := commonHandles(t, w, atNs(1e6+3000))
		now := w.Now()
		h.live = addAll(t, w, 0, now.Add(2000), now.Add(time.Second), now.Add(24*time.Hour*365), timingwheel.MaxTime)
		return w, h
	}},
}

type alarmSnap struct {
	Handle   string
	At       time.Time
	Interval int64
	Value    int
}

type wheelSnap struct {
	Len                     int
	Empty                   bool
	Now, Start              time.Time
	NowInterval             int64
	MinAllowed, MaxAllowed  int64
	MaxAllowedTime          time.Time
	Alarms                  []alarmSnap
	Mem                     []bool
	Next                    time.Time
	NextOK                  bool
	MinInterval             int64
	MinIntervalOK           bool
	MinTime, MaxTime        time.Time
	MinTimeOK, MaxTimeOK    bool
	Stats                   timingwheel.Stats
	Invariant               string
	ConfigStr, PrecisionStr string
}

func snap(t *testing.T, w *timingwheel.Wheel[int], known []alarm.Alarm) wheelSnap {
	t.Helper()
	s := wheelSnap{
		Len: w.Len(), Empty: w.IsEmpty(), Now: w.Now(), Start: w.Start(), NowInterval: w.NowIntervalNum(),
		MinAllowed: w.MinAllowedAlarmIntervalNum(), MaxAllowed: w.MaxAllowedAlarmIntervalNum(),
		MaxAllowedTime: w.MaxAllowedAlarmTime(),
		ConfigStr:      w.Config().String(), PrecisionStr: w.AlarmPrecision().String(),
	}
	for a := range w.All() {
		at, err1 := w.AlarmAt(a)
		n, err2 := w.AlarmIntervalNum(a)
		v, err3 := w.AlarmValue(a)
		if err := errors.Join(err1, err2, err3); err != nil {
			t.Fatalf("All yields %v: %v", a, err)
		}
		s.Alarms = append(s.Alarms, alarmSnap{a.String(), at, n, v})
	}
	slices.SortFunc(s.Alarms, func(x, y alarmSnap) int {
		return cmp.Or(x.At.Compare(y.At), cmp.Compare(x.Value, y.Value), strings.Compare(x.Handle, y.Handle))
	})
	for _, a := range known {
		s.Mem = append(s.Mem, w.Mem(a))
	}
	s.Next, s.NextOK = w.NextAlarmFiresAt()
	s.MinInterval, s.MinIntervalOK = w.MinAlarmIntervalNum()
	s.MinTime, s.MinTimeOK = w.MinAlarmTimeInMinInterval()
	s.MaxTime, s.MaxTimeOK = w.MaxAlarmTimeInMinInterval()
	// After the time queries: the first may size the buffer of the step
	// order (the smallest interval's alarms by time), which Stats counts.
	s.Stats = w.Stats()
	if err := w.Invariant(); err != nil {
		s.Invariant = err.Error()
	}
	return s
}

// drain fires everything left, returning the values in fire order.
func drain(t *testing.T, w *timingwheel.Wheel[int]) []int {
	t.Helper()
	var out []int
	h := func(ev timingwheel.Fired[int]) {
		a := ev.Alarm
		out = append(out, valueOf(t, w, a))
	}
	ok(t, w.AdvanceClock(timingwheel.MaxTime, h))
	w.FirePastAlarms(h)
	if !w.IsEmpty() {
		t.Fatalf("%d alarms left after draining", w.Len())
	}
	return out
}

// failCase is one failing call. prep, run on the wheel before the call,
// returns the call, the sentinel it must fail with, and what its message
// must mention; ok=false skips a case that does not apply to the scenario.
type failCase struct {
	name string
	prep func(w *timingwheel.Wheel[int], h handles) (call func() error, want error, mention []string, ok bool)
}

func tstr(t time.Time) string { return t.UTC().String() }

func istr(n int64) string { return fmt.Sprint(n) }

var epochStr = tstr(time.Unix(0, 0))

func noFire(f timingwheel.Fired[int]) { panic(fmt.Sprintf("a failed call fired %v", f.Alarm)) }

func tooFarTimes(w *timingwheel.Wheel[int]) []time.Time {
	out := []time.Time{timingwheel.MaxTime.Add(1), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}
	if m := w.MaxAllowedAlarmTime(); m.Before(timingwheel.MaxTime) {
		out = append(out, m.Add(1))
	}
	return out
}

func beforeTimes(w *timingwheel.Wheel[int]) []time.Time {
	out := []time.Time{time.Unix(0, -1), time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)}
	if s, _ := w.IntervalStart(w.Now()); s.UnixNano() > 0 {
		out = append(out, s.Add(-1))
	}
	return out
}

func failCases() []failCase {
	var cs []failCase
	// Add and Reschedule by time.
	for i := 0; i < 3; i++ {
		cs = append(cs,
			failCase{fmt.Sprintf("Add too far #%d", i), func(w *timingwheel.Wheel[int], h handles) (func() error, error, []string, bool) {
				ts := tooFarTimes(w)
				if i >= len(ts) {
					return nil, nil, nil, false
				}
				at := ts[i]
				return func() error { _, err := w.Add(at, -1); return err },
					timingwheel.ErrTooFarInFuture, []string{tstr(at), tstr(w.MaxAllowedAlarmTime())}, true
			}},
			failCase{fmt.Sprintf("Reschedule too far #%d", i), func(w *timingwheel.Wheel[int], h handles) (func() error, error, []string, bool) {
				ts := tooFarTimes(w)
				if i >= len(ts) {
					return nil, nil, nil, false
				}
				at := ts[i]
				return func() error { return w.Reschedule(h.live[0], at) },
					timingwheel.ErrTooFarInFuture, []string{tstr(at), tstr(w.MaxAllowedAlarmTime())}, true
			}},
			failCase{fmt.Sprintf("Add before the current interval #%d", i), func(w *timingwheel.Wheel[int], h handles) (func() error, error, []string, bool) {
				ts := beforeTimes(w)
				if i >= len(ts) {
					return nil, nil, nil, false
				}
				at := ts[i]
				s, _ := w.IntervalStart(w.Now())
				return func() error { _, err := w.Add(at, -1); return err },
					timingwheel.ErrBeforeCurrentInterval, []string{tstr(at), tstr(s)}, true
			}},
			failCase{fmt.Sprintf("Reschedule before the current interval #%d", i), func(w *timingwheel.Wheel[int], h handles) (func() error, error, []string, bool) {
				ts := beforeTimes(w)
				if i >= len(ts) {
					return nil, nil, nil, false
				}
				at := ts[i]
				s, _ := w.IntervalStart(w.Now())
				return func() error { return w.Reschedule(h.live[len(h.live)-1], at) },
					timingwheel.ErrBeforeCurrentInterval, []string{tstr(at), tstr(s)}, true
			}},
		)
	}
	// Invalid handles, for Remove and both Reschedules; an invalid handle
	// is reported before a bad time or interval.
	for _, kind := range []string{"null", "removed", "fired", "foreign", "reused"} {
		pick := func(h handles) alarm.Alarm {
			return map[string]alarm.Alarm{"null": {}, "removed": h.removed, "fired": h.fired, "foreign": h.foreign, "reused": h.reused}[kind]
		}
		cs = append(cs,
			failCase{"Remove " + kind, func(w *timingwheel.Wheel[int], h handles) (func() error, error, []string, bool) {
				a := pick(h)
				return func() error { return w.Remove(a) }, timingwheel.ErrInvalidAlarm, []string{a.String()}, true
			}},
			failCase{"Reschedule " + kind, func(w *timingwheel.Wheel[int], h handles) (func() error, error, []string, bool) {
				a := pick(h)
				return func() error { return w.Reschedule(a, w.Now()) }, timingwheel.ErrInvalidAlarm, []string{a.String()}, true
			}},
			failCase{"Reschedule " + kind + " to a bad time", func(w *timingwheel.Wheel[int], h handles) (func() error, error, []string, bool) {
				a := pick(h)
				return func() error { return w.Reschedule(a, time.Unix(0, -1)) }, timingwheel.ErrInvalidAlarm, []string{a.String()}, true
			}},
			failCase{"RescheduleAtIntervalNum " + kind, func(w *timingwheel.Wheel[int], h handles) (func() error, error, []string, bool) {
				a := pick(h)
				return func() error { return w.RescheduleAtIntervalNum(a, w.NowIntervalNum()) }, timingwheel.ErrInvalidAlarm, []string{a.String()}, true
			}},
			failCase{"RescheduleAtIntervalNum " + kind + " to -1", func(w *timingwheel.Wheel[int], h handles) (func() error, error, []string, bool) {
				a := pick(h)
				return func() error { return w.RescheduleAtIntervalNum(a, -1) }, timingwheel.ErrInvalidAlarm, []string{a.String()}, true
			}},
		)
	}
	// By interval number.
	type ncase struct {
		name string
		n    func(w *timingwheel.Wheel[int]) (int64, bool)
		want error
		// mention: the number and the bounds of the range it broke
		bounds func(w *timingwheel.Wheel[int]) []string
	}
	outOfRange := func(w *timingwheel.Wheel[int]) []string { return []string{"0", istr(w.MaxIntervalNum())} }
	ncs := []ncase{
		{"-1", func(*timingwheel.Wheel[int]) (int64, bool) { return -1, true }, timingwheel.ErrIntervalNumOutOfRange, outOfRange},
		{"MinInt64", func(*timingwheel.Wheel[int]) (int64, bool) { return math.MinInt64, true }, timingwheel.ErrIntervalNumOutOfRange, outOfRange},
		{"MaxIntervalNum+1", func(w *timingwheel.Wheel[int]) (int64, bool) { return w.MaxIntervalNum() + 1, true }, timingwheel.ErrIntervalNumOutOfRange, outOfRange},
		{"MaxInt64", func(*timingwheel.Wheel[int]) (int64, bool) { return math.MaxInt64, true }, timingwheel.ErrIntervalNumOutOfRange, outOfRange},
		{"NowIntervalNum-1", func(w *timingwheel.Wheel[int]) (int64, bool) { return w.NowIntervalNum() - 1, w.NowIntervalNum() > 0 },
			timingwheel.ErrBeforeCurrentInterval, func(w *timingwheel.Wheel[int]) []string { return []string{istr(w.NowIntervalNum())} }},
		{"MaxAllowedAlarmIntervalNum+1", func(w *timingwheel.Wheel[int]) (int64, bool) {
			m := w.MaxAllowedAlarmIntervalNum()
			return m + 1, m < w.MaxIntervalNum()
		}, timingwheel.ErrTooFarInFuture, func(w *timingwheel.Wheel[int]) []string { return []string{istr(w.MaxAllowedAlarmIntervalNum())} }},
	}
	for _, nc := range ncs {
		cs = append(cs,
			failCase{"AddAtIntervalNum " + nc.name, func(w *timingwheel.Wheel[int], h handles) (func() error, error, []string, bool) {
				n, applies := nc.n(w)
				return func() error { _, err := w.AddAtIntervalNum(n, -1); return err }, nc.want, append(nc.bounds(w), istr(n)), applies
			}},
			failCase{"RescheduleAtIntervalNum " + nc.name, func(w *timingwheel.Wheel[int], h handles) (func() error, error, []string, bool) {
				n, applies := nc.n(w)
				return func() error { return w.RescheduleAtIntervalNum(h.live[0], n) }, nc.want, append(nc.bounds(w), istr(n)), applies
			}},
		)
	}
	// Advancing calls with an out-of-range time, or a bad limit.
	for _, to := range []time.Time{time.Unix(0, -1), time.Unix(-1e9, 0), timingwheel.MaxTime.Add(1), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)} {
		mention := []string{tstr(to), epochStr, tstr(timingwheel.MaxTime)}
		cs = append(cs,
			failCase{"AdvanceClock to " + tstr(to), func(w *timingwheel.Wheel[int], h handles) (func() error, error, []string, bool) {
				return func() error { return w.AdvanceClock(to, noFire) }, timingwheel.ErrTimeOutOfRange, mention, true
			}},
			failCase{"AdvanceClockLimit to " + tstr(to), func(w *timingwheel.Wheel[int], h handles) (func() error, error, []string, bool) {
				return func() error {
					n, done, err := w.AdvanceClockLimit(to, 10, noFire)
					if n != 0 || done {
						return fmt.Errorf("failed AdvanceClockLimit returned n=%d done=%v", n, done)
					}
					return err
				}, timingwheel.ErrTimeOutOfRange, mention, true
			}},
			failCase{"AdvanceClockStopAtNextAlarm to " + tstr(to), func(w *timingwheel.Wheel[int], h handles) (func() error, error, []string, bool) {
				return func() error { return w.AdvanceClockStopAtNextAlarm(to, noFire) }, timingwheel.ErrTimeOutOfRange, mention, true
			}},
		)
	}
	for _, limit := range []int{0, -1, math.MinInt} {
		cs = append(cs, failCase{fmt.Sprintf("AdvanceClockLimit limit %d", limit), func(w *timingwheel.Wheel[int], h handles) (func() error, error, []string, bool) {
			return func() error {
				_, _, err := w.AdvanceClockLimit(w.Now().Add(time.Hour), limit, noFire)
				return err
			}, timingwheel.ErrNonPositiveLimit, []string{fmt.Sprint(limit), "positive"}, true
		}})
	}
	return cs
}

var sentinels = []error{
	timingwheel.ErrTimeOutOfRange, timingwheel.ErrIntervalNumOutOfRange, timingwheel.ErrTooFarInFuture,
	timingwheel.ErrBeforeCurrentInterval, timingwheel.ErrInvalidConfig, timingwheel.ErrNonPositiveLimit,
	timingwheel.ErrInvalidAlarm,
}

func TestFailedCallChangesNothing(t *testing.T) {
	cases := failCases()
	seen := map[error]bool{}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			ran := 0
			for _, fc := range cases {
				w, h := sc.build(t)
				call, want, mention, applies := fc.prep(w, h)
				if !applies {
					continue
				}
				ran++
				known := h.all()
				before := snap(t, w, known)
				if before.Invariant != "" {
					t.Fatalf("scenario invalid: %s", before.Invariant)
				}
				err := call()
				if !errors.Is(err, want) {
					t.Fatalf("%s: error %v, want %v", fc.name, err, want)
				}
				seen[want] = true
				for _, s := range sentinels {
					if s != want && errors.Is(err, s) {
						t.Errorf("%s: error %v also matches %v", fc.name, err, s)
					}
				}
				for _, m := range mention {
					if !strings.Contains(err.Error(), m) {
						t.Errorf("%s: message %q does not mention %q", fc.name, err, m)
					}
				}
				if d := gocmp.Diff(before, snap(t, w, known)); d != "" {
					t.Fatalf("%s changed the wheel (-before +after):\n%s", fc.name, d)
				}
				// The future is unchanged too: the wheel fires what an
				// untouched twin fires, in the same order.
				twin, _ := sc.build(t)
				if d := gocmp.Diff(drain(t, twin), drain(t, w)); d != "" {
					t.Fatalf("%s changed what fires (-twin +after):\n%s", fc.name, d)
				}
			}
			if ran < 40 {
				t.Fatalf("only %d failing calls applied", ran)
			}
		})
	}
	for _, s := range sentinels {
		if s != timingwheel.ErrInvalidConfig && !seen[s] {
			t.Errorf("no failing call returned %v", s)
		}
	}
}

// New's errors also name the value and the range.
func TestNewErrorMessages(t *testing.T) {
	cfg := wheelCfg{p: config.AboutOneMicrosecond}.config(t)
	for _, start := range []time.Time{time.Unix(0, -1), timingwheel.MaxTime.Add(1)} {
		_, err := timingwheel.NewWithConfig[int](cfg, start)
		isErr(t, err, timingwheel.ErrTimeOutOfRange, "New")
		for _, m := range []string{tstr(start), epochStr, tstr(timingwheel.MaxTime)} {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("New(%v): %q does not mention %q", start, err, m)
			}
		}
	}
	_, err := timingwheel.NewWithConfig[int](config.Config{}, atNs(0))
	isErr(t, err, timingwheel.ErrInvalidConfig, "New(zero config)")
	for _, s := range sentinels[:len(sentinels)-1] {
		if s != timingwheel.ErrInvalidConfig && errors.Is(err, s) {
			t.Errorf("New(zero config) also matches %v", s)
		}
	}
}

// The sentinels are distinct errors.
func TestSentinelsDistinct(t *testing.T) {
	for i, a := range sentinels {
		for j, b := range sentinels {
			if i != j && errors.Is(a, b) {
				t.Errorf("%v matches %v", a, b)
			}
		}
	}
}

// The snapshot comparison can fail: every successful mutation of each kind
// shows up in it. (A reschedule that keeps the time changes only the order,
// which the snapshot does not see; the drain comparison does.)
func TestSnapshotSeesChanges(t *testing.T) {
	muts := map[string]func(w *timingwheel.Wheel[int], h handles){
		"Add":        func(w *timingwheel.Wheel[int], h handles) { _, _ = w.Add(w.Now(), -1) },
		"Remove":     func(w *timingwheel.Wheel[int], h handles) { _ = w.Remove(h.live[0]) },
		"Reschedule": func(w *timingwheel.Wheel[int], h handles) { _ = w.Reschedule(h.live[0], w.MaxAllowedAlarmTime()) },
		"RescheduleAtIntervalNum": func(w *timingwheel.Wheel[int], h handles) {
			_ = w.RescheduleAtIntervalNum(h.live[0], w.MaxAllowedAlarmIntervalNum())
		},
		"AdvanceClock by 1ns": func(w *timingwheel.Wheel[int], h handles) { _ = w.AdvanceClock(w.Now().Add(1), nil) },
		"Clear":               func(w *timingwheel.Wheel[int], h handles) { w.Clear() },
	}
	for _, sc := range scenarios {
		for name, m := range muts {
			w, h := sc.build(t)
			if w.Now().Equal(timingwheel.MaxTime) && name == "AdvanceClock by 1ns" {
				continue
			}
			known := h.all()
			before := snap(t, w, known)
			m(w, h)
			if gocmp.Equal(before, snap(t, w, known)) {
				t.Errorf("%s: %s left no trace in the snapshot", sc.name, name)
			}
		}
	}
}

// The drain comparison sees a change of order alone: rescheduling the first
// of two alarms of one interval to its own time moves it behind the second.
func TestDrainSeesOrder(t *testing.T) {
	sc := scenarios[0]
	w, h := sc.build(t)
	twin, _ := sc.build(t)
	ok(t, w.Reschedule(h.live[0], w.Now()))
	got, want := drain(t, w), drain(t, twin)
	if gocmp.Equal(got, want) {
		t.Fatalf("a reschedule in place left the fire order %v unchanged", got)
	}
	if slices.Index(got, 1) > slices.Index(got, 0) || slices.Index(want, 0) > slices.Index(want, 1) {
		t.Fatalf("fire orders %v and %v", got, want)
	}
}

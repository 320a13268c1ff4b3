package timingwheel_test

// One test per departure from the original listed in docs/design.md. Each
// builds the situation where the original behaves differently and checks ours.

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

func ns(n int64) time.Time { return time.Unix(0, n) }

func newWheel(t *testing.T, p config.AlarmPrecision, bits ...int) *timingwheel.Wheel[string] {
	t.Helper()
	opts := []config.Option{}
	if len(bits) > 0 {
		lb, err := levelbits.New(bits...)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, config.WithLevelBits(lb))
	}
	cfg, err := config.New(p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	w, err := timingwheel.NewWithConfig[string](cfg, ns(0))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func mustNil(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// collect returns a handler that appends each fired alarm's value to *out.
func collect(w *timingwheel.Wheel[string], out *[]string) func(timingwheel.Fired[string]) {
	return func(ev timingwheel.Fired[string]) {
		a := ev.Alarm

		v, err := w.AlarmValue(a)
		if err != nil {
			panic(err)
		}
		*out = append(*out, v)
	}
}

// Departure 1: two alarms in one interval, the older on a higher level, and a
// jump that passes the higher level's slot but not the middle one's.
func TestDepartureOrderAcrossLevels(t *testing.T) {
	w := newWheel(t, config.OneNanosecond, 1, 1, 1)
	mustNil(t, w.AdvanceClock(ns(3), nil))
	_, err := w.Add(ns(8), "older")
	mustNil(t, err)
	mustNil(t, w.AdvanceClock(ns(5), nil))
	_, err = w.Add(ns(8), "newer")
	mustNil(t, err)
	mustNil(t, w.AdvanceClock(ns(7), nil))
	var got []string
	mustNil(t, w.AdvanceClock(ns(9), collect(w, &got)))
	if want := []string{"older", "newer"}; !slices.Equal(got, want) {
		t.Fatalf("fired %v, want %v (insertion order within an interval)", got, want)
	}
}

// Departure 2: one large advance fires intervals in ascending order even when
// the later interval sits on a lower level.
func TestDepartureOrderAcrossIntervals(t *testing.T) {
	w := newWheel(t, config.OneNanosecond, 2, 2)
	var got []string
	// Level 0 covers [0,3]; level 1 starts at 4. Key 5 goes to level 1 now.
	_, err := w.Add(ns(5), "five")
	mustNil(t, err)
	mustNil(t, w.AdvanceClock(ns(3), nil)) // level 0 now covers [3,6]
	_, err = w.Add(ns(6), "six")           // level 0
	mustNil(t, err)
	_, err = w.Add(ns(4), "four") // level 0
	mustNil(t, err)
	mustNil(t, w.AdvanceClock(ns(100), collect(w, &got)))
	if want := []string{"four", "five", "six"}; !slices.Equal(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
}

// Departure 3: Clear resets the cached minimum.
func TestDepartureClearResetsMinimum(t *testing.T) {
	w := newWheel(t, config.OneNanosecond)
	_, err := w.Add(ns(5), "a")
	mustNil(t, err)
	if k, ok := w.MinAlarmIntervalNum(); !ok || k != 5 {
		t.Fatalf("MinAlarmIntervalNum = %d %v, want 5", k, ok)
	}
	w.Clear()
	if _, ok := w.NextAlarmFiresAt(); ok {
		t.Fatal("NextAlarmFiresAt true on a cleared wheel")
	}
	_, err = w.Add(ns(9), "b")
	mustNil(t, err)
	if next, ok := w.NextAlarmFiresAt(); !ok || !next.Equal(ns(10)) {
		t.Fatalf("NextAlarmFiresAt = %v %v, want 10ns (a stale minimum would say 6ns)", next, ok)
	}
}

// Departure 4: the min-interval queries see every alarm of the minimum
// interval, whatever level it sits on. Precision 2^2 ns, level bits [2 1]:
// at interval 0, level 0 covers intervals [0,3] and interval 4 goes to level
// 1; at interval 1, level 0 covers [1,4] while level 1 still starts at 4, so
// interval 4 is then on both levels. The original answers from one list.
func TestDepartureMinIntervalQueriesAcrossLevels(t *testing.T) {
	w := newWheel(t, 2, 2, 1)
	_, err := w.Add(ns(17), "older, level 1") // interval 4
	mustNil(t, err)
	mustNil(t, w.AdvanceClock(ns(4), nil)) // interval 1
	for _, at := range []int64{19, 18} {   // interval 4, level 0
		_, err = w.Add(ns(at), "newer, level 0")
		mustNil(t, err)
	}
	lo, ok := w.MinAlarmTimeInMinInterval()
	if !ok || !lo.Equal(ns(17)) {
		t.Fatalf("MinAlarmTimeInMinInterval = %v %v, want 17ns", lo.UnixNano(), ok)
	}
	hi, ok := w.MaxAlarmTimeInMinInterval()
	if !ok || !hi.Equal(ns(19)) {
		t.Fatalf("MaxAlarmTimeInMinInterval = %v %v, want 19ns", hi.UnixNano(), ok)
	}
	var got []string
	mustNil(t, w.AdvanceClock(ns(20), collect(w, &got)))
	if want := []string{"older, level 1", "newer, level 0", "newer, level 0"}; !slices.Equal(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
}

// Departure 5: AdvanceClockStopAtNextAlarm fires, one instant per call.
func TestDepartureStopAtNextAlarmFires(t *testing.T) {
	w := newWheel(t, config.AboutOneMicrosecond)
	for _, at := range []int64{300, 100, 200, 100} {
		_, err := w.Add(ns(at), time.Duration(at).String())
		mustNil(t, err)
	}
	var got []string
	var times []int64
	for calls := 0; !w.IsEmpty(); calls++ {
		if calls > 10 {
			t.Fatal("no progress")
		}
		mustNil(t, w.AdvanceClockStopAtNextAlarm(timingwheel.MaxTime, func(ev timingwheel.Fired[string]) {
			a := ev.Alarm

			v, _ := w.AlarmValue(a)
			got = append(got, v)
			times = append(times, w.Now().UnixNano())
		}))
	}
	if want := []string{"100ns", "100ns", "200ns", "300ns"}; !slices.Equal(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
	if want := []int64{100, 100, 200, 300}; !slices.Equal(times, want) {
		t.Fatalf("Now() at each fire %v, want %v", times, want)
	}
}

// Departure 6: a handle from another wheel is rejected.
func TestDepartureForeignHandle(t *testing.T) {
	w1 := newWheel(t, config.OneNanosecond)
	w2 := newWheel(t, config.OneNanosecond)
	a1, err := w1.Add(ns(10), "w1")
	mustNil(t, err)
	_, err = w2.Add(ns(10), "w2") // same record index in w2's pool
	mustNil(t, err)
	if w2.Mem(a1) {
		t.Fatal("w2.Mem accepts w1's handle")
	}
	if err := w2.Remove(a1); !errors.Is(err, timingwheel.ErrInvalidAlarm) {
		t.Fatalf("w2.Remove(w1's handle) = %v, want ErrInvalidAlarm", err)
	}
	if w2.Len() != 1 {
		t.Fatalf("w2.Len = %d after a rejected Remove", w2.Len())
	}
}

// Departure 8: alarms in the last interval, added when the clock was far from
// it, sit on a higher level; FirePastAlarms at MaxTime must fire them.
func TestDepartureFirePastAlarmsAtLastInterval(t *testing.T) {
	w := newWheel(t, config.OneNanosecond)
	_, err := w.Add(timingwheel.MaxTime, "added early")
	mustNil(t, err)
	mustNil(t, w.AdvanceClock(timingwheel.MaxTime, nil))
	_, err = w.Add(timingwheel.MaxTime, "added late")
	mustNil(t, err)
	var got []string
	w.FirePastAlarms(collect(w, &got))
	if want := []string{"added early", "added late"}; !slices.Equal(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
	if !w.IsEmpty() {
		t.Fatalf("%d alarms left at MaxTime", w.Len())
	}
}

// Departure 10: a handler may add an alarm anywhere the wheel reaches after
// the advance (the levels move before the first handler runs).
func TestDepartureHandlerSeesFinalReach(t *testing.T) {
	w := newWheel(t, config.OneNanosecond, 2) // reach: 4 intervals
	_, err := w.Add(ns(1), "first")
	mustNil(t, err)
	var addErr error
	mustNil(t, w.AdvanceClock(ns(100), func(timingwheel.Fired[string]) {
		if !w.MaxAllowedAlarmTime().Equal(ns(103)) {
			t.Errorf("MaxAllowedAlarmTime inside the handler = %v, want 103ns", w.MaxAllowedAlarmTime().UnixNano())
		}
		_, addErr = w.Add(ns(103), "follow-up")
	}))
	mustNil(t, addErr)
	mustNil(t, w.Invariant())
}

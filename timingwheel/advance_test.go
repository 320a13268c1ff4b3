package timingwheel_test

// AdvanceClockLimit and AdvanceClockStopAtNextAlarm: where the clock stands
// after each call and what fires, worked out by hand.

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// Precision 2^10 ns. Alarms: 3 in interval 2, 1 in interval 5, 4 in
// interval 9, 1 in interval 40 (after the target, interval 20).
func limitWheel(t *testing.T) *timingwheel.Wheel[int] {
	w := mkWheel[int](t, wheelCfg{p: config.AboutOneMicrosecond}, atNs(0))
	id := 0
	for _, c := range []struct{ n, count int64 }{{2, 3}, {5, 1}, {9, 4}, {40, 1}} {
		for j := int64(0); j < c.count; j++ {
			_, err := w.Add(atNs(c.n<<10+j*100), id)
			ok(t, err)
			id++
		}
	}
	return w
}

func TestAdvanceClockLimitSteps(t *testing.T) {
	to := atNs(20<<10 + 7)
	tests := []struct {
		limit int
		// per call: fired ids, done, NowIntervalNum after
		steps []struct {
			fired []int
			done  bool
			now   int64
		}
	}{
		{1, []struct {
			fired []int
			done  bool
			now   int64
		}{
			{[]int{0, 1, 2}, false, 5}, // finishes interval 2 although limit is 1
			{[]int{3}, false, 9},
			{[]int{4, 5, 6, 7}, true, 20},
		}},
		{3, []struct {
			fired []int
			done  bool
			now   int64
		}{
			{[]int{0, 1, 2}, false, 5},
			{[]int{3, 4, 5, 6, 7}, true, 20},
		}},
		{4, []struct {
			fired []int
			done  bool
			now   int64
		}{
			{[]int{0, 1, 2, 3}, false, 9},
			{[]int{4, 5, 6, 7}, true, 20},
		}},
		{8, []struct {
			fired []int
			done  bool
			now   int64
		}{
			{[]int{0, 1, 2, 3, 4, 5, 6, 7}, true, 20},
		}},
	}
	for _, tc := range tests {
		w := limitWheel(t)
		for i, s := range tc.steps {
			var got []int
			n, done, err := w.AdvanceClockLimit(to, tc.limit, record(t, w, &got))
			ok(t, err)
			if !slices.Equal(got, s.fired) || n != len(s.fired) || done != s.done || w.NowIntervalNum() != s.now {
				t.Fatalf("limit %d call %d: fired %v (n %d), done %v, now interval %d; want %v, %v, %d",
					tc.limit, i, got, n, done, w.NowIntervalNum(), s.fired, s.done, s.now)
			}
			if !done {
				// Stopped early: the clock is at the start of the next
				// interval that still holds due alarms.
				if start, _ := w.IntervalNumStart(s.now); !w.Now().Equal(start) {
					t.Fatalf("stopped early at %v, want the interval start", w.Now().UnixNano())
				}
			} else if !w.Now().Equal(to) {
				t.Fatalf("done, Now %v, want %v", w.Now().UnixNano(), to.UnixNano())
			}
			inv(t, w)
		}
		// Once done, another call fires nothing and is done.
		n, done, err := w.AdvanceClockLimit(to, tc.limit, func(timingwheel.Fired[int]) { t.Fatal("fired after done") })
		if err != nil || n != 0 || !done || w.Len() != 1 {
			t.Fatalf("after done: %d %v %v, Len %d", n, done, err, w.Len())
		}
	}
	// A target at or before now: done at once, the clock stays.
	w := limitWheel(t)
	ok(t, w.AdvanceClock(atNs(100), nil))
	n, done, err := w.AdvanceClockLimit(atNs(50), 1, nil)
	if err != nil || n != 0 || !done || !w.Now().Equal(atNs(100)) {
		t.Fatalf("to before now: %d %v %v, now %v", n, done, err, w.Now().UnixNano())
	}
}

// Any split of an advance into limited calls fires what one AdvanceClock
// fires, in the same order.
func TestAdvanceClockLimitSplitsLikeOneAdvance(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 50; trial++ {
		bits := [][]int{{1, 1, 1}, {2, 2}, {3, 1, 2}, nil}[trial%4]
		c := wheelCfg{p: config.AlarmPrecision(r.IntN(4)), bits: bits, extend: bits != nil}
		w1 := mkWheel[int](t, c, atNs(0))
		w2 := mkWheel[int](t, c, atNs(0))
		for i := 0; i < 60; i++ {
			at := atNs(r.Int64N(400))
			for _, w := range []*timingwheel.Wheel[int]{w1, w2} {
				_, err := w.Add(at, i)
				ok(t, err)
			}
		}
		to := atNs(200 + r.Int64N(300))
		var want, got []int
		ok(t, w1.AdvanceClock(to, record(t, w1, &want)))
		for calls := 0; ; calls++ {
			if calls > 100 {
				t.Fatal("no progress")
			}
			_, done, err := w2.AdvanceClockLimit(to, 1+r.IntN(5), record(t, w2, &got))
			ok(t, err)
			inv(t, w2)
			if done {
				break
			}
		}
		if !slices.Equal(got, want) || !w1.Now().Equal(w2.Now()) || w1.Len() != w2.Len() {
			t.Fatalf("trial %d: limited calls fired %v, one advance %v", trial, got, want)
		}
	}
}

func TestAdvanceClockStopAtNextAlarm(t *testing.T) {
	// Precision 2^10 ns.
	w := mkWheel[int](t, wheelCfg{p: config.AboutOneMicrosecond}, atNs(0))
	// Empty: the clock goes to to.
	ok(t, w.AdvanceClockStopAtNextAlarm(atNs(500), nil))
	if !w.Now().Equal(atNs(500)) {
		t.Fatalf("empty wheel: Now %v", w.Now().UnixNano())
	}
	for i, at := range []int64{3000, 2500, 3000, 9000} {
		_, err := w.Add(atNs(at), i)
		ok(t, err)
	}
	steps := []struct {
		to    int64
		now   int64
		fired []int
	}{
		{2000, 2000, nil},            // before the first alarm: to
		{100, 2000, nil},             // never backwards
		{1 << 40, 2500, []int{1}},    // stops at the earliest alarm and fires it
		{1 << 40, 3000, []int{0, 2}}, // both alarms of that instant, in add order
		{5000, 5000, nil},
		{9000, 9000, []int{3}}, // to equal to the alarm time
		{1<<40 + 500, 1<<40 + 500, nil},
	}
	for i, s := range steps {
		var got []int
		ok(t, w.AdvanceClockStopAtNextAlarm(atNs(s.to), record(t, w, &got)))
		if !w.Now().Equal(atNs(s.now)) || !slices.Equal(got, s.fired) {
			t.Fatalf("step %d: now %d fired %v, want %d %v", i, w.Now().UnixNano(), got, s.now, s.fired)
		}
		inv(t, w)
	}
	// An alarm inside the current interval but before now fires at once,
	// without moving the clock.
	_, err := w.Add(w.Now().Add(-1), 7)
	ok(t, err)
	now := w.Now()
	var got []int
	ok(t, w.AdvanceClockStopAtNextAlarm(timingwheel.MaxTime, record(t, w, &got)))
	if !slices.Equal(got, []int{7}) || !w.Now().Equal(now) {
		t.Fatalf("fired %v, now moved from %v to %v", got, now.UnixNano(), w.Now().UnixNano())
	}
	// Handlers see Now() equal to their alarm's time; the loop ends at the
	// last alarm, even at MaxTime.
	_, err = w.Add(timingwheel.MaxTime, 8)
	ok(t, err)
	_, err = w.Add(timingwheel.MaxTime.Add(-time.Second), 9)
	ok(t, err)
	got = nil
	for calls := 0; !w.IsEmpty(); calls++ {
		if calls > 3 {
			t.Fatal("no progress")
		}
		ok(t, w.AdvanceClockStopAtNextAlarm(timingwheel.MaxTime, func(ev timingwheel.Fired[int]) {
			a := ev.Alarm

			at, _ := w.AlarmAt(a)
			if !at.Equal(w.Now()) {
				t.Fatalf("alarm at %v fired with Now %v", at, w.Now())
			}
			got = append(got, valueOf(t, w, a))
		}))
	}
	if !slices.Equal(got, []int{9, 8}) || !w.Now().Equal(timingwheel.MaxTime) {
		t.Fatalf("fired %v, now %v", got, w.Now())
	}
}

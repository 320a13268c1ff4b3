package timingwheel_test

// The queries agree with their definitions over All(), in every state the
// other tests reach, including the overdue state a panicking handler leaves.

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// consistent checks Len, IsEmpty, Mem, the min-interval queries and
// NextAlarmFiresAt against the alarms All() yields.
func consistent[T any](t *testing.T, w *timingwheel.Wheel[T]) {
	t.Helper()
	n := 0
	minN := int64(-1)
	var lo, hi time.Time
	for a := range w.All() {
		n++
		if !w.Mem(a) {
			t.Fatalf("All yields %v, which is not a member", a)
		}
		k, err1 := w.AlarmIntervalNum(a)
		at, err2 := w.AlarmAt(a)
		if err1 != nil || err2 != nil {
			t.Fatalf("accessors of %v: %v %v", a, err1, err2)
		}
		if k2, _ := w.IntervalNum(at); k2 != k {
			t.Fatalf("alarm at %v has interval %d, its time's is %d", at, k, k2)
		}
		switch {
		case minN < 0 || k < minN:
			minN, lo, hi = k, at, at
		case k == minN:
			if at.Before(lo) {
				lo = at
			}
			if at.After(hi) {
				hi = at
			}
		}
	}
	if n != w.Len() || (n == 0) != w.IsEmpty() {
		t.Fatalf("All yields %d alarms, Len %d, IsEmpty %v", n, w.Len(), w.IsEmpty())
	}
	k, okk := w.MinAlarmIntervalNum()
	l, okl := w.MinAlarmTimeInMinInterval()
	h, okh := w.MaxAlarmTimeInMinInterval()
	next, okn := w.NextAlarmFiresAt()
	if n == 0 {
		if okk || okl || okh || okn {
			t.Fatalf("empty wheel answers min queries: %v %v %v %v", okk, okl, okh, okn)
		}
		return
	}
	if !okk || k != minN || !okl || !l.Equal(lo) || !okh || !h.Equal(hi) {
		t.Fatalf("min interval %d %v [%v, %v]; over All: %d [%v, %v]", k, okk, l, h, minN, lo, hi)
	}
	if minN == w.MaxIntervalNum() {
		if okn {
			t.Fatalf("NextAlarmFiresAt %v with the minimum in the last interval", next)
		}
	} else if s, _ := w.IntervalNumStart(minN + 1); !okn || !next.Equal(s) {
		t.Fatalf("NextAlarmFiresAt %v %v, want %v", next, okn, s)
	}
}

// Random operations, handlers that panic included, on several configs;
// the queries are checked after every step.
func TestQueriesMatchAll(t *testing.T) {
	configs := []wheelCfg{
		{p: config.AboutOneMicrosecond},
		{p: config.OneNanosecond, bits: []int{1, 1, 1}, extend: true},
		{p: 2, bits: []int{2, 1}},
		{p: config.AboutOneMicrosecond, bits: []int{3, 3}, opts: []config.Option{config.WithOverflow()}},
		{p: config.AboutOneSecond, bits: []int{1}, extend: true},
		{p: config.AboutOneDay},      // [11 5]
		{p: config.MaxPrecisionLog2}, // two intervals in all: [0, 2^61) and [2^61, MaxTime]
		{p: 60, bits: []int{1}},      // four intervals, levels reach two
	}
	for ci, c := range configs {
		t.Run(fmt.Sprint(ci), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(ci), 99))
			w := mkWheel[int](t, c, atNs(r.Int64N(1<<20)))
			var hs []alarm.Alarm
			overdue := 0 // steps that end with alarms left due by a panic
			prec := int64(1) << c.p.Log2()
			// after returns now + d, capped a little past MaxTime so that
			// the sum cannot overflow (times past MaxTime exercise errors).
			after := func(d int64) time.Time {
				now := w.Now().UnixNano()
				return atNs(now + min(d, maxNs-now+r.Int64N(3)))
			}
			randTime := func() time.Time {
				switch r.IntN(5) {
				case 0:
					return after(r.Int64N(64))
				case 1:
					return after(r.Int64N(1 << 16))
				case 2:
					return after(r.Int64N(1 << 40))
				case 3:
					return after(r.Int64N(64) * prec)
				}
				return atNs(maxNs - r.Int64N(1<<12))
			}
			for step := 0; step < 1000; step++ {
				switch op := r.IntN(10); {
				case op < 4:
					if a, err := w.Add(randTime(), step); err == nil {
						hs = append(hs, a)
					}
				case op == 4 && len(hs) > 0:
					_ = w.Remove(hs[r.IntN(len(hs))])
				case op == 5 && len(hs) > 0:
					_ = w.Reschedule(hs[r.IntN(len(hs))], randTime())
				case op == 6:
					to := after(r.Int64N(8)*prec + r.Int64N(1<<12))
					switch r.IntN(50) {
					case 0:
						to = randTime() // sometimes far, even to the end of time
					case 1:
						to = atNs(r.Int64N(maxNs)) // often in the past: no-op
					}
					panicAt := r.IntN(4)
					seen := 0
					_ = panicsWith(func() {
						_ = w.AdvanceClock(to, func(timingwheel.Fired[int]) {
							seen++
							if seen == panicAt {
								panic("boom")
							}
						})
					})
				case op == 7:
					w.FirePastAlarms(nil)
				case op == 8:
					_, _, _ = w.AdvanceClockLimit(after(r.Int64N(1<<24)+r.Int64N(4)*prec), 1+r.IntN(3), nil)
				case op == 9 && r.IntN(20) == 0:
					w.Clear()
				}
				consistent(t, w)
				inv(t, w)
				if w.Stats().Due > 0 {
					overdue++
				}
			}
			if overdue == 0 && w.MaxIntervalNum() > 1<<20 {
				// (wheels of a handful of intervals reach the end of time
				// after one or two advances)
				t.Fatal("no step reached the overdue state")
			}
			t.Logf("%d of 1000 steps in the overdue state, %d alarms at the end", overdue, w.Len())
		})
	}
}

// The wheel's times are in UTC, whatever the location of the start: Start
// and Now are Equal to the times given, not ==, and so is Fired.At.
func TestTimesInUTC(t *testing.T) {
	start := time.Date(2025, 3, 9, 1, 30, 0, 0, time.FixedZone("EST", -5*3600))
	w, err := timingwheel.New[int](start, time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	at := start.Add(time.Second)
	if _, err := w.Add(at, 1); err != nil {
		t.Fatal(err)
	}
	var fired time.Time
	w.Step(func(f timingwheel.Fired[int]) { fired = f.At })
	for name, got := range map[string]time.Time{"Start": w.Start(), "Now": w.Now(), "Fired.At": fired} {
		if got.Location() != time.UTC {
			t.Errorf("%s in %v, want UTC", name, got.Location())
		}
	}
	if !w.Start().Equal(start) || !w.Now().Equal(at) || !fired.Equal(at) {
		t.Fatalf("Start %v, Now %v, Fired.At %v; want Equal to %v and %v", w.Start(), w.Now(), fired, start, at)
	}
}

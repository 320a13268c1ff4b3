package timingwheel_test

import (
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/internal/checked"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// A steady load allocates nothing: handing each fired alarm to the handler
// as a Fired value costs no allocation, in AdvanceClock as in the other
// firing calls.
func TestSteadyStateAllocatesNothing(t *testing.T) {
	if checked.On {
		t.Skip("checked mode runs Invariant, which allocates, after every call")
	}
	start := time.Unix(0, 0)
	w, err := timingwheel.New[int](start, time.Microsecond, timingwheel.WithCapacity(256))
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	h := func(f timingwheel.Fired[int]) { sum += f.Value }
	now := start
	step := func() {
		now = now.Add(time.Millisecond)
		if err := w.AdvanceClock(now, h); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := w.Add(now.Add(50*time.Millisecond), 1); err != nil {
				t.Fatal(err)
			}
		}
		w.FirePastAlarms(h)
		if err := w.AdvanceClockStopAtNextAlarm(now.Add(time.Millisecond/2), h); err != nil {
			t.Fatal(err)
		}
		if _, _, err := w.AdvanceClockLimit(now.Add(time.Millisecond/2+1), 1, h); err != nil {
			t.Fatal(err)
		}
	}
	// Reach the peak load and every slot's and bucket's peak size: after
	// 200 steps small mode's buckets still reach a new peak about once in
	// 100 steps (each one allocation), after 2000 no longer.
	for range 2000 {
		step()
	}
	// 100 steps a run: AllocsPerRun rounds down, so one step a run would
	// pass an allocation every few steps.
	if allocs := testing.AllocsPerRun(5, func() {
		for range 100 {
			step()
		}
	}); allocs != 0 {
		t.Fatalf("%v allocations per 100 steps in steady state, want 0", allocs)
	}
	if sum == 0 {
		t.Fatal("no alarm fired")
	}
}

// A simulation's Step loop allocates nothing once its load is seen, also at
// a precision whose intervals hold several times, where Next and Step order
// each interval's alarms by time (the step order's buffers are kept and
// reused).
func TestStepLoopAllocatesNothing(t *testing.T) {
	if checked.On {
		t.Skip("checked mode runs Invariant, which allocates, after every call")
	}
	for _, precision := range []time.Duration{time.Nanosecond, time.Microsecond} {
		w, err := timingwheel.New[int](time.Unix(0, 0), precision)
		if err != nil {
			t.Fatal(err)
		}
		x := uint64(1)
		delay := func() time.Duration { // 0 to 8 µs, many in one interval at 1 µs
			x = x*6364136223846793005 + 1442695040888963407
			return time.Duration(x >> 51)
		}
		fired := 0
		var h func(timingwheel.Fired[int])
		h = func(f timingwheel.Fired[int]) {
			fired++
			if _, err := w.Add(w.Now().Add(delay()), f.Value); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 64 {
			if _, err := w.Add(time.Unix(0, 0).Add(delay()), i); err != nil {
				t.Fatal(err)
			}
		}
		// 100 steps a run: AllocsPerRun rounds down, and an interval's
		// order is built once in a few steps.
		steps := func() {
			for range 100 {
				if _, ok := w.Next(); !ok {
					t.Fatal("no event")
				}
				w.Step(h)
			}
		}
		for range 200 { // reach the peak of every buffer
			steps()
		}
		if allocs := testing.AllocsPerRun(100, steps); allocs != 0 {
			t.Fatalf("precision %v: %v allocations per 100 steps in steady state, want 0", precision, allocs)
		}
		if fired == 0 {
			t.Fatal("no alarm fired")
		}
	}
}

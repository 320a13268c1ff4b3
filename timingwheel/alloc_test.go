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
	for range 200 { // reach the peak load and every slot's peak size
		step()
	}
	if allocs := testing.AllocsPerRun(500, step); allocs != 0 {
		t.Fatalf("%v allocations per step in steady state, want 0", allocs)
	}
	if sum == 0 {
		t.Fatal("no alarm fired")
	}
}

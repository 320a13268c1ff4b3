package simclock

import (
	"testing"
	"time"
	"unsafe"

	"github.com/gotimingwheel/timingwheel/internal/invtest"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// The clock's wheel keeps SW1 through scheduling, stopping and advancing, at
// 1 ns and at a coarse precision, and each clause of SW1 is caught when
// corrupted alone.
func TestWheelSW1(t *testing.T) {
	lb, err := levelbits.New(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range [][]Option{nil, {WithPrecision(8), WithLevelBits(lb), WithOverflow()}} {
		c := New(time.Unix(0, 0), opts...)
		var ts []Timer
		for i := range tinyMax + 50 { // past tiny mode: the wheel holds them
			ts = append(ts, c.AfterFunc(time.Duration(i*i*37+1), func() {}))
		}
		ts[7].Stop()
		c.Advance(1000)
		c.Step()
		checkClock(t, c, "after use")
		if c.w.q.Len() == 0 {
			t.Fatal("the wheel holds no timer")
		}
		// The key clause alone: now moves to the next interval.
		w := *c.w
		w.now += 1 << w.shift
		invtest.Expect(t, w.invariant(), "SW1")
		// The shift clause alone: at now = 0 every shift gives key 0.
		w = *New(time.Unix(0, 0), opts...).wheelOf()
		w.shift++
		invtest.Expect(t, w.invariant(), "SW1")
	}
}

// An AfterFunc timer, the kind a simulation makes most, fits the 64-byte
// size class: its channel and period live apart (timerExt).
func TestTimerSize(t *testing.T) {
	if n := unsafe.Sizeof(timer{}); n > 64 {
		t.Fatalf("a timer is %d bytes, more than the 64 of its size class", n)
	}
}

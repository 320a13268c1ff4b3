package simclock

import (
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/levelbits"
)

// A ticker nobody reads costs a few fires per advance, however many periods
// the advance passes (a 1 ns ticker over an hour is 3.6e12 periods).
func TestUnreadTickerIsO1PerAdvance(t *testing.T) {
	c := New(t0)
	tk := c.NewTicker(time.Nanosecond)
	for range 3 {
		if n := c.RunUntil(c.Now().Add(time.Hour)); n > 3 {
			t.Fatalf("Advance(1h) fired a 1 ns ticker %d times, want at most 3", n)
		}
	}
	if v := waiting(t, tk.C()); v.Sub(t0) != time.Nanosecond {
		t.Fatalf("the tick waiting is t0+%v, want the first, t0+1ns", v.Sub(t0))
	}
	// Received: the next tick is the first after the end of the last advance.
	c.Advance(time.Nanosecond)
	if v := waiting(t, tk.C()); v.Sub(t0) != 3*time.Hour+time.Nanosecond {
		t.Fatalf("tick t0+%v, want t0+3h0m0.000000001s", v.Sub(t0))
	}
	tk.Stop()
}

// A callback that drains the ticker in the middle of an advance receives the
// last tick at or before the advance's target: the ticks in between were
// skipped, as a slow receiver of a time.Ticker loses them.
func TestUnreadTickerDeliversTheLastTick(t *testing.T) {
	c := New(t0)
	tk := c.NewTicker(time.Second)
	defer tk.Stop()
	var got []time.Duration
	c.AfterFunc(2500*time.Millisecond, func() {
		got = append(got, waiting(t, tk.C()).Sub(t0)) // the first tick, 1s
	})
	c.Advance(10 * time.Second)
	if v := waiting(t, tk.C()); v.Sub(t0) != 10*time.Second {
		t.Fatalf("after the drain at 2.5s the channel holds t0+%v, want the last tick, t0+10s", v.Sub(t0))
	}
	if len(got) != 1 || got[0] != time.Second {
		t.Fatalf("the callback received %v, want [1s]", got)
	}
	// Stepping stops at every tick: nothing is skipped.
	for i := 11; i <= 13; i++ {
		c.Step()
		if v := waiting(t, tk.C()); v.Sub(t0) != time.Duration(i)*time.Second {
			t.Fatalf("Step delivered t0+%v, want t0+%ds", v.Sub(t0), i)
		}
	}
}

// An unread ticker's skip never goes past the wheel's reach. With short
// level bits and no WithOverflow the reach counts from the wheel's clock,
// which lags the advance's target while the advance takes its timers a chunk
// at a time; a skip to the last tick before the target then lay beyond it,
// and the advance panicked with ErrBeyondReach, the ticker stopped.
func TestUnreadTickerSkipStaysInReach(t *testing.T) {
	lb, err := levelbits.New(4, 4) // a reach of 256 ns
	if err != nil {
		t.Fatal(err)
	}
	c := New(t0, WithLevelBits(lb))
	tk := c.NewTicker(10)
	defer tk.Stop()
	fired := 0
	for i := range 300 {
		c.AfterFunc(time.Duration(1+i*249/299), func() { fired++ })
	}
	c.Advance(10000) // more than one chunk of 256 timers, far past the reach
	if fired != 300 || c.Waiters() != 1 {
		t.Fatalf("%d of 300 callbacks ran, Waiters %d (want the ticker, 1)", fired, c.Waiters())
	}
	if v := waiting(t, tk.C()).Sub(t0); v != 10 {
		t.Fatalf("the tick waiting is t0+%v, want the first, t0+10ns", v)
	}
	// The ticker still ticks: the next tick is the first after the advance's
	// end that it reaches by whole periods.
	c.Advance(10)
	if v := waiting(t, tk.C()).Sub(t0); v <= 10000 || v > 10010 || v%10 != 0 {
		t.Fatalf("the next tick is t0+%v, want a multiple of 10ns in (10000ns, 10010ns]", v)
	}
}

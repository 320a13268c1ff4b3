package simclock

import (
	"testing"
	"time"
)

// A ticker nobody reads costs a few fires per advance, however many periods
// the advance passes (a 1 ns ticker over an hour is 3.6e12 periods).
func TestUnreadTickerIsO1PerAdvance(t *testing.T) {
	c := New(t0)
	fires := 0
	c.trace = func(*timer) { fires++ }
	tk := c.NewTicker(time.Nanosecond)
	for range 3 {
		before := fires
		c.Advance(time.Hour)
		if n := fires - before; n > 3 {
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

package simclock

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/cmd/twsim/heaps"
)

// The baseline is the container/heap clock of the main job
// (cmd/twsim/heaps.Clock): the same AfterFunc/Stop/Advance semantics (time
// order, FIFO ties, callbacks unlocked on the advancing goroutine, each
// seeing its own time), the way Go simulators usually do it.

// delays returns n random delays below one simulated second, the same for
// every run.
func delays(n int) []time.Duration {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = time.Duration(r.Int64N(int64(time.Second)))
	}
	return ds
}

// BenchmarkAfterFuncAdvance schedules n AfterFunc timers at random delays
// and advances past all of them, on simclock and on the heap baseline, each on
// a new clock per iteration and on one clock reused. The ns/timer metric is
// the cost of one timer: schedule plus fire.
func BenchmarkAfterFuncAdvance(b *testing.B) {
	for _, n := range []int{100, 1_000, 10_000, 100_000, 1_000_000} {
		ds := delays(n)
		fired := 0
		f := func() { fired++ }
		b.Run(fmt.Sprintf("simclock/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				c := New(t0)
				for _, d := range ds {
					c.AfterFunc(d, f)
				}
				c.Advance(time.Second)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/timer")
		})
		b.Run(fmt.Sprintf("heap/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				c := heaps.NewClock(t0)
				for _, d := range ds {
					c.AfterFunc(d, f)
				}
				c.Advance(time.Second)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/timer")
		})
		// The same on one clock reused across iterations: the wheel's
		// records and slots, and the heap's slice, are grown already.
		b.Run(fmt.Sprintf("simclock-reused/n=%d", n), func(b *testing.B) {
			c := New(t0)
			b.ReportAllocs()
			for range b.N {
				for _, d := range ds {
					c.AfterFunc(d, f)
				}
				c.Advance(time.Second)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/timer")
		})
		b.Run(fmt.Sprintf("heap-reused/n=%d", n), func(b *testing.B) {
			c := heaps.NewClock(t0)
			b.ReportAllocs()
			for range b.N {
				for _, d := range ds {
					c.AfterFunc(d, f)
				}
				c.Advance(time.Second)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/timer")
		})
		if fired%n != 0 {
			b.Fatalf("%d fires, not a multiple of %d", fired, n)
		}
	}
}

// BenchmarkStopBeforeFire: the timeout pattern, where most timers are stopped
// before they fire: n timers scheduled, all stopped, then an advance.
func BenchmarkStopBeforeFire(b *testing.B) {
	const n = 100_000
	ds := delays(n)
	f := func() {}
	b.Run("simclock", func(b *testing.B) {
		b.ReportAllocs()
		ts := make([]Timer, n)
		for range b.N {
			c := New(t0)
			for i, d := range ds {
				ts[i] = c.AfterFunc(d, f)
			}
			for _, t := range ts {
				t.Stop()
			}
			c.Advance(time.Second)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/timer")
	})
	b.Run("heap", func(b *testing.B) {
		b.ReportAllocs()
		ts := make([]*heaps.ClockTimer, n)
		for range b.N {
			c := heaps.NewClock(t0)
			for i, d := range ds {
				ts[i] = c.AfterFunc(d, f)
			}
			for _, t := range ts {
				t.Stop()
			}
			c.Advance(time.Second)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/timer")
	})
}

// BenchmarkSteadyState: a clock holding n timers, where each fire schedules
// the next one (a simulation in steady state); ns/op is one fire plus one
// schedule.
func BenchmarkSteadyState(b *testing.B) {
	for _, n := range []int{1_000, 1_000_000} {
		ds := delays(n)
		b.Run(fmt.Sprintf("simclock/n=%d", n), func(b *testing.B) {
			c := New(t0)
			i := 0
			var f func()
			f = func() { i++; c.AfterFunc(ds[i%n], f) }
			for _, d := range ds {
				c.AfterFunc(d, f)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				c.Step()
			}
		})
		b.Run(fmt.Sprintf("heap/n=%d", n), func(b *testing.B) {
			c := heaps.NewClock(t0)
			i := 0
			var f func()
			f = func() { i++; c.AfterFunc(ds[i%n], f) }
			for _, d := range ds {
				c.AfterFunc(d, f)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				c.Step()
			}
		})
	}
}

// BenchmarkUnreadTicker: one Advance(10ms) over a 1 ns ticker nobody reads
// (1e7 periods), the case issue 16 measured at 205 ms per advance when every
// period fired.
func BenchmarkUnreadTicker(b *testing.B) {
	c := New(time.Time{})
	tk := c.NewTicker(time.Nanosecond)
	defer tk.Stop()
	for range b.N {
		c.Advance(10 * time.Millisecond)
	}
}

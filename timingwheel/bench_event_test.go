package timingwheel_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/cmd/twsim/heaps"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// BenchmarkEvent is the discrete-event loop of HOLD-EXACT (docs/workloads.md)
// at a few pending alarms: 1 ns precision, delays exponential with mean 1 ms;
// each step asks for the next alarm time, advances to it, fires what is due
// and adds one alarm per alarm fired. One op is one alarm fired and added.
// It runs the loop on the wheel, on package priorityqueue with the times as
// keys (the wheel's queue without its time.Time conversions and clock) and
// on the 4-ary heap of cmd/twsim, so that the wheel's fixed cost per event
// shows apart from what it pays for its structure.
//
// Its instruction counts do not depend on the machine's load, where its
// timings do (bench/scripts/instructions.sh).
func BenchmarkEvent(b *testing.B) {
	const mask = 1<<16 - 1
	r := rand.New(rand.NewPCG(1, 2))
	delays := make([]int64, mask+1)
	for i := range delays {
		delays[i] = int64(-math.Log(1-r.Float64())*1e6) + 1
	}
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprint("wheel/N=", n), func(b *testing.B) {
			w, err := timingwheel.New[int64](time.Unix(0, 0), time.Nanosecond)
			if err != nil {
				b.Fatal(err)
			}
			for i := range n {
				w.Add(time.Unix(0, delays[i]), 1)
			}
			fired, sum := 0, int64(0)
			h := func(f timingwheel.Fired[int64]) { sum += f.At.UnixNano(); fired++ }
			j := n
			b.ResetTimer()
			for i := 0; i < b.N; {
				t, _ := w.NextAlarmFiresAt()
				fired = 0
				if err := w.AdvanceClock(t, h); err != nil {
					b.Fatal(err)
				}
				for ; fired > 0; fired-- {
					w.Add(t.Add(time.Duration(delays[j&mask])), 1)
					j++
					i++
				}
			}
		})
		b.Run(fmt.Sprint("priorityqueue/N=", n), func(b *testing.B) {
			q := priorityqueue.New[int64](levelbits.Default(), 0)
			for i := range n {
				q.Add(delays[i], 1)
			}
			fired, sum := 0, int64(0)
			h := func(e priorityqueue.Element[int64]) { sum += e.Key; fired++ }
			j := n
			b.ResetTimer()
			for i := 0; i < b.N; {
				k, _ := q.MinKey()
				fired = 0
				if err := q.IncreaseMinAllowedKey(k+1, h); err != nil {
					b.Fatal(err)
				}
				for ; fired > 0; fired-- {
					if _, err := q.Add(k+1+delays[j&mask], 1); err != nil {
						b.Fatal(err)
					}
					j++
					i++
				}
			}
		})
		b.Run(fmt.Sprint("heap4/N=", n), func(b *testing.B) {
			h := heaps.NewHeap4(0)
			for i := range n {
				h.Add(delays[i])
			}
			fired, sum := 0, int64(0)
			f := func(at int64) { sum += at; fired++ }
			j := n
			b.ResetTimer()
			for i := 0; i < b.N; {
				t, _ := h.NextAlarmFiresAt()
				fired = 0
				h.AdvanceClock(t, f)
				for ; fired > 0; fired-- {
					h.Add(t + delays[j&mask])
					j++
					i++
				}
			}
		})
	}
}

// BenchmarkStepDense is a simulation's Step loop whose events are closer
// together than the precision: N pending events, each fired one scheduling
// the next at an exponential delay of mean 10 µs from Now(), at 1 ns and at
// 2^19 ns (time.Millisecond), where an interval holds about 50·N/1000
// events and every step adds into the interval it steps through. The
// precision should change little: compare each pair's instruction counts
// (bench/scripts/instructions.sh ./timingwheel StepDense).
func BenchmarkStepDense(b *testing.B) {
	const mask = 1<<16 - 1
	r := rand.New(rand.NewPCG(3, 4))
	delays := make([]time.Duration, mask+1)
	for i := range delays {
		delays[i] = time.Duration(-math.Log(1-r.Float64())*1e4) + 1
	}
	for _, n := range []int{100, 1000, 10000} {
		for _, p := range []time.Duration{time.Nanosecond, time.Millisecond} {
			b.Run(fmt.Sprintf("N=%d/%v", n, p), func(b *testing.B) {
				w, err := timingwheel.New[int](time.Unix(0, 0), p)
				if err != nil {
					b.Fatal(err)
				}
				j := 0
				h := func(timingwheel.Fired[int]) {
					j++
					if _, err := w.Add(w.Now().Add(delays[j&mask]), 0); err != nil {
						b.Fatal(err)
					}
				}
				for i := range n {
					if _, err := w.Add(time.Unix(0, 0).Add(delays[i&mask]), 0); err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					w.Next()
					w.Step(h)
				}
			})
		}
	}
}

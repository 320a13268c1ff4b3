package timingwheel_test

import (
	"fmt"
	"time"

	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// Add alarms, cancel one, and advance the clock: the alarms before the new
// time fire, in time order, on the caller's goroutine.
func Example() {
	start := time.Unix(1_700_000_000, 0)
	// Precision 1ms, rounded down to a power of two: 2^19 ns = 524.288µs.
	w, err := timingwheel.New[string](start, time.Millisecond)
	if err != nil {
		panic(err)
	}
	w.Add(start.Add(30*time.Millisecond), "retry")
	timeout, _ := w.Add(start.Add(10*time.Millisecond), "timeout")
	w.Add(start.Add(20*time.Millisecond), "flush")
	w.Add(start.Add(5*time.Millisecond), "ping")
	w.Remove(timeout) // cancelled: O(1)
	w.AdvanceClock(start.Add(25*time.Millisecond), func(f timingwheel.Fired[string]) {
		fmt.Println("fired", f.Value, "due at +", f.At.Sub(start))
	})
	fmt.Println("left:", w.Len())
	// Output:
	// fired ping due at + 5ms
	// fired flush due at + 20ms
	// left: 1
}

// AdvanceClockLimit bounds the work of one call: it stops once it has fired
// at least limit alarms, after finishing the interval it is in, and the next
// call with the same target continues where it stopped.
func ExampleWheel_AdvanceClockLimit() {
	w, _ := timingwheel.New[string](time.Unix(0, 0), time.Millisecond)
	for n := int64(1); n <= 4; n++ { // three alarms in each of intervals 1..4
		for j := 0; j < 3; j++ {
			w.AddAtIntervalNum(n, fmt.Sprintf("%d.%d", n, j))
		}
	}
	to, _ := w.IntervalNumStart(10)
	for {
		var fired []string
		n, done, err := w.AdvanceClockLimit(to, 4, func(f timingwheel.Fired[string]) {
			fired = append(fired, f.Value)
		})
		if err != nil {
			panic(err)
		}
		fmt.Println(n, fired, "done:", done, "now at interval", w.NowIntervalNum())
		if done {
			break
		}
	}
	// Output:
	// 6 [1.0 1.1 1.2 2.0 2.1 2.2] done: false now at interval 3
	// 6 [3.0 3.1 3.2 4.0 4.1 4.2] done: true now at interval 10
}

// After a burst, Shrink gives back the memory of the records the burst used,
// and every live handle keeps working.
func ExampleWheel_Shrink() {
	start := time.Unix(0, 0)
	w, _ := timingwheel.New[int](start, time.Microsecond)
	var hs []timingwheel.Alarm
	for i := 0; i < 3000; i++ {
		a, _ := w.Add(start.Add(time.Duration(i)*time.Microsecond), i)
		hs = append(hs, a)
	}
	for i, a := range hs {
		if i%1000 != 0 { // keep 0, 1000 and 2000
			w.Remove(a)
		}
	}
	before := w.Stats()
	w.Shrink()
	after := w.Stats()
	fmt.Println("live:", after.Live, "added:", after.Added, "removed:", after.Removed)
	fmt.Println("records: before Shrink at least 3000:", before.Capacity >= 3000,
		"| after, under 300:", after.Capacity < 300)
	fmt.Println("bytes held went down:", after.BytesHeld < before.BytesHeld)
	w.Reschedule(hs[2000], start.Add(time.Microsecond)) // an old handle, still valid
	w.AdvanceClock(start.Add(time.Second), func(f timingwheel.Fired[int]) {
		fmt.Println("fired", f.Value)
	})
	// Output:
	// live: 3 added: 3000 removed: 2997
	// records: before Shrink at least 3000: true | after, under 300: true
	// bytes held went down: true
	// fired 0
	// fired 2000
	// fired 1000
}

// Step fires one event time per call, with Now() at that time, so a handler
// schedules its follow-up relative to Now(). Here each ping schedules a pong
// 150µs later, inside the same 524µs interval; the pong still fires at its
// own time. On an empty wheel Step returns false and the clock stays.
func ExampleWheel_Step() {
	start := time.Unix(0, 0)
	w, _ := timingwheel.New[string](start, time.Millisecond) // 2^19 ns intervals
	w.Add(start.Add(100*time.Microsecond), "ping")
	w.Add(start.Add(200*time.Microsecond), "ping")
	handle := func(f timingwheel.Fired[string]) {
		fmt.Println(w.Now().Sub(start), f.Value)
		if f.Value == "ping" {
			w.Add(w.Now().Add(150*time.Microsecond), "pong")
		}
	}
	for w.Step(handle) {
	}
	fmt.Println("clock stays at", w.Now().Sub(start))
	// Output:
	// 100µs ping
	// 200µs ping
	// 250µs pong
	// 350µs pong
	// clock stays at 350µs
}

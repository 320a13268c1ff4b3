package timingwheel_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// BenchmarkCheckedSimulation is the price of checked mode on a simulation
// that keeps 20,000 events pending at 1 ns precision: each step reads the
// time of the next event (MinAlarmTimeInMinInterval), steps the wheel to it
// (AdvanceClockStopAtNextAlarm) and adds one event per event fired, a
// delay later (exponential, mean 1 ms, as BenchmarkEvent). One op is one
// event fired and added. Run it with and without the tag, and compare:
//
//	go test -run '^$' -bench CheckedSimulation -count 5 ./timingwheel
//	go test -tags twcheck -run '^$' -bench CheckedSimulation -count 5 ./timingwheel
//
// With the tag the whole Invariant() runs once per as many calls that
// change the queue as the wheel has slots and records (about 27,000 here:
// once per about 13,000 events, two such calls each), so a measurement
// needs far more events than that: at the default -benchtime it has
// millions. TWCHECK=full, the whole check after every call, makes an op
// cost milliseconds here. On a loaded machine compare CPU time rather than
// ns/op: run the test binary at -benchtime 400000x and 800000x (-cpu 1)
// under perf stat -e task-clock and divide the difference by 400,000
// (docs/invariants.md, Checked mode, gives the numbers: about 5x).
func BenchmarkCheckedSimulation(b *testing.B) {
	for _, mean := range []time.Duration{time.Millisecond, time.Microsecond} {
		b.Run("mean="+mean.String(), func(b *testing.B) { checkedSimulation(b, mean) })
	}
}

func checkedSimulation(b *testing.B, mean time.Duration) {
	const n, mask = 20_000, 1<<16 - 1
	r := rand.New(rand.NewPCG(3, 4))
	delays := make([]time.Duration, mask+1)
	for i := range delays {
		delays[i] = time.Duration(-math.Log(1-r.Float64())*float64(mean)) + 1
	}
	w, err := timingwheel.New[int](time.Unix(0, 0), time.Nanosecond)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		if _, err := w.Add(w.Now().Add(delays[i]), i); err != nil {
			b.Fatal(err)
		}
	}
	fired := 0
	h := func(timingwheel.Fired[int]) { fired++ }
	j := n
	step := func() int {
		t, _ := w.MinAlarmTimeInMinInterval()
		fired = 0
		if err := w.AdvanceClockStopAtNextAlarm(t, h); err != nil {
			b.Fatal(err)
		}
		k := fired
		for ; fired > 0; fired-- {
			if _, err := w.Add(w.Now().Add(delays[j&mask]), j); err != nil {
				b.Fatal(err)
			}
			j++
		}
		return k
	}
	for i := 0; i < 4*n; { // warm up: every level in use, a few whole checks run
		i += step()
	}
	b.ResetTimer()
	for i := 0; i < b.N; {
		i += step()
	}
	b.StopTimer()
	if w.Len() != n {
		b.Fatalf("Len %d, want %d", w.Len(), n)
	}
}

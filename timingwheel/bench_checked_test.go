package timingwheel

// Checked mode (-tags twcheck) must cost nothing when it is off: every hook
// is `if checked.On { ... }` with On a constant false, which the compiler
// deletes. BenchmarkCheckedMode measures it two ways.
//
//  1. In the default build, the pair Reschedule / Reschedule-no-hook: the
//     second is a copy of Reschedule's body without its hook.
//
//  2. Across builds, the same benchmark with and without the tag:
//
//     go test -run '^$' -bench CheckedMode/Reschedule$ -benchtime=200ms ./timingwheel
//     go test -tags twcheck -run '^$' -bench CheckedMode/Reschedule$ -benchtime=200ms ./timingwheel
//
//     With the tag every call runs the local checks of what it touched
//     and, on a schedule, the whole Invariant() (docs/invariants.md,
//     Checked mode), so the ratio is the price of turning checks on;
//     BenchmarkCheckedSimulation measures it on a simulation.
//
// Measured on the shared 2-core machine (load 2.5), Go 1.26, seven
// interleaved runs each, min / median: default build, Reschedule 37.5 /
// 38.1 ns/op and Reschedule-no-hook 37.2 / 37.6 ns/op (ratio 1.01, within
// noise). (Under load 5-9 the same runs varied 3x from one to the next.)
//
// Timing cannot show "nothing" better than that, but the compiled code can. In the default test binary Reschedule and
// rescheduleNoHook have the same size (473 bytes) and the same instructions
// (go tool objdump, addresses aside); with -tags twcheck Reschedule grows to
// 725 bytes, and only that binary has the (*Wheel).check symbols:
//
//	go test -c -o tw.test ./timingwheel
//	go tool nm -size tw.test | grep -E '\.(Reschedule|rescheduleNoHook)$'

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
)

// rescheduleNoHook is Reschedule without its checked-mode hook. Keep it in
// step with Reschedule.
func (w *Wheel[T]) rescheduleNoHook(a alarm.Alarm, at time.Time) error {
	ns, ok := nanos(at)
	if !ok {
		ns = outside(at)
	}
	if err := w.q.Change(a, ns); err != nil {
		return w.rangeError(err, w.key(ns), at, false)
	}
	return nil
}

func BenchmarkCheckedMode(b *testing.B) {
	const n = 1000
	cfg, err := config.New(config.AboutOneMicrosecond)
	if err != nil {
		b.Fatal(err)
	}
	w, err := NewWithConfig[int](cfg, time.Unix(1_700_000_000, 0))
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	offs := make([]time.Duration, 1<<12)
	for i := range offs {
		offs[i] = 100*time.Millisecond + time.Duration(r.Int64N(int64(200*time.Millisecond)))
	}
	hs := make([]alarm.Alarm, n)
	for i := range hs {
		if hs[i], err = w.Add(w.Now().Add(offs[i]), i); err != nil {
			b.Fatal(err)
		}
	}
	run := func(move func(alarm.Alarm, time.Time) error) func(*testing.B) {
		return func(b *testing.B) {
			for i := 0; i < 2*n; i++ { // warm up
				if err := move(hs[i%n], w.Now().Add(offs[i&(len(offs)-1)])); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := move(hs[i%n], w.Now().Add(offs[i&(len(offs)-1)])); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.Run("Reschedule", run(w.Reschedule))
	b.Run("Reschedule-no-hook", run(w.rescheduleNoHook))
}

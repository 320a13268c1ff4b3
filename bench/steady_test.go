package bench

import (
	"runtime"
	"testing"

	"github.com/gotimingwheel/timingwheel/cmd/twsim/workload"
)

// BenchmarkSteadyHold measures allocations in the steady state of the HOLD
// loop (docs/workloads.md, precision 2^10 ns or, for Exact, 1 ns): N alarms are
// added and then churned through warm events untimed, so that every slot has
// reached its peak size, and then b.N more events are measured. The
// workloads' own runs start timing right after the fill, while slots are
// still growing; this shows what remains once they have grown.
func BenchmarkSteadyHold(b *testing.B) {
	for _, c := range []struct {
		name  string
		exact bool
		n     int
	}{{"HOLD/N=1e5", false, 1e5}, {"HOLD-EXACT/N=1e5", true, 1e5}, {"HOLD/N=1e6", false, 1e6}, {"HOLD-EXACT/N=1e6", true, 1e6}} {
		b.Run(c.name, func(b *testing.B) {
			bits := uint(10)
			if c.exact {
				bits = 0
			}
			const warm = 20_000_000
			r := workload.NewSplitMix64(uint64(c.n))
			samples := make([]int64, 1<<22)
			for i := range samples {
				samples[i] = r.ExpSample(1e6)
			}
			t := workload.NewWheel(bits)
			idx := 0
			next := func() int64 { s := samples[idx&(len(samples)-1)]; idx++; return s }
			for i := 0; i < c.n; i++ {
				t.Add(next())
			}
			count := 0
			handler := func(int64) { count++ }
			// run fires events until at least k have fired, re-adding each.
			run := func(k int) {
				for fired := 0; fired < k; {
					at, ok := t.NextAlarmFiresAt()
					if !ok {
						b.Fatal("empty")
					}
					count = 0
					t.AdvanceClock(at, handler)
					for j := 0; j < count; j++ {
						t.Add(at + next())
					}
					fired += count
				}
			}
			run(warm)
			b.ReportAllocs()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			b.ResetTimer()
			run(b.N)
			b.StopTimer()
			runtime.ReadMemStats(&m1)
			// allocs/op rounds down; this is the exact count.
			b.ReportMetric(float64(m1.Mallocs-m0.Mallocs), "mallocs")
			if t.Len() != c.n {
				b.Fatalf("%d live, want %d", t.Len(), c.n)
			}
		})
	}
}

package bench

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/cmd/twsim/heaps"
	"github.com/gotimingwheel/timingwheel/cmd/twsim/workload"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// The benchmarks run the workloads of docs/workloads.md (cmd/twsim/workload) on
// the wheel and the two heaps. Each iteration runs the whole workload; the
// reported ns/op is the workload's own ns_per_op (its timed region only: the
// pre-generation of the random numbers and the fill are not counted), and
// allocs/op the allocations per op inside the timed region, both averaged
// over the iterations. Run one iteration each, many times, and compare with
// benchstat:
//
//	go test -run '^$' -bench 'Workload/HOLD/N=1e6' -benchtime 1x -count 10 | tee new.txt
//
// HOLD and HOLD-EXACT run with their full H (5e6 and 2e6 fired events)
// unless -short, which takes H = 2e5 (the ns/op is then not the reference
// one, though close).

func wheelT(b uint) workload.Timers[alarm.Alarm]   { return workload.NewWheel(b) }
func heap2T(b uint) workload.Timers[*heaps.Item]   { return heaps.NewHeap2(b) }
func heap4T(b uint) workload.Timers[heaps.Handle4] { return heaps.NewHeap4(b) }

// impls are the implementations compared, by name.
var impls = []string{"wheel", "heap2", "heap4"}

// Run runs one workload on the named implementation. kind is HOLD,
// HOLD-EXACT, TIMEOUT, TIMEOUT-1M, SPARSE, SPARSE_P10 or SPARSE_PACKED; n is
// the size for HOLD and HOLD-EXACT; h overrides their H when > 0.
func run(impl, kind string, n, h int) workload.Result {
	switch impl {
	case "heap2":
		return runOn(heap2T, kind, n, h)
	case "heap4":
		return runOn(heap4T, kind, n, h)
	}
	return runOn(wheelT, kind, n, h)
}

func runOn[H any](newT func(uint) workload.Timers[H], kind string, n, h int) workload.Result {
	switch kind {
	case "HOLD":
		return workload.Hold(newT, n, false, h, false)
	case "HOLD-EXACT":
		return workload.Hold(newT, n, true, h, false)
	case "TIMEOUT":
		return workload.Timeout(newT, false, false)
	case "TIMEOUT-1M":
		return workload.Timeout(newT, true, false)
	case "SPARSE":
		return workload.Sparse(newT, 0, false, false)
	case "SPARSE_P10":
		return workload.Sparse(newT, 10, false, false)
	case "SPARSE_PACKED":
		return workload.Sparse(newT, 0, true, false)
	}
	panic("unknown workload " + kind)
}

func benchWorkload(b *testing.B, impl, kind string, n int) {
	h := 0
	if testing.Short() {
		h = 200_000
	}
	var ns, allocs float64
	var cs uint64
	for i := 0; i < b.N; i++ {
		r := run(impl, kind, n, h)
		if i > 0 && r.Checksum != cs {
			b.Fatalf("checksum %d, then %d", cs, r.Checksum)
		}
		cs = r.Checksum
		ns += r.NsPerOp
		allocs += r.AllocsPerOp
	}
	b.ReportMetric(ns/float64(b.N), "ns/op")
	b.ReportMetric(allocs/float64(b.N), "allocs/op")
}

func BenchmarkWorkload(b *testing.B) {
	type wl struct {
		kind string
		ns   []int
	}
	for _, w := range []wl{
		{"HOLD", []int{1e3, 1e5, 1e6}},
		{"HOLD-EXACT", []int{1e3, 1e5, 1e6}},
		{"TIMEOUT", nil},
		{"TIMEOUT-1M", nil},
		{"SPARSE", nil},
		{"SPARSE_P10", nil},
		{"SPARSE_PACKED", nil},
	} {
		sizes := w.ns
		if sizes == nil {
			sizes = []int{0}
		}
		for _, n := range sizes {
			name := w.kind
			if n > 0 {
				name += "/N=" + sizeName(n)
			}
			for _, impl := range impls {
				b.Run(name+"/"+impl, func(b *testing.B) { benchWorkload(b, impl, w.kind, n) })
			}
		}
	}
}

// sizeName writes 1000 as 1e3.
func sizeName(n int) string {
	e := 0
	for m := n; m >= 10 && m%10 == 0; m /= 10 {
		e++
	}
	if n == pow10(e) {
		return fmt.Sprintf("1e%d", e)
	}
	return fmt.Sprint(n)
}

func pow10(e int) int {
	p := 1
	for ; e > 0; e-- {
		p *= 10
	}
	return p
}

// BenchmarkReschedule moves one of 1e6 live alarms per op to a new time, with
// Reschedule or with Remove plus Add (issue 6, item 4). The wheel has
// precision 2^10 ns; each op takes the next alarm of a random permutation and
// moves it to now + a random delay up to about 1 ms, as a retransmit timer
// reset on every acknowledgement. Steady state: 0 allocs/op.
func BenchmarkReschedule(b *testing.B) {
	const live = 1_000_000
	for _, how := range []string{"Reschedule", "RemoveAdd"} {
		b.Run(how, func(b *testing.B) {
			cfg, err := config.New(config.AlarmPrecision(10))
			if err != nil {
				b.Fatal(err)
			}
			start := time.Unix(0, 0)
			w, err := timingwheel.NewWithConfig[int64](cfg, start)
			if err != nil {
				b.Fatal(err)
			}
			r := workload.NewSplitMix64(live)
			hs := make([]alarm.Alarm, live)
			for i := range hs {
				at := r.ExpSample(1e6)
				if hs[i], err = w.Add(start.Add(time.Duration(at)), at); err != nil {
					b.Fatal(err)
				}
			}
			order := make([]int32, live)
			for i := range order {
				order[i] = int32(i)
			}
			// Fisher-Yates with the workloads' generator: a random visiting order.
			for i := live - 1; i > 0; i-- {
				j := int(r.Next() % uint64(i+1))
				order[i], order[j] = order[j], order[i]
			}
			delays := make([]time.Duration, 1<<16)
			for i := range delays {
				delays[i] = time.Duration(r.UniformInt(0, 1<<20))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := order[i%live]
				at := start.Add(delays[i&(1<<16-1)])
				if how == "Reschedule" {
					if err := w.Reschedule(hs[k], at); err != nil {
						b.Fatal(err)
					}
					continue
				}
				if err := w.Remove(hs[k]); err != nil {
					b.Fatal(err)
				}
				if hs[k], err = w.Add(at, int64(k)); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if w.Len() != live {
				b.Fatalf("%d alarms live, want %d", w.Len(), live)
			}
			_ = slices.Max(order)
		})
	}
}

package workload

import (
	"fmt"
	"runtime"
	"slices"
	"time"
)

const mod61 = uint64(1) << 61

// checksum adds at mod 2^61 to cs, mod 2^61.
func checksum(cs uint64, at int64) uint64 { return (cs + uint64(at)%mod61) % mod61 }

// Result is one workload's outcome.
type Result struct {
	Name          string  // HOLD, TIMEOUT, ...
	N             int     // the N of the result line
	NsPerOp       float64 // the third column (bytes per alarm for MEM)
	Checksum      uint64
	AllocsPerOp   float64 // heap allocations per op in the timed region
	BytesPerAlarm float64 // MEM only
	Comments      []string
	Counts        string // the counts alone, equal across implementations
	Err           error  // from Check, when asked
}

// Line is the result line of workloads.md: "WORKLOAD N ns_per_op checksum".
func (r Result) Line() string {
	return fmt.Sprintf("%s %d %.1f %d", r.Name, r.N, r.NsPerOp, r.Checksum)
}

// Progress, when set, is called now and then during long loops.
var Progress func(name string, done, total int)

func progress(name string, done, total int) {
	if Progress != nil {
		Progress(name, done, total)
	}
}

// mallocs returns the number of heap allocations so far.
func mallocs() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs
}

// Hold runs HOLD (b = 10, seed N, H = 5,000,000) or, with exact set,
// HOLD-EXACT (b = 0, seed N+7, H = 2,000,000). h overrides H when > 0.
func Hold[H any](newT func(b uint) Timers[H], n int, exact bool, h int, check bool) Result {
	name, b, seed, hh := "HOLD", uint(10), uint64(n), 5_000_000
	if exact {
		name, b, seed, hh = "HOLD-EXACT", 0, uint64(n+7), 2_000_000
	}
	if h > 0 {
		hh = h
	}
	r := NewSplitMix64(seed)
	sample := make([]int64, 2*n+hh)
	for i := range sample {
		sample[i] = r.ExpSample(1e6)
	}
	t := newT(b)
	for i := 0; i < n; i++ {
		t.Add(sample[i])
	}
	idx, fired, steps := n, 0, 0
	var cs uint64
	c := 0
	handler := func(at int64) { c++; cs = checksum(cs, at) }
	runtime.GC()
	m0 := mallocs()
	start := time.Now()
	for fired < hh {
		next, ok := t.NextAlarmFiresAt()
		if !ok {
			panic("hold: no next alarm")
		}
		c = 0
		t.AdvanceClock(next, handler)
		for j := 0; j < c; j++ {
			t.Add(next + sample[idx])
			idx++
		}
		fired += c
		steps++
		if steps&0xffff == 0 {
			progress(name, fired, hh)
		}
	}
	elapsed := time.Since(start)
	m1 := mallocs()
	res := Result{Name: name, N: n, NsPerOp: float64(elapsed.Nanoseconds()) / float64(fired), Checksum: cs,
		AllocsPerOp: float64(m1-m0) / float64(fired)}
	res.Counts = fmt.Sprintf("steps=%d fired=%d samples_used=%d live=%d", steps, fired, idx, t.Len())
	res.Comments = append(res.Comments, fmt.Sprintf("# %s N=%d %s", name, n, res.Counts))
	if check {
		res.Err = t.Check()
	}
	return res
}

// Timeout runs TIMEOUT (seed 42, P = 400, W = 2000, M = 10000) or, with big
// set, TIMEOUT-1M (seed 43, P = 4000, W = 500, M = 2000).
func Timeout[H any](newT func(b uint) Timers[H], big bool, check bool) Result {
	name, seed, p, w, m := "TIMEOUT", uint64(42), 400, 2000, 10000
	if big {
		name, seed, p, w, m = "TIMEOUT-1M", 43, 4000, 500, 2000
	}
	s := w + m
	r := NewSplitMix64(seed)
	delay := make([]int64, s*p)
	rem := make([]int32, s*p)
	for step := 1; step <= s; step++ {
		for j := 0; j < p; j++ {
			i := (step-1)*p + j
			delay[i] = r.UniformInt(10_000_000, 1_000_000_000)
			if u := r.Unif(); u < 0.9 {
				rem[i] = int32(r.UniformInt(int64(step+1), int64(step)+delay[i]/1_000_000))
			}
		}
	}
	t := newT(20)
	const ring = 1024 // a removal is at most 1000 steps after its add
	buckets := make([][]H, ring)
	var cs uint64
	var adds, removes, fires int    // all steps
	var tAdds, tRemoves, tFires int // timed steps
	var liveAfterWarmup int
	handler := func(at int64) { fires++; cs = checksum(cs, at) }
	var start time.Time
	var m0 uint64
	for k := 1; k <= s; k++ {
		if k == w+1 {
			liveAfterWarmup = t.Len()
			tAdds, tRemoves, tFires = adds, removes, fires
			runtime.GC()
			m0 = mallocs()
			start = time.Now()
		}
		now := int64(k) * 1_000_000
		t.AdvanceClock(now, handler)
		bucket := buckets[k%ring]
		for x := len(bucket) - 1; x >= 0; x-- { // LIFO; the order does not matter
			t.Remove(bucket[x])
			removes++
		}
		clear(bucket)
		buckets[k%ring] = bucket[:0]
		for j := 0; j < p; j++ {
			i := (k-1)*p + j
			h := t.Add(now + delay[i])
			adds++
			if rs := int(rem[i]); rs >= 1 && rs <= s {
				buckets[rs%ring] = append(buckets[rs%ring], h)
			}
		}
		if k&63 == 0 {
			progress(name, k, s)
		}
	}
	elapsed := time.Since(start)
	m1 := mallocs()
	ops := (adds - tAdds) + (removes - tRemoves) + (fires - tFires)
	res := Result{Name: name, N: p, NsPerOp: float64(elapsed.Nanoseconds()) / float64(ops), Checksum: cs,
		AllocsPerOp: float64(m1-m0) / float64(ops)}
	res.Counts = fmt.Sprintf("steps=%d adds=%d removes=%d fires=%d live_end=%d timed_ops=%d live_after_warmup=%d",
		s, adds, removes, fires, t.Len(), ops, liveAfterWarmup)
	res.Comments = append(res.Comments, fmt.Sprintf("# %s N=%d steps=%d adds=%d removes=%d fires=%d live_end=%d timed_ops=%d",
		name, p, s, adds, removes, fires, t.Len(), ops))
	if big {
		res.Comments = append(res.Comments, fmt.Sprintf("# %s warm_steps=%d live_after_warmup=%d total_adds=%d total_removes=%d",
			name, w, liveAfterWarmup, adds, removes))
	}
	if check {
		res.Err = t.Check()
	}
	return res
}

// Sparse runs SPARSE (seed 7, 10,000 alarms uniform over [0, 2^50), 21
// repetitions, median) at precision 2^b; b = 10 gives the SPARSE_P10 line.
// With packed set, the same times are taken mod 2^14 (a short span), the
// baseline the sparse cost is compared with.
func Sparse[H any](newT func(b uint) Timers[H], b uint, packed bool, check bool) Result {
	name := "SPARSE"
	if b == 10 {
		name = "SPARSE_P10"
	}
	if packed {
		name += "_PACKED"
	}
	r := NewSplitMix64(7)
	times := make([]int64, 10000)
	for i := range times {
		times[i] = int64(r.Next() >> 14)
		if packed {
			times[i] &= 1<<14 - 1
		}
	}
	type rep struct{ total, fill, drain time.Duration }
	var reps []rep
	var cs uint64
	steps := 0
	var res Result
	var allocs uint64
	for k := 0; k < 21; k++ {
		t := newT(b)
		runtime.GC()
		m0 := mallocs()
		start := time.Now()
		for _, at := range times {
			t.Add(at)
		}
		mid := time.Now()
		var c uint64
		n := 0
		handler := func(at int64) { c = checksum(c, at) }
		for t.Len() > 0 {
			next, ok := t.NextAlarmFiresAt()
			if !ok {
				panic("sparse: no next alarm")
			}
			t.AdvanceClock(next, handler)
			n++
		}
		end := time.Now()
		allocs += mallocs() - m0
		reps = append(reps, rep{end.Sub(start), mid.Sub(start), end.Sub(mid)})
		cs, steps = c, n
		if check && k == 0 {
			res.Err = t.Check()
		}
	}
	slices.SortFunc(reps, func(x, y rep) int { return int(x.total - y.total) })
	med := reps[len(reps)/2]
	res.Name, res.N, res.Checksum = name, len(times), cs
	res.NsPerOp = float64(med.total.Nanoseconds()) / float64(len(times))
	res.AllocsPerOp = float64(allocs) / float64(21*2*len(times))
	res.Counts = fmt.Sprintf("advance_steps=%d", steps)
	res.Comments = append(res.Comments, fmt.Sprintf("# %s N=%d fill_ns=%d drain_ns=%d advance_steps=%d reps=21 (median)",
		name, len(times), med.fill.Nanoseconds(), med.drain.Nanoseconds(), steps))
	return res
}

// Mem runs MEM: the live heap per alarm after adding N = 1,000,000 alarms
// (seed N, b = 10, times the first N exp_sample(1e6) values), wheel included.
// newT is called between the heap readings, so its empty size is measured.
func Mem[H any](newT func(b uint) Timers[H], n int) Result {
	heapLive := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	r := NewSplitMix64(uint64(n))
	m0 := heapLive()
	t := newT(10)
	mEmpty := heapLive()
	var sum uint64
	for i := 0; i < n; i++ {
		at := r.ExpSample(1e6)
		t.Add(at)
		sum = checksum(sum, at)
	}
	m1 := heapLive()
	perAlarm := (float64(m1) - float64(m0)) / float64(n)
	res := Result{Name: "MEM", N: n, NsPerOp: perAlarm, BytesPerAlarm: perAlarm, Checksum: sum}
	res.Comments = append(res.Comments, fmt.Sprintf("# MEM N=%d bytes_per_alarm=%.1f without_empty_wheel=%.1f empty_wheel_bytes=%d live=%d",
		n, perAlarm, (float64(m1)-float64(mEmpty))/float64(n), int64(mEmpty)-int64(m0), t.Len()))
	runtime.KeepAlive(t)
	return res
}

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
	Name          string        // HOLD, TIMEOUT, ...
	N             int           // the N of the result line
	NsPerOp       float64       // the third column (bytes per alarm for MEM)
	Checksum      uint64        // the fourth column
	AllocsPerOp   float64       // heap allocations per op in the timed region
	BytesPerAlarm float64       // live heap of the timers per live alarm; 0 when not measured
	Elapsed       time.Duration // the timed region (SPARSE: the median repetition)
	Comments      []string      // the "#" lines of docs/workloads.md
	Counts        string        // the counts alone, equal across implementations
	Err           error         // from Check, when asked
}

// Line is the result line of docs/workloads.md: "WORKLOAD N ns_per_op checksum".
func (r Result) Line() string {
	return fmt.Sprintf("%s %d %.1f %d", r.Name, r.N, r.NsPerOp, r.Checksum)
}

// Now is the clock the timed regions are measured with: the monotonic wall
// clock, as docs/workloads.md asks. twsim -clock thread replaces it with the
// thread's CPU time, which a busy machine disturbs less (for A/B
// comparisons; the reference figures use the wall clock).
var Now = func() time.Duration { return time.Duration(time.Since(epoch)) }

var epoch = time.Now()

// Progress, when set, is called now and then during long loops with the
// fraction done so far.
var Progress func(name string, done, total int)

// Timed, when set, is called with on = true just before each timed region
// starts and with on = false just after it ends (twsim labels the CPU
// profile's samples with it, so that a profile can show the timed region
// alone). It must not allocate much.
var Timed func(name string, on bool)

func timed(name string, on bool) {
	if Timed != nil {
		Timed(name, on)
	}
}

func progress(name string, done, total int) {
	if Progress != nil {
		Progress(name, done, total)
	}
}

// memStats runs no GC; it returns the live heap and the allocation count.
func memStats() (heap, mallocs uint64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, ms.Mallocs
}

// heapAfterGC collects garbage and returns the live heap. It collects twice:
// objects in sync.Pool's victim cache (fmt's buffers, among others) survive
// one collection, so after one a reading held a few hundred bytes that the
// next no longer did (on linux/386 CLOCK-NEW's live heap per timer read -8
// bytes in cmd/twsim's tests).
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	h, _ := memStats()
	return h
}

// perAlarm returns (after - before) / n as a float, allowing after < before.
func perAlarm(before, after uint64, n int) float64 {
	if n == 0 {
		return 0
	}
	return (float64(after) - float64(before)) / float64(n)
}

// Hold runs HOLD (b = 10, seed N, H = 5,000,000) or, with exact set,
// HOLD-EXACT (b = 0, seed N+7, H = 2,000,000). h overrides H when > 0 (for
// tests; the result line is then not the reference one). With check set, the
// timers' invariants are checked after the fill, 16 times during the loop
// and at the end (which slows the loop: the timing is then meaningless).
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
	res := Result{Name: name, N: n}
	m0 := heapAfterGC()
	t := newT(b)
	for i := 0; i < n; i++ {
		t.Add(sample[i])
	}
	if check {
		if res.Err = t.Check(); res.Err != nil {
			return res
		}
	}
	idx, fired, steps := n, 0, 0
	var cs uint64
	c := 0
	handler := func(at int64) { c++; cs = checksum(cs, at) }
	nextCheck := hh / 16
	runtime.GC()
	m1, a0 := memStats()
	timed(name, true)
	start := Now()
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
		if steps&0x3ff == 0 {
			progress(name, fired, hh)
			if check && fired >= nextCheck {
				nextCheck += hh / 16
				if res.Err = t.Check(); res.Err != nil {
					return res
				}
			}
		}
	}
	res.Elapsed = Now() - start
	timed(name, false)
	_, a1 := memStats()
	res.NsPerOp = float64(res.Elapsed.Nanoseconds()) / float64(fired)
	res.Checksum = cs
	res.AllocsPerOp = float64(a1-a0) / float64(fired)
	res.BytesPerAlarm = perAlarm(m0, m1, n)
	res.Counts = fmt.Sprintf("steps=%d fired=%d samples_used=%d live=%d", steps, fired, idx, t.Len())
	res.Comments = append(res.Comments, fmt.Sprintf("# %s N=%d %s", name, n, res.Counts))
	// The live heap per alarm again after the timed events, not timed: a
	// structure that keeps growing in steady state shows here, not after
	// the fill.
	res.Comments = append(res.Comments, fmt.Sprintf("# %s N=%d bytes_per_alarm_after_run=%.1f", name, n, perAlarm(m0, heapAfterGC(), t.Len())))
	if check {
		res.Err = t.Check()
	}
	runtime.KeepAlive(sample)
	return res
}

// Timeout runs TIMEOUT (seed 42, P = 400, W = 2000, M = 10000) or, with big
// set, TIMEOUT-1M (seed 43, P = 4000, W = 500, M = 2000). With check set, the
// invariants are checked after the warm-up, every 1/16 of the steps and at
// the end.
//
// The removals wait in a ring of 1024 buckets, one per removal step mod 1024
// (a removal is at most 1000 steps after its add), each a contiguous vector
// of handles carved out of one array of 1024*P slots. A bucket holds 0.9P
// handles on average; one that outgrows its P slots moves to a vector of its
// own (append), which it keeps. Vectors rather than linked lists, so that the
// removal loop reads its handles sequentially and the timers' cache misses
// of successive removes overlap; read from the end, in LIFO order.
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
	const ring = 1024 // removal steps in the ring: a removal is at most 1000 steps after its add
	slots := make([]H, ring*p)
	buckets := make([][]H, ring)
	for b := range buckets {
		buckets[b] = slots[b*p : b*p : (b+1)*p]
	}
	res := Result{Name: name, N: p}
	m0 := heapAfterGC()
	t := newT(20)
	var cs uint64
	var adds, removes, fires int    // all steps
	var tAdds, tRemoves, tFires int // at the start of the timed steps
	var liveAfterWarmup int
	handler := func(at int64) { fires++; cs = checksum(cs, at) }
	var start time.Duration
	var a0 uint64
	for k := 1; k <= s; k++ {
		if k == w+1 {
			liveAfterWarmup = t.Len()
			tAdds, tRemoves, tFires = adds, removes, fires
			if check {
				if res.Err = t.Check(); res.Err != nil {
					return res
				}
			}
			runtime.GC()
			_, a0 = memStats()
			timed(name, true)
			start = Now()
		}
		now := int64(k) * 1_000_000
		t.AdvanceClock(now, handler)
		bucket := buckets[k%ring]
		for x := len(bucket) - 1; x >= 0; x-- {
			t.Remove(bucket[x])
		}
		removes += len(bucket)
		clear(bucket) // let the heap baselines' items go
		buckets[k%ring] = bucket[:0]
		base := (k - 1) * p
		for j := 0; j < p; j++ {
			i := base + j
			h := t.Add(now + delay[i])
			adds++
			if rs := int(rem[i]); rs >= 1 && rs <= s {
				buckets[rs%ring] = append(buckets[rs%ring], h)
			}
		}
		if k&63 == 0 {
			progress(name, k, s)
			if check && k%(s/16) < 64 {
				if res.Err = t.Check(); res.Err != nil {
					return res
				}
			}
		}
	}
	res.Elapsed = Now() - start
	timed(name, false)
	_, a1 := memStats()
	ops := (adds - tAdds) + (removes - tRemoves) + (fires - tFires)
	res.NsPerOp = float64(res.Elapsed.Nanoseconds()) / float64(ops)
	res.Checksum = cs
	res.AllocsPerOp = float64(a1-a0) / float64(ops)
	res.BytesPerAlarm = perAlarm(m0, heapAfterGC(), t.Len())
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
	runtime.KeepAlive(buckets)
	runtime.KeepAlive(delay)
	runtime.KeepAlive(rem)
	return res
}

// SparseTimes returns SPARSE's alarm times: next() >> 14 from seed 7, or,
// with packed set, the same draws reduced mod 2^14 (10,000 alarms packed into
// a span of 16,384 ns), the baseline the sparse cost is compared with.
func SparseTimes(packed bool) []int64 {
	r := NewSplitMix64(7)
	times := make([]int64, 10000)
	for i := range times {
		times[i] = int64(r.Next() >> 14)
		if packed {
			times[i] &= 1<<14 - 1
		}
	}
	return times
}

// Sparse runs SPARSE (seed 7, 10,000 alarms uniform over [0, 2^50), 21
// repetitions, median) at precision 2^b; b = 10 gives the SPARSE_P10 line.
// With packed set it runs SPARSE_PACKED (see SparseTimes), which is not a
// workload of docs/workloads.md.
func Sparse[H any](newT func(b uint) Timers[H], b uint, packed bool, check bool) Result {
	name := "SPARSE"
	if b == 10 {
		name = "SPARSE_P10"
	}
	if packed {
		name += "_PACKED"
	}
	times := SparseTimes(packed)
	type rep struct{ total, fill, drain time.Duration }
	var reps []rep
	var cs uint64
	steps := 0
	res := Result{Name: name, N: len(times)}
	var allocs uint64
	var c uint64
	handler := func(at int64) { c = checksum(c, at) }
	for k := 0; k < 21; k++ {
		t := newT(b)
		c = 0
		n := 0
		runtime.GC()
		_, a0 := memStats()
		timed(name, true)
		start := Now()
		for _, at := range times {
			t.Add(at)
		}
		mid := Now()
		for t.Len() > 0 {
			next, ok := t.NextAlarmFiresAt()
			if !ok {
				panic("sparse: no next alarm")
			}
			t.AdvanceClock(next, handler)
			n++
		}
		end := Now()
		timed(name, false)
		_, a1 := memStats()
		allocs += a1 - a0
		reps = append(reps, rep{end - start, mid - start, end - mid})
		if k > 0 && (c != cs || n != steps) {
			panic(fmt.Sprintf("sparse: repetition %d gave checksum %d in %d steps, the first %d in %d", k, c, n, cs, steps))
		}
		cs, steps = c, n
		if check && k == 0 {
			// Check a filled wheel too: refill a fresh one.
			u := newT(b)
			for _, at := range times {
				u.Add(at)
			}
			if res.Err = u.Check(); res.Err == nil {
				res.Err = t.Check()
			}
		}
		progress(name, k+1, 21)
	}
	slices.SortFunc(reps, func(x, y rep) int { return int(x.total - y.total) })
	med := reps[len(reps)/2]
	res.Checksum = cs
	res.Elapsed = med.total
	res.NsPerOp = float64(med.total.Nanoseconds()) / float64(len(times))
	res.AllocsPerOp = float64(allocs) / float64(21*len(times))
	res.Counts = fmt.Sprintf("advance_steps=%d", steps)
	res.Comments = append(res.Comments, fmt.Sprintf("# %s N=%d fill_ns=%d drain_ns=%d advance_steps=%d reps=21 (median)",
		name, len(times), med.fill.Nanoseconds(), med.drain.Nanoseconds(), steps))
	return res
}

// Mem runs MEM: the live heap per alarm after adding n (docs/workloads.md: N =
// 1,000,000) alarms (seed n, b = 10, times the first n exp_sample(1e6)
// values, drawn one at a time), wheel included. newT is called between the
// heap readings, so its empty size is measured. Below N = 1e5 it fills
// MemCopies(n) structures alike and divides by all their alarms: one wheel
// of 100 alarms read 70.9 or 96.2 bytes per alarm as one or two collections
// ran before each reading, 1,000 of them 77.1 either way.
func Mem[H any](newT func(b uint) Timers[H], n int) Result {
	copies := MemCopies(n)
	ts := make([]Timers[H], copies) // before m0: not counted
	m0 := heapAfterGC()
	for c := range ts {
		ts[c] = newT(10)
	}
	mEmpty := heapAfterGC()
	var sum uint64
	for c, t := range ts {
		r := NewSplitMix64(uint64(n))
		for i := 0; i < n; i++ {
			at := r.ExpSample(1e6)
			t.Add(at)
			if c == 0 {
				sum = checksum(sum, at)
			}
		}
	}
	m1 := heapAfterGC()
	per := perAlarm(m0, m1, n*copies)
	res := Result{Name: "MEM", N: n, NsPerOp: per, BytesPerAlarm: per, Checksum: sum}
	res.Counts = fmt.Sprintf("live=%d", ts[0].Len())
	res.Comments = append(res.Comments, fmt.Sprintf("# MEM N=%d bytes_per_alarm=%.1f without_empty_wheel=%.1f empty_wheel_bytes=%d live=%d copies=%d",
		n, per, perAlarm(mEmpty, m1, n*copies), (int64(mEmpty)-int64(m0))/int64(copies), ts[0].Len(), copies))
	runtime.KeepAlive(ts)
	return res
}

// MemCopies is how many structures of n alarms MEM fills: enough for 1e5
// alarms in all, at most 1,000, and 1 from n = 1e5 on (docs/workloads.md's
// MEM has N = 1e6).
func MemCopies(n int) int { return min(max(100_000/max(n, 1), 1), 1_000) }

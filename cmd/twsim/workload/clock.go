package workload

import (
	"fmt"
	"runtime"
	"slices"
	"time"
)

// Clock is what the clock workloads drive: a simulated clock with
// simclock's AfterFunc semantics, such as *simclock.Clock (T is then
// simclock.Timer) or the heap clock of cmd/twsim/heaps. A clock given to a
// workload must read ClockEpoch when it is made.
type Clock[T any] interface {
	AfterFunc(d time.Duration, f func()) T
	Advance(d time.Duration)
	Step() bool
	Now() time.Time
}

// ClockEpoch is the time at which every clock of the clock workloads starts.
var ClockEpoch = time.Unix(0, 0)

// ClockDelays returns the clock workloads' delays in ns: n draws of
// uniform_int(1, 999_999_999), uniform in [1 ns, 1 s), from splitmix64
// seeded with seed, in order.
func ClockDelays(seed uint64, n int) []int64 {
	r := NewSplitMix64(seed)
	d := make([]int64, n)
	for i := range d {
		d[i] = r.UniformInt(1, 999_999_999)
	}
	return d
}

// The order checksum of the clock workloads: 64-bit FNV-1a over the ids of
// the fired timers, one 64-bit word per id, in the order the callbacks ran.
const (
	OrderHashStart = 14695981039346656037
	orderHashPrime = 1099511628211
)

// OrderHash adds the id of a fired timer to the order checksum h.
func OrderHash(h uint64, id int) uint64 { return (h ^ uint64(id)) * orderHashPrime }

// clockRun is the state the callbacks of one clock workload share.
type clockRun[T any] struct {
	c     Clock[T]
	d     []int64  // delays, by timer id
	fs    []func() // callbacks, by timer id: fs[i] fires timer i
	step  bool     // CLOCK-STEP: each fire schedules the next id
	next  int      // CLOCK-STEP: the next id to schedule
	fired int
	cs    uint64
	// With check set, every callback checks that it runs at its timer's
	// time and after every timer due before it (time, then id: ids are
	// scheduled in increasing order, so FIFO at equal times is id order).
	check          bool
	at             []int64 // ns after ClockEpoch, by id
	lastAt, lastID int64
	err            error
}

func newClockRun[T any](d []int64, step, check bool) *clockRun[T] {
	s := &clockRun[T]{d: d, step: step, check: check, fs: make([]func(), len(d))}
	for i := range s.fs {
		s.fs[i] = func() { s.fire(i) }
	}
	if check {
		s.at = make([]int64, len(d))
	}
	s.reset()
	return s
}

func (s *clockRun[T]) reset() { s.fired, s.cs, s.lastAt, s.lastID = 0, OrderHashStart, -1, -1 }

// schedule schedules timer id after its delay.
func (s *clockRun[T]) schedule(id int, now int64) {
	if s.check {
		s.at[id] = now + s.d[id]
	}
	s.c.AfterFunc(time.Duration(s.d[id]), s.fs[id])
}

// fire is timer id's callback.
func (s *clockRun[T]) fire(id int) {
	s.fired++
	s.cs = OrderHash(s.cs, id)
	if s.check {
		s.verify(id)
	}
	if s.step {
		k := s.next
		if k == len(s.d) {
			panic(fmt.Sprintf("clock-step: all %d pre-generated delays used; draw more", k))
		}
		s.next++
		var now int64
		if s.check {
			now = s.at[id]
		}
		s.schedule(k, now)
	}
}

func (s *clockRun[T]) verify(id int) {
	if s.err != nil {
		return
	}
	at, now := s.at[id], s.c.Now().Sub(ClockEpoch).Nanoseconds()
	switch {
	case now != at:
		s.err = fmt.Errorf("timer %d due at %d ns ran with Now() = %d ns", id, at, now)
	case at < s.lastAt || at == s.lastAt && int64(id) < s.lastID:
		s.err = fmt.Errorf("timer %d (due at %d ns) ran after timer %d (due at %d ns)", id, at, s.lastID, s.lastAt)
	}
	s.lastAt, s.lastID = at, int64(id)
}

// ClockNewReps is CLOCK-NEW's number of timed repetitions at size n: 11
// below n = 1e4, 5 from it on (each repetition covers at least 2e5 timers,
// ClockNewClocks).
func ClockNewReps(n int) int {
	if n < 10_000 {
		return 11
	}
	return 5
}

// ClockNewClocks is how many clocks one timed repetition of CLOCK-NEW makes
// in a row at size n: enough for 2e5 timers (2000 clocks at n = 100, 200 at
// 1e3, 20 at 1e4, 2 at 1e5). A repetition then allocates tens of MB, many
// times the runtime's 4 MB minimum heap goal, so every clock pays for its
// allocation in collections in proportion. A repetition that allocates
// about the heap goal or less would instead measure where the first
// collection falls: a small change to a clock's allocation could then add a
// collection to every repetition and a large step to the cost per timer.
func ClockNewClocks(n int) int { return max(200_000/max(n, 1), 1) }

// ClockNew runs CLOCK-NEW at size n (seed n): on a new clock from newC,
// schedule n AfterFunc timers, timer i after ClockDelays(n, n)[i], in order,
// then Advance(1 s), past the last; every callback must have run. The first
// repetition is untimed and measures the clock's live heap per timer before
// the advance; then reps timed repetitions (ClockNewReps(n) when reps <= 0),
// each after a garbage collection, each making ClockNewClocks(n) clocks in a
// row: the median repetition is reported, per timer. The clocks' creation is
// timed. The checksum is OrderHash over the ids in the order the callbacks
// ran, the same on every clock.
func ClockNew[T any](newC func() Clock[T], n, reps int, check bool) Result {
	const name = "CLOCK-NEW"
	if reps <= 0 {
		reps = ClockNewReps(n)
	}
	clocks := ClockNewClocks(n)
	s := newClockRun[T](ClockDelays(uint64(n), n), false, check)
	res := Result{Name: name, N: n}
	var times []time.Duration
	var allocs uint64
	var cs uint64
	var end time.Duration
	// verify checks the clock just advanced: every callback ran, and the
	// checksum and end time are the first clock's.
	verify := func(k int) {
		e := s.c.Now().Sub(ClockEpoch)
		switch {
		case s.err != nil:
		case s.fired != n:
			s.err = fmt.Errorf("repetition %d: %d of the %d callbacks ran", k, s.fired, n)
		case k > 0 && (s.cs != cs || e != end):
			s.err = fmt.Errorf("repetition %d: order checksum %d at %v, the first repetition's %d at %v", k, s.cs, e, cs, end)
		}
		if k == 0 {
			cs, end = s.cs, e
		}
	}
	for k := 0; k <= reps; k++ {
		if k == 0 {
			s.reset()
			m0 := heapAfterGC()
			s.c = newC()
			if now := s.c.Now(); !now.Equal(ClockEpoch) {
				panic(fmt.Sprintf("clock-new: a new clock reads %v, not ClockEpoch", now))
			}
			for i := range s.d {
				s.schedule(i, 0)
			}
			res.BytesPerAlarm = perAlarm(m0, heapAfterGC(), n)
			s.c.Advance(time.Second)
			verify(0)
		} else {
			s.c = nil
			runtime.GC()
			_, a0 := memStats()
			timed(name, true)
			start := Now()
			for range clocks {
				s.reset()
				s.c = newC()
				for i := range s.d {
					s.schedule(i, 0)
				}
				s.c.Advance(time.Second)
				verify(k)
			}
			el := Now() - start
			timed(name, false)
			_, a1 := memStats()
			allocs += a1 - a0
			times = append(times, el)
		}
		if s.err != nil {
			res.Err = s.err
			return res
		}
		progress(name, k, reps)
	}
	slices.Sort(times)
	med := times[(len(times)-1)/2]
	per := float64(clocks * n)
	res.Elapsed = med
	res.NsPerOp = float64(med.Nanoseconds()) / per
	res.AllocsPerOp = float64(allocs) / (float64(reps) * per)
	res.Checksum = cs
	res.Counts = fmt.Sprintf("fired=%d now_end_ns=%d", n, end.Nanoseconds())
	res.Comments = append(res.Comments, fmt.Sprintf("# %s N=%d fired=%d now_end_ns=%d reps=%d clocks_per_rep=%d (median) min_ns=%d max_ns=%d",
		name, n, n, end.Nanoseconds(), reps, clocks, times[0].Nanoseconds(), times[len(times)-1].Nanoseconds()))
	return res
}

// ClockStepSteps is CLOCK-STEP's number of timed steps at size n:
// max(n, 100000).
func ClockStepSteps(n int) int { return max(n, 100_000) }

// ClockStep runs CLOCK-STEP at size n (seed n+1). With d = the delays of
// ClockDelays(n+1, ...): on a new clock from newC, schedule timers 0..n-1
// after d[0..n-1] (untimed; the live heap per pending timer is measured
// then); every callback schedules the next id k = n, n+1, ... after d[k],
// so n timers stay pending. n warm-up Steps are untimed, then steps Steps
// (ClockStepSteps(n) when steps <= 0) are timed after a garbage collection:
// ns_per_op is the cost per Step. A Step fires one timer, or all those that
// share the earliest instant. The checksum is OrderHash over the ids of
// every fire, warm-up included, in order.
func ClockStep[T any](newC func() Clock[T], n, steps int, check bool) Result {
	const name = "CLOCK-STEP"
	if steps <= 0 {
		steps = ClockStepSteps(n)
	}
	warm := n
	// One delay per timer and per fire; a Step fires more than one timer only
	// at a tie, rare with 1e9 possible delays, so 1/16 more is plenty (fire
	// panics if not).
	s := newClockRun[T](ClockDelays(uint64(n)+1, n+(warm+steps)+(warm+steps)/16+64), true, check)
	res := Result{Name: name, N: n}
	m0 := heapAfterGC()
	s.c = newC()
	if now := s.c.Now(); !now.Equal(ClockEpoch) {
		panic(fmt.Sprintf("clock-step: a new clock reads %v, not ClockEpoch", now))
	}
	for i := 0; i < n; i++ {
		s.schedule(i, 0)
	}
	s.next = n
	res.BytesPerAlarm = perAlarm(m0, heapAfterGC(), n)
	c := s.c
	for k := 0; k < warm; k++ {
		if !c.Step() {
			panic("clock-step: no timer pending")
		}
	}
	warmFired := s.fired
	runtime.GC()
	_, a0 := memStats()
	timed(name, true)
	start := Now()
	for k := 0; k < steps; k++ {
		if !c.Step() {
			panic("clock-step: no timer pending")
		}
		if k&0x3ff == 0 {
			progress(name, k, steps)
		}
	}
	res.Elapsed = Now() - start
	timed(name, false)
	_, a1 := memStats()
	progress(name, steps, steps)
	end := c.Now().Sub(ClockEpoch).Nanoseconds()
	if res.Err = s.err; res.Err == nil && s.fired != s.next-n {
		res.Err = fmt.Errorf("%d callbacks ran but %d replacements were scheduled", s.fired, s.next-n)
	}
	res.NsPerOp = float64(res.Elapsed.Nanoseconds()) / float64(steps)
	res.AllocsPerOp = float64(a1-a0) / float64(steps)
	res.Checksum = s.cs
	res.Counts = fmt.Sprintf("warm_steps=%d steps=%d fired=%d timed_fired=%d now_end_ns=%d",
		warm, steps, s.fired, s.fired-warmFired, end)
	res.Comments = append(res.Comments, fmt.Sprintf("# %s N=%d %s", name, n, res.Counts))
	runtime.KeepAlive(s)
	return res
}

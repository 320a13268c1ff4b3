package workload_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/cmd/twsim/heaps"
	"github.com/gotimingwheel/timingwheel/cmd/twsim/workload"
	"github.com/gotimingwheel/timingwheel/simclock"
)

func simC() workload.Clock[simclock.Timer]     { return simclock.New(workload.ClockEpoch) }
func heapC() workload.Clock[*heaps.ClockTimer] { return heaps.NewClock(workload.ClockEpoch) }

// CLOCK-NEW fires the timers in the order of their delays, FIFO at equal
// delays: its checksum is the order hash of the ids sorted that way,
// computed here without any clock, on both clocks.
func TestClockNewOrder(t *testing.T) {
	for _, n := range []int{1, 100, 3000} {
		d := workload.ClockDelays(uint64(n), n)
		ids := make([]int, n)
		for i := range ids {
			ids[i] = i
		}
		slices.SortStableFunc(ids, func(a, b int) int { return cmp.Compare(d[a], d[b]) })
		want := uint64(workload.OrderHashStart)
		for _, id := range ids {
			want = workload.OrderHash(want, id)
		}
		rs := []workload.Result{workload.ClockNew(simC, n, 3, true), workload.ClockNew(heapC, n, 3, true)}
		same(t, rs...)
		for _, r := range rs {
			if r.Checksum != want {
				t.Fatalf("N=%d: checksum %d, want %d (ids by delay)", n, r.Checksum, want)
			}
			if r.Counts != fmt.Sprintf("fired=%d now_end_ns=1000000000", n) {
				t.Fatalf("N=%d: counts %q", n, r.Counts)
			}
		}
	}
}

// Every delay is in [1 ns, 1 s).
func TestClockDelaysRange(t *testing.T) {
	d := workload.ClockDelays(5, 100000)
	if lo, hi := slices.Min(d), slices.Max(d); lo < 1 || hi > 999_999_999 || hi < 990_000_000 || lo > 100_000 {
		t.Fatalf("delays in [%d, %d], want spread over [1, 999999999]", lo, hi)
	}
}

// refStep computes CLOCK-STEP's checksum and fire count with a plain list of
// pending (time, id) pairs searched for its minimum at every fire.
func refStep(n, steps int) (uint64, int) {
	d := workload.ClockDelays(uint64(n)+1, n+2*(n+steps)+64)
	type p struct{ at, id int64 }
	var pend []p
	for i := 0; i < n; i++ {
		pend = append(pend, p{d[i], int64(i)})
	}
	next, fired, h := n, 0, uint64(workload.OrderHashStart)
	for range n + steps { // warm-up steps, then timed steps
		m := slices.MinFunc(pend, func(a, b p) int {
			return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.id, b.id))
		}).at
		// Every timer due at m fires, in id order; replacements are due
		// at least 1 ns later.
		var due []p
		pend = slices.DeleteFunc(pend, func(x p) bool {
			if x.at == m {
				due = append(due, x)
				return true
			}
			return false
		})
		slices.SortFunc(due, func(a, b p) int { return cmp.Compare(a.id, b.id) })
		for _, x := range due {
			h = workload.OrderHash(h, int(x.id))
			fired++
			pend = append(pend, p{m + d[next], int64(next)})
			next++
		}
	}
	return h, fired
}

// CLOCK-STEP on both clocks agrees with the reference list, and the clocks'
// own checks (each callback at its time, in order) pass.
func TestClockStepReference(t *testing.T) {
	for _, c := range []struct{ n, steps int }{{1, 50}, {10, 2000}, {300, 5000}} {
		want, fired := refStep(c.n, c.steps)
		rs := []workload.Result{workload.ClockStep(simC, c.n, c.steps, true), workload.ClockStep(heapC, c.n, c.steps, true)}
		same(t, rs...)
		for _, r := range rs {
			if r.Checksum != want {
				t.Fatalf("N=%d: checksum %d, reference %d", c.n, r.Checksum, want)
			}
			if !slices.Contains(strings.Fields(r.Counts), fmt.Sprintf("fired=%d", fired)) {
				t.Fatalf("N=%d: counts %q, reference fired=%d", c.n, r.Counts, fired)
			}
		}
	}
}

// fifoClock is a broken clock: it fires its timers in the order they were
// scheduled, whatever their delays, and its Now() never moves.
type fifoClock struct{ fs []func() }

func (c *fifoClock) AfterFunc(_ time.Duration, f func()) int { c.fs = append(c.fs, f); return 0 }
func (c *fifoClock) Now() time.Time                          { return workload.ClockEpoch }
func (c *fifoClock) Advance(time.Duration) {
	for len(c.fs) > 0 {
		c.Step()
	}
}
func (c *fifoClock) Step() bool {
	if len(c.fs) == 0 {
		return false
	}
	f := c.fs[0]
	c.fs = c.fs[1:]
	f()
	return true
}

// With check set, the workloads catch a clock that fires out of order: a
// callback sees the wrong Now().
func TestClockCheckCatchesDisorder(t *testing.T) {
	newC := func() workload.Clock[int] { return &fifoClock{} }
	if r := workload.ClockNew(newC, 100, 5, true); r.Err == nil {
		t.Error("CLOCK-NEW on a FIFO clock passed its check")
	}
	if r := workload.ClockStep(newC, 100, 1000, true); r.Err == nil {
		t.Error("CLOCK-STEP on a FIFO clock passed its check")
	}
}

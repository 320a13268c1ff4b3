// Package fakeclock puts simclock side by side with the fake clocks Go
// programs use: jonboulle/clockwork, coder/quartz, benbjohnson/clock,
// k8s.io/utils/clock/testing and testing/synctest. Each Driver schedules one
// AfterFunc per delay, advances past all of them, waits for every callback,
// and reports the order in which the callbacks ran, so that the table can say
// both how long that takes and whether the order matches the timers' times.
//
// The measurements and the table are in fakeclock_test.go:
//
//	cd bench && go test ./fakeclock -run TestTable -fakeclock.table ../../docs/perf-simclock.md
//	cd bench && go test ./fakeclock -run '^$' -bench .
package fakeclock

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	bclock "github.com/benbjohnson/clock"
	"github.com/coder/quartz"
	"github.com/jonboulle/clockwork"
	k8sclock "k8s.io/utils/clock/testing"

	"github.com/gotimingwheel/timingwheel/simclock"
)

// Start is the fake clocks' starting time.
var Start = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Driver runs the workload on one clock.
type Driver struct {
	Name string
	// MaxN is the largest N the driver is run with (0: no cap), for clocks
	// that spend real time per timer.
	MaxN int
	// Note says what the driver had to do to get every callback run.
	Note string
	// Run schedules one AfterFunc callback per delay, advances the clock past
	// the last, waits for every callback, and returns the indices of the
	// delays in the order their callbacks ran. With read, each callback also
	// reads the clock, and seen[k] is what the k-th callback to run saw, as
	// a duration since Start.
	Run func(tb testing.TB, delays []time.Duration, read bool) (order []int, seen []time.Duration, err error)
}

// Delays returns n delays drawn uniformly from [1 ns, 1 s), the same for
// every call with the same n and seed.
func Delays(n int, seed uint64) []time.Duration {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = 1 + time.Duration(r.Int64N(int64(time.Second)-1))
	}
	return ds
}

// TiedDelays returns n delays drawn from ten values (1 ms .. 10 ms), so
// that many timers share a time.
func TiedDelays(n int, seed uint64) []time.Duration {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = time.Duration(1+r.IntN(10)) * time.Millisecond
	}
	return ds
}

// InTimeOrder reports whether order lists the delays in ascending time.
func InTimeOrder(delays []time.Duration, order []int) bool {
	for i := 1; i < len(order); i++ {
		if delays[order[i]] < delays[order[i-1]] {
			return false
		}
	}
	return true
}

// FIFOAtTies reports whether callbacks with equal delays ran in the order
// they were scheduled (ascending index), among the consecutive runs of equal
// delays in order.
func FIFOAtTies(delays []time.Duration, order []int) bool {
	last := map[time.Duration]int{}
	for _, i := range order {
		if j, ok := last[delays[i]]; ok && j > i {
			return false
		}
		last[delays[i]] = i
	}
	return true
}

func maxDelay(ds []time.Duration) time.Duration {
	m := time.Duration(0)
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

// recorder collects the callbacks' indices in the order they run, from any
// goroutine, and lets the driver wait until all have run.
type recorder struct {
	mu    sync.Mutex
	order []int
	seen  []time.Duration
	now   func() time.Time // the clock's Now, when callbacks read it
	all   chan struct{}
	n     int
}

func newRecorder(n int) *recorder {
	r := &recorder{order: make([]int, 0, n), all: make(chan struct{}), n: n}
	if n == 0 {
		close(r.all)
	}
	return r
}

func (r *recorder) fn(i int) func() {
	return func() {
		var seen time.Duration
		if r.now != nil {
			seen = r.now().Sub(Start)
		}
		r.mu.Lock()
		r.order = append(r.order, i)
		if r.now != nil {
			r.seen = append(r.seen, seen)
		}
		done := len(r.order) == r.n
		r.mu.Unlock()
		if done {
			close(r.all)
		}
	}
}

// wait waits for every callback, for at most limit of real time.
func (r *recorder) wait(limit time.Duration) ([]int, []time.Duration, error) {
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-r.all:
		return r.order, r.seen, nil
	case <-t.C:
		r.mu.Lock()
		defer r.mu.Unlock()
		return nil, nil, fmt.Errorf("only %d of %d callbacks ran within %v", len(r.order), r.n, limit)
	}
}

// reads returns now if read, else nil.
func reads(read bool, now func() time.Time) func() time.Time {
	if read {
		return now
	}
	return nil
}

// waitLimit bounds every wait for callbacks in real time.
const waitLimit = 2 * time.Minute

// Drivers are the clocks compared, simclock first.
var Drivers = []Driver{
	{
		Name: "simclock",
		Note: "Advance past the last timer; callbacks run on the advancing goroutine",
		Run: func(_ testing.TB, ds []time.Duration, read bool) ([]int, []time.Duration, error) {
			c := simclock.New(Start)
			r := newRecorder(len(ds))
			r.now = reads(read, c.Now)
			for i, d := range ds {
				c.AfterFunc(d, r.fn(i))
			}
			c.Advance(maxDelay(ds))
			return r.wait(waitLimit)
		},
	},
	{
		Name: "clockwork",
		Note: "Advance past the last timer; each callback runs in its own goroutine",
		Run: func(_ testing.TB, ds []time.Duration, read bool) ([]int, []time.Duration, error) {
			c := clockwork.NewFakeClockAt(Start)
			r := newRecorder(len(ds))
			r.now = reads(read, c.Now)
			for i, d := range ds {
				c.AfterFunc(d, r.fn(i))
			}
			c.Advance(maxDelay(ds))
			return r.wait(waitLimit)
		},
	},
	{
		Name: "quartz",
		Note: "Advance may not pass the next timer: AdvanceNext and wait, once per distinct time; callbacks at one time run in parallel goroutines",
		Run: func(tb testing.TB, ds []time.Duration, read bool) ([]int, []time.Duration, error) {
			c := quartz.NewMock(tb).WithLogger(quartz.NoOpLogger)
			c.Set(Start).MustWait(context.Background())
			r := newRecorder(len(ds))
			r.now = reads(read, func() time.Time { return c.Now() })
			for i, d := range ds {
				c.AfterFunc(d, r.fn(i))
			}
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			for {
				if _, ok := c.Peek(); !ok {
					break
				}
				_, w := c.AdvanceNext()
				if err := w.Wait(ctx); err != nil {
					return nil, nil, err
				}
			}
			return r.wait(waitLimit)
		},
	},
	{
		Name: "benbjohnson/clock",
		MaxN: 1000,
		Note: "Add past the last timer; Add sleeps 1 ms of real time after each timer it fires, so N is capped at 1e3",
		Run: func(_ testing.TB, ds []time.Duration, read bool) ([]int, []time.Duration, error) {
			c := bclock.NewMock()
			c.Set(Start)
			r := newRecorder(len(ds))
			r.now = reads(read, c.Now)
			for i, d := range ds {
				c.AfterFunc(d, r.fn(i))
			}
			c.Add(maxDelay(ds))
			return r.wait(waitLimit)
		},
	},
	{
		Name: "k8s FakeClock",
		Note: "Step past the last timer; callbacks run under the clock's lock (one that reads the clock deadlocks), in insertion order",
		Run: func(_ testing.TB, ds []time.Duration, read bool) ([]int, []time.Duration, error) {
			if read {
				// Step fires callbacks under the clock's write lock; Now
				// takes the read lock. Not run: it would hang.
				return nil, nil, errDeadlock
			}
			c := k8sclock.NewFakeClock(Start)
			r := newRecorder(len(ds))
			for i, d := range ds {
				c.AfterFunc(d, r.fn(i))
			}
			c.Step(maxDelay(ds))
			return r.wait(waitLimit)
		},
	},
	{
		Name: "testing/synctest",
		Note: "time.AfterFunc in a bubble, time.Sleep past the last timer, synctest.Wait; each callback runs in its own goroutine",
		Run: func(tb testing.TB, ds []time.Duration, read bool) ([]int, []time.Duration, error) {
			t, ok := tb.(*testing.T)
			if !ok {
				return nil, nil, errNeedsT
			}
			r := newRecorder(len(ds))
			synctest.Test(t, func(*testing.T) {
				// The bubble's fake clock starts at its own epoch: map it
				// onto Start.
				base := time.Now()
				r.now = reads(read, func() time.Time { return Start.Add(time.Since(base)) })
				for i, d := range ds {
					time.AfterFunc(d, r.fn(i))
				}
				time.Sleep(maxDelay(ds))
				synctest.Wait()
			})
			return r.wait(waitLimit)
		},
	},
}

var (
	errNeedsT   = errors.New("testing/synctest needs a *testing.T, not a benchmark")
	errDeadlock = errors.New("deadlocks: callbacks run under the clock's lock")
)

// SeesOwnTime reports whether every callback read its own timer's time.
func SeesOwnTime(delays []time.Duration, order []int, seen []time.Duration) bool {
	for k, i := range order {
		if seen[k] != delays[i] {
			return false
		}
	}
	return true
}

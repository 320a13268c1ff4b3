package heaps

import (
	"container/heap"
	"fmt"
	"math"
	"sync"
	"time"
)

// Clock is the baseline simulated clock of the clock workloads: the
// AfterFunc part of simclock.Clock on container/heap, the way Go simulators
// usually keep their events. It has simclock's semantics: timers fire in time
// order and, at equal times, in the order they were scheduled (created or
// reset); each callback runs on the goroutine that drives the clock, with no
// lock held and Now() equal to its own time, and may schedule, stop and reset
// timers, which fire in the same advance when they are due by its target.
// Stop and Reset follow package time as of Go 1.23. A callback that panics
// leaves the clock at its time, usable; the panic reaches the driver.
//
// Its methods are safe for concurrent use; a callback must not drive the
// clock.
type Clock struct {
	adv    sync.Mutex // held by the goroutine that drives the clock
	mu     sync.Mutex // guards what follows
	origin time.Time
	now    int64 // ns after origin
	seq    uint64
	h      clockTimers
}

// ClockTimer is a timer of Clock, made by AfterFunc.
type ClockTimer struct {
	c     *Clock
	f     func()
	at    int64 // ns after the clock's origin
	seq   uint64
	index int // position in the heap, -1 when not scheduled
}

type clockTimers []*ClockTimer

func (h clockTimers) Len() int { return len(h) }
func (h clockTimers) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].seq < h[j].seq
}
func (h clockTimers) Swap(i, j int) { h[i], h[j] = h[j], h[i]; h[i].index = i; h[j].index = j }
func (h *clockTimers) Push(x any)   { t := x.(*ClockTimer); t.index = len(*h); *h = append(*h, t) }
func (h *clockTimers) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.index = -1
	return t
}

// NewClock returns a clock that reads start.
func NewClock(start time.Time) *Clock { return &Clock{origin: start.Round(0)} }

// Now returns the simulated time; inside a callback, the callback's own time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.origin.Add(time.Duration(c.now))
}

// after returns now + d (now for d <= 0), saturating at math.MaxInt64, a
// time no advance reaches.
func (c *Clock) after(d time.Duration) int64 {
	if d <= 0 {
		return c.now
	}
	if int64(d) > math.MaxInt64-c.now {
		return math.MaxInt64
	}
	return c.now + int64(d)
}

// AfterFunc calls f on the goroutine that drives the clock once the clock
// reaches Now()+d; with d <= 0 it is due at Now() and runs at the next call
// that drives the clock (Advance(0) will do). (simclock runs one made outside
// a callback at once, on a goroutine of its own; the clock workloads make
// none.)
func (c *Clock) AfterFunc(d time.Duration, f func()) *ClockTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &ClockTimer{c: c, f: f, at: c.after(d), seq: c.seq}
	heap.Push(&c.h, t)
	return t
}

// Stop prevents the timer from firing. It reports whether the call stopped
// it: false once it has fired (its callback has started) or been stopped.
func (t *ClockTimer) Stop() bool {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.index < 0 {
		return false
	}
	heap.Remove(&c.h, t.index)
	return true
}

// Reset reschedules the timer to fire after d (at the next call that drives
// the clock for d <= 0), as the last timer scheduled, and reports whether it
// was scheduled before the call.
func (t *ClockTimer) Reset(d time.Duration) bool {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t.at, t.seq = c.after(d), c.seq
	if t.index >= 0 {
		heap.Fix(&c.h, t.index)
		return true
	}
	heap.Push(&c.h, t)
	return false
}

// Advance moves the clock forward by d, firing every timer due on the way
// in order; d <= 0 fires only the timers already due. It panics if Now()+d
// is past the clock's reach (2^63-2 ns after the start).
func (c *Clock) Advance(d time.Duration) { c.advance(modeRelative, d, time.Time{}) }

// AdvanceTo moves the clock to t, firing every timer due at or before t in
// order; a t at or before Now() fires only the timers already due. It panics
// if t is past the clock's reach.
func (c *Clock) AdvanceTo(t time.Time) { c.advance(modeAbsolute, 0, t) }

// Step advances the clock to the next instant a timer is due and fires every
// timer due then, including those the callbacks schedule for that instant.
// It reports false, and does nothing, when no timer is pending.
func (c *Clock) Step() bool { return c.advance(modeStep, 0, time.Time{}) }

// Modes of advance.
const (
	modeRelative = iota // by d from Now()
	modeAbsolute        // to t
	modeStep            // to the earliest timer's time
)

// advance fires, in order, every timer due by its target and leaves the
// clock there. In modeStep it reports whether any timer was pending.
func (c *Clock) advance(mode int, d time.Duration, t time.Time) bool {
	c.adv.Lock()
	c.mu.Lock()
	locked := true
	defer func() {
		if locked {
			c.mu.Unlock()
		}
		c.adv.Unlock()
	}()
	var to int64
	switch mode {
	case modeRelative:
		if d > 0 && int64(d) > math.MaxInt64-1-c.now {
			panic(fmt.Sprintf("heaps.Clock: Advance(%v) from %v passes the clock's reach; advance by less",
				d, time.Duration(c.now)))
		}
		to = c.now + max(int64(d), 0)
	case modeAbsolute:
		off := t.Sub(c.origin) // saturates at the extremes
		if off >= math.MaxInt64 {
			panic(fmt.Sprintf("heaps.Clock: AdvanceTo(%v) is past the clock's reach; advance to an earlier time", t))
		}
		to = max(int64(off), c.now)
	case modeStep:
		if len(c.h) == 0 {
			return false
		}
		to = c.h[0].at
	}
	for len(c.h) > 0 && c.h[0].at <= to {
		e := heap.Pop(&c.h).(*ClockTimer)
		c.now = e.at
		c.mu.Unlock()
		locked = false
		e.f() // a panic leaves the clock at e.at, the rest still due
		c.mu.Lock()
		locked = true
	}
	c.now = max(c.now, to)
	return true
}

// Len returns the number of scheduled timers.
func (c *Clock) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.h)
}

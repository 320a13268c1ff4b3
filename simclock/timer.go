package simclock

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gotimingwheel/timingwheel/alarm"
)

// Timer states.
const (
	stateIdle    uint8 = iota // not scheduled: new, fired or stopped
	statePending              // in the wheel
	stateDue                  // in the batch or the early heap (due, or waiting there in tiny mode)
	stateParked               // beyond the clock's reach: never fires
)

// timer is every kind of timer: an AfterFunc callback (f), a channel timer
// (ch), a ticker (ch and period > 0), a TickerFunc (f and period > 0), or a
// Sleep (a channel timer). The channel and the period live apart, in x, so
// that an AfterFunc timer, the kind a simulation makes most, is a 64-byte
// object (80 with them inline); a timer that has them is made with them in
// one allocation (extTimer, ticker).
type timer struct {
	c      *Clock
	f      func()
	x      *timerExt // nil for an AfterFunc timer
	a      alarm.Alarm
	at     int64  // ns after the clock's start
	seq    uint64 // its current schedule's sequence number (Clock.seq); 0 while idle
	state  uint8
	waiter bool // counts in Waiters while not idle
}

// timerExt is what only channel timers, tickers and TickerFuncs have.
type timerExt struct {
	ch     chan time.Time // capacity 1; values are sent and drained under c.mu
	period time.Duration
}

// extTimer is a timer and its timerExt in one allocation.
type extTimer struct {
	timer
	ext timerExt
}

// newExtTimer returns a timer of c with a channel ch (or nil) and a period
// (or 0).
func newExtTimer(c *Clock, ch chan time.Time, period time.Duration, waiter bool) *timer {
	return new(extTimer).init(c, ch, period, waiter)
}

// init sets e up as a timer of c with a channel ch (or nil) and a period (or
// 0), and returns its timer.
func (e *extTimer) init(c *Clock, ch chan time.Time, period time.Duration, waiter bool) *timer {
	e.ext = timerExt{ch: ch, period: period}
	e.timer = timer{c: c, x: &e.ext, waiter: waiter}
	return &e.timer
}

// ch returns t's channel, or nil.
func (t *timer) ch() chan time.Time {
	if t.x == nil {
		return nil
	}
	return t.x.ch
}

// period returns t's period, or 0 for a timer that fires once.
func (t *timer) period() time.Duration {
	if t.x == nil {
		return 0
	}
	return t.x.period
}

// arm schedules t, which must be out of the wheel, at offset at: in the
// early heap when at <= wnow (the wheel has handed over that time), or in
// tiny mode (the wheel is empty, the heap has fewer than tinyMax entries and
// the wheel's reach is the whole range; entering it, fewer than tinyMax/2);
// else in the wheel. Leaving tiny mode moves the heap's timers after wnow
// into the wheel first (leaveTiny). On error (ErrBeyondReach) t is left
// idle. It does not touch the waiter count.
func (c *Clock) arm(t *timer, at int64) error {
	c.seq++
	t.seq = c.seq
	t.at = at
	if at > maxOffset {
		t.state = stateParked
		c.nparked++
		return nil
	}
	if at > c.wnow {
		if !c.tinyOK || len(c.early) >= tinyMax || c.w != nil && c.w.q.Len() > 0 {
			if c.tiny {
				c.leaveTiny()
			}
			return c.armWheel(t, at)
		}
		if !c.tiny {
			if len(c.early) >= tinyMax/2 {
				// Tiny mode begins only with room for half a heap more,
				// so that leaving it, which sorts the heap, comes at most
				// once per tinyMax/2 schedules: a clock holding nearly
				// tinyMax timers due now would otherwise enter it and
				// leave it again at every other schedule.
				return c.armWheel(t, at)
			}
			c.tiny = true
		}
	} else if c.tiny && len(c.early) >= tinyMax {
		// A timer due now, in a full tiny heap: leave tiny mode, whose
		// heap compaction skips (its rule would count the live timers
		// pushed since the last one as stale), so that Stop and Reset
		// cannot grow the heap without bound.
		c.leaveTiny()
	}
	t.state = stateDue
	c.early.push(entry{t: t, seq: t.seq, at: at})
	if n := len(c.early); !c.tiny && n >= 64 && n > 2*c.earlyKept {
		c.compactEarly()
	}
	return nil
}

// armWheel puts t, scheduled at at > wnow, in the wheel.
func (c *Clock) armWheel(t *timer, at int64) error {
	a, ok := c.wheelOf().add(at, t)
	if !ok {
		t.state = stateIdle
		return fmt.Errorf("%w: due at %v, allowed up to %v (use WithOverflow)",
			ErrBeyondReach, c.timeOf(at), c.timeOf(c.w.maxAllowed()))
	}
	t.a = a
	t.state = statePending
	return nil
}

// tinyMax is how many timers the early heap holds before the wheel takes
// the ones after wnow (Clock). Up to about this many, a binary heap of
// 24-byte entries costs less per timer than the wheel's add, collection and
// batch; a clock that outgrows it pays for one move of that many timers.
const tinyMax = 1024

// tinyStart is the early heap's first capacity (earlyHeap.push): a clock
// with up to this many timers allocates its heap once, and a larger one
// grows it by doubling, so that a clock with a hundred timers does not pay
// for tinyMax entries (24 KiB) it never uses.
const tinyStart = 128

// leaveTiny ends tiny mode: it drops the heap's stale entries and moves its
// timers after wnow into the wheel in (at, seq) order, so that each time's
// timers keep their scheduling order there (SC2). The wheel, which may lag
// wnow while empty (SC3), is brought up to it (wheelOf); none is made when
// there is none and nothing to move.
func (c *Clock) leaveTiny() {
	c.tiny = false
	c.compactEarly() // live entries only, sorted by (at, seq)
	k, _ := slices.BinarySearchFunc(c.early, c.wnow, func(e entry, t int64) int { return cmp.Compare(e.at, t+1) })
	if k < len(c.early) || c.w != nil {
		w := c.wheelOf()
		for _, e := range c.early[k:] { // after wnow
			a, ok := w.add(e.at, e.t)
			if !ok {
				panic("simclock: the wheel refused a timer within its full reach") // tinyOK
			}
			e.t.a, e.t.state = a, statePending
		}
	}
	clear(c.early[k:])
	c.early = c.early[:k] // a prefix of a sorted array: a heap
	c.earlyKept = k
}

// start schedules an idle t at offset at and counts it as a waiter. It panics
// with ErrBeyondReach; the caller holds mu with a deferred unlock.
func (c *Clock) start(t *timer, at int64) {
	if err := c.arm(t, at); err != nil {
		panic(err)
	}
	c.live++
	if t.waiter {
		c.addWaiters(1)
	}
	c.check("start")
}

// setIdle marks t idle, so that a batch entry for it is stale.
func (c *Clock) setIdle(t *timer) {
	if t.state == stateParked {
		c.nparked--
	}
	if t.state != stateIdle {
		c.live--
		if t.waiter {
			c.addWaiters(-1)
		}
	}
	t.state = stateIdle
	t.seq = 0 // no schedule's number: its entries are stale
}

// stop unschedules t and reports whether it was scheduled.
func (c *Clock) stop(t *timer) bool {
	switch t.state {
	case stateIdle:
		return false
	case statePending:
		c.w.remove(t.a)
	}
	c.setIdle(t)
	return true
}

// send puts v in t's channel unless a value already waits there (a ticker
// drops ticks nobody received), and reports whether it did.
func (t *timer) send(v time.Time) bool {
	select {
	case t.x.ch <- v:
		return true
	default:
		return false
	}
}

// drain discards a value waiting in t's channel and reports whether there was
// one.
func (t *timer) drain() bool {
	select {
	case <-t.x.ch:
		return true
	default:
		return false
	}
}

// fireNow delivers a channel timer's value at once (d <= 0).
func (c *Clock) fireNow(t *timer) {
	t.send(c.timeOf(c.now))
}

// C returns the channel on which the timer delivers its time; nil for a timer
// made by AfterFunc.
func (t *timer) C() <-chan time.Time {
	return t.ch()
}

// Stop prevents the timer from firing. It returns true if the call stopped
// the timer, or discarded a value that had not been received; false if the
// timer had already fired (and its value was received) or been stopped. No
// value can be received from C after Stop returns.
func (t *timer) Stop() bool {
	if t.c.ntraps.Load() > 0 {
		defer t.c.trap(methodTimerStop, 0, time.Time{}, nil)()
	}
	return t.stop()
}

// stop is Stop, never trapped: for the clock's own timers.
func (t *timer) stop() bool {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	active := c.stop(t)
	if t.ch() != nil && t.drain() {
		active = true
	}
	c.check("Stop")
	return active
}

// Reset reschedules the timer to fire after d, and reports, as Stop does,
// whether it was active. A channel timer reset with d <= 0 delivers Now() at
// once; an AfterFunc timer is due at Now() and runs at the next call that
// drives the clock. No value from before the call can be received after Reset
// returns.
func (t *timer) Reset(d time.Duration) bool {
	if t.c.ntraps.Load() > 0 {
		defer t.c.trap(methodTimerReset, d, time.Time{}, nil)()
	}
	return t.reset(d)
}

// reset is Reset, never trapped.
func (t *timer) reset(d time.Duration) bool {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	active := c.stop(t)
	if t.ch() != nil {
		if t.drain() {
			active = true
		}
		if d <= 0 {
			c.fireNow(t)
			return active
		}
	}
	c.start(t, c.after(d))
	if d <= 0 {
		c.kick() // an AfterFunc timer: it runs without waiting for an advance
	}
	return active
}

// ticker is a timer with a channel and a period; its own Stop and Reset
// replace the timer's.
type ticker struct{ extTimer }

// Stop turns the ticker off. No tick can be received from C after Stop
// returns.
func (t *ticker) Stop() {
	if t.c.ntraps.Load() > 0 {
		defer t.c.trap(methodTickerStop, 0, time.Time{}, nil)()
	}
	t.stopTicker()
}

func (t *ticker) stopTicker() {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stop(&t.timer)
	t.drain()
}

// Reset stops the ticker and restarts it with period d: the next tick comes d
// after Now(). No tick from before the call can be received after it returns.
// It panics if d <= 0, as time.Ticker.Reset does.
func (t *ticker) Reset(d time.Duration) {
	if d <= 0 {
		panic(errNonPositiveReset)
	}
	if t.c.ntraps.Load() > 0 {
		defer t.c.trap(methodTickerReset, d, time.Time{}, nil)()
	}
	t.resetTicker(d)
}

func (t *ticker) resetTicker(d time.Duration) {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stop(&t.timer)
	t.drain()
	t.ext.period = d
	c.start(&t.timer, c.after(d))
}

var (
	errNonPositiveTicker = errors.New("simclock: non-positive interval for NewTicker")
	errNonPositiveReset  = errors.New("simclock: non-positive interval for Ticker.Reset")
)

// AfterFunc calls f when an advance reaches Now()+d; d <= 0: at once.
func (c *Clock) AfterFunc(d time.Duration, f func()) Timer {
	if c.ntraps.Load() > 0 {
		defer c.trap(methodAfterFunc, d, time.Time{}, nil)()
	}
	return c.afterFunc(d, f)
}

func (c *Clock) afterFunc(d time.Duration, f func()) *timer {
	t := &timer{c: c, f: f}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ready()
	c.start(t, c.after(d))
	if d <= 0 {
		c.kick()
	}
	return t
}

// deadlineTimer is AfterFunc for WithDeadline: the timer counts in Waiters.
func (c *Clock) deadlineTimer(d time.Duration, f func()) Timer {
	t := &timer{c: c, f: f, waiter: true}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ready()
	c.start(t, c.after(d))
	return t
}

// NewTimer sends the time on its channel at Now()+d (d <= 0: at once).
func (c *Clock) NewTimer(d time.Duration) Timer {
	if c.ntraps.Load() > 0 {
		defer c.trap(methodNewTimer, d, time.Time{}, nil)()
	}
	return c.newTimer(d)
}

func (c *Clock) newTimer(d time.Duration) *timer {
	t := newExtTimer(c, make(chan time.Time, 1), 0, true)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ready()
	if d <= 0 {
		c.fireNow(t)
	} else {
		c.start(t, c.after(d))
	}
	return t
}

// After returns NewTimer(d).C().
func (c *Clock) After(d time.Duration) <-chan time.Time {
	if c.ntraps.Load() > 0 {
		defer c.trap(methodAfter, d, time.Time{}, nil)()
	}
	return c.newTimer(d).C()
}

// Sleep waits until the clock reaches Now()+d.
func (c *Clock) Sleep(d time.Duration) { c.sleep(d, nil) }

func (c *Clock) sleep(d time.Duration, tags []string) {
	if d <= 0 {
		return
	}
	c.checkReentry("Sleep")
	started := func() {}
	if c.ntraps.Load() > 0 {
		started = c.trap(methodSleep, d, time.Time{}, tags)
	}
	ch := c.newTimer(d).C()
	started() // a trap's Release returns once the sleep is counted
	<-ch
}

// NewTicker sends the time every d, dropping unreceived ticks.
func (c *Clock) NewTicker(d time.Duration) Ticker {
	if d <= 0 {
		panic(errNonPositiveTicker)
	}
	if c.ntraps.Load() > 0 {
		defer c.trap(methodNewTicker, d, time.Time{}, nil)()
	}
	return c.newTicker(d)
}

func (c *Clock) newTicker(d time.Duration) *ticker {
	t := &ticker{}
	t.init(c, make(chan time.Time, 1), d, true)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ready()
	c.start(&t.timer, c.after(d))
	return t
}

// Tick returns NewTicker(d).C(), or nil for d <= 0.
func (c *Clock) Tick(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	if c.ntraps.Load() > 0 {
		defer c.trap(methodTick, d, time.Time{}, nil)()
	}
	return c.newTicker(d).C()
}

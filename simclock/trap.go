package simclock

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// The clock methods a trap can catch.
const (
	methodNow         = "Now"
	methodSince       = "Since"
	methodUntil       = "Until"
	methodSleep       = "Sleep"
	methodAfter       = "After"
	methodNewTimer    = "NewTimer"
	methodAfterFunc   = "AfterFunc"
	methodNewTicker   = "NewTicker"
	methodTick        = "Tick"
	methodTickerFunc  = "TickerFunc"
	methodTimerStop   = "Timer.Stop"
	methodTimerReset  = "Timer.Reset"
	methodTickerStop  = "Ticker.Stop"
	methodTickerReset = "Ticker.Reset"
)

// Trapper makes traps; get one from Clock.Trap.
type Trapper struct {
	c     *Clock
	match func(Call) bool
}

// Where returns a Trapper whose traps catch only the calls for which match
// returns true; the others go on as if there were no trap. It stands in for
// quartz's tags: clk.Trap().Where(func(c simclock.Call) bool { return
// c.Duration == time.Minute }).NewTimer() holds the one-minute timers only.
// match sees the call's Method, Duration and Time; it runs on the goroutine
// that makes the call, with no lock held, and must not call the clock's
// trapped methods. Where on a Trapper from Where requires both matches.
func (tp Trapper) Where(match func(Call) bool) Trapper {
	if prev := tp.match; prev != nil {
		return Trapper{tp.c, func(c Call) bool { return prev(c) && match(c) }}
	}
	return Trapper{tp.c, match}
}

// Trap returns the Trapper of c: clk.Trap().NewTimer() sets a trap on
// NewTimer, as in quartz.
//
// A trap makes every call of its method on c (from any goroutine, including
// callbacks) stop before it does anything, until the test has taken the call
// with Trap.Wait and released it with Call.Release; the call then runs (a
// trapped Now reads the time at its release) and Release returns once it has
// returned. So a test can hold the code under test at a known point, advance
// the clock, and let it go: the order of events no longer depends on the
// scheduler. Calls the clock makes for itself (a WithTimeout context's Now
// and its timer's Stop, a TickerFunc's own Stop) are not trapped.
//
// A trapped call blocks the goroutine that made it. If that is a callback, it
// holds up the advance that runs it, so the test must not be waiting in that
// advance: advance with AdvanceAsync or AdvanceNextAsync (quartz's awaitable
// Advance and AdvanceNext), take and release the call, then Wait for the
// advance. A callback's call that a trap would catch during any other
// advance panics with ErrTrappedCallback instead of deadlocking.
func (c *Clock) Trap() Trapper { return Trapper{c: c} }

// Now traps calls of Now.
func (tp Trapper) Now() *Trap { return tp.newTrap(methodNow) }

// Since traps calls of Since; Call.Time is its argument.
func (tp Trapper) Since() *Trap { return tp.newTrap(methodSince) }

// Until traps calls of Until; Call.Time is its argument.
func (tp Trapper) Until() *Trap { return tp.newTrap(methodUntil) }

// Sleep traps calls of Sleep with d > 0. Release returns once the released
// call has started to sleep (it counts in Waiters), not when it wakes.
func (tp Trapper) Sleep() *Trap { return tp.newTrap(methodSleep) }

// After traps calls of After.
func (tp Trapper) After() *Trap { return tp.newTrap(methodAfter) }

// NewTimer traps calls of NewTimer.
func (tp Trapper) NewTimer() *Trap { return tp.newTrap(methodNewTimer) }

// AfterFunc traps calls of AfterFunc.
func (tp Trapper) AfterFunc() *Trap { return tp.newTrap(methodAfterFunc) }

// NewTicker traps calls of NewTicker with d > 0.
func (tp Trapper) NewTicker() *Trap { return tp.newTrap(methodNewTicker) }

// Tick traps calls of Tick with d > 0.
func (tp Trapper) Tick() *Trap { return tp.newTrap(methodTick) }

// TickerFunc traps calls of TickerFunc with d > 0.
func (tp Trapper) TickerFunc() *Trap { return tp.newTrap(methodTickerFunc) }

// TimerStop traps Stop on the timers of NewTimer, After's timer excepted
// (it has no Stop) and AfterFunc.
func (tp Trapper) TimerStop() *Trap { return tp.newTrap(methodTimerStop) }

// TimerReset traps Reset on the timers of NewTimer and AfterFunc.
func (tp Trapper) TimerReset() *Trap { return tp.newTrap(methodTimerReset) }

// TickerStop traps Stop on tickers.
func (tp Trapper) TickerStop() *Trap { return tp.newTrap(methodTickerStop) }

// TickerReset traps Reset on tickers (with d > 0).
func (tp Trapper) TickerReset() *Trap { return tp.newTrap(methodTickerReset) }

// Trap catches the calls of one clock method; see Clock.Trap. Close it when
// done (defer trap.Close()).
type Trap struct {
	c      *Clock
	method string
	match  func(Call) bool // nil: every call
	mu     sync.Mutex
	queue  []*Call        // caught, not yet taken by Wait
	signal chan struct{}  // capacity 1: something was queued
	held   map[*Call]bool // caught and not released
	closed bool
}

// Call is a call caught by a trap.
type Call struct {
	// Method is the clock method called: "Now", "NewTimer", "Timer.Reset", ...
	Method string
	// Duration is the call's duration argument (After, AfterFunc, NewTimer,
	// NewTicker, Tick, TickerFunc, Sleep, Timer.Reset, Ticker.Reset).
	Duration time.Duration
	// Time is the call's time argument (Since, Until).
	Time time.Time

	g        *gate
	trap     *Trap
	released bool // under trap.mu
	byClose  bool // released by the trap's Close
}

// gate holds a trapped call until every trap that caught it has released it.
type gate struct {
	mu      sync.Mutex
	pending int
	open    chan struct{} // closed when pending reaches 0
	done    chan struct{} // closed when the call has returned
}

func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending--
	if g.pending == 0 {
		close(g.open)
	}
}

// ErrTrappedCallback: a trap caught a call made by a callback of an advance
// that does not run on AdvanceAsync's goroutine; the call panics with an
// error wrapping it rather than deadlock.
var ErrTrappedCallback = errors.New("simclock: trapped call in a callback of a synchronous advance")

// ErrTrapClosed is what Trap.Wait returns once the trap is closed.
var ErrTrapClosed = errors.New("simclock: trap closed")

func (tp Trapper) newTrap(method string) *Trap {
	c := tp.c
	tr := &Trap{c: c, method: method, match: tp.match, signal: make(chan struct{}, 1), held: map[*Call]bool{}}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.traps = append(c.traps, tr)
	c.ntraps.Store(int32(len(c.traps)))
	return tr
}

// trap is called at the start of a clock method while some trap is open. If
// a trap catches the method, it blocks until every trap that caught it has
// released the call; it returns the function that the method defers, which
// tells Release that the call has returned.
func (c *Clock) trap(method string, d time.Duration, t time.Time) func() {
	c.mu.Lock()
	var traps []*Trap
	for _, tr := range c.traps {
		if tr.method == method {
			traps = append(traps, tr)
		}
	}
	syncCallback := c.inCall && !c.async
	c.mu.Unlock()
	if syncCallback && len(traps) > 0 && insideCallback() {
		// Were it caught, the call would hold up the advance that runs the
		// callback until the test released it, and the test is (as far as
		// the clock can tell) that advance's caller.
		for _, tr := range traps {
			if tr.match == nil || tr.match(Call{Method: method, Duration: d, Time: t}) {
				panic(fmt.Errorf("%w: a trap caught %s called from a callback, which would hold up "+
					"the advance that runs the callback until the test releases the call. Advance with "+
					"AdvanceAsync or AdvanceNextAsync, take the call with Trap.Wait meanwhile, then Wait "+
					"for the advance", ErrTrappedCallback, method))
			}
		}
	}
	var g *gate
	for _, tr := range traps {
		if tr.match != nil && !tr.match(Call{Method: method, Duration: d, Time: t}) {
			continue
		}
		if g == nil {
			// pending starts at 1, released below once every trap has
			// the call, so that an early Release cannot open the gate.
			g = &gate{pending: 1, open: make(chan struct{}), done: make(chan struct{})}
		}
		call := &Call{Method: method, Duration: d, Time: t, g: g, trap: tr}
		tr.mu.Lock()
		if tr.closed {
			tr.mu.Unlock()
			continue
		}
		g.mu.Lock()
		g.pending++
		g.mu.Unlock()
		tr.queue = append(tr.queue, call)
		tr.held[call] = true
		select {
		case tr.signal <- struct{}{}:
		default:
		}
		tr.mu.Unlock()
	}
	if g == nil {
		return func() {}
	}
	g.release() // opens the gate at once if every trap closed meanwhile
	<-g.open
	return func() { close(g.done) }
}

// Wait returns the next call the trap has caught, in the order they were
// made, waiting for one if need be. It returns ctx.Err() if ctx ends first,
// and ErrTrapClosed once the trap is closed.
func (tr *Trap) Wait(ctx context.Context) (*Call, error) {
	for {
		tr.mu.Lock()
		if tr.closed {
			tr.mu.Unlock()
			return nil, ErrTrapClosed
		}
		if len(tr.queue) > 0 {
			call := tr.queue[0]
			tr.queue[0] = nil
			tr.queue = tr.queue[1:]
			if len(tr.queue) > 0 {
				select {
				case tr.signal <- struct{}{}:
				default:
				}
			}
			tr.mu.Unlock()
			return call, nil
		}
		tr.mu.Unlock()
		select {
		case <-tr.signal:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Release lets the call go on and waits until it has returned, so that what
// it did (a timer scheduled, a ticker stopped) is in place; it returns
// ctx.Err() if ctx ends first. A call caught by several traps goes on once
// each has released it: release them from different goroutines. Releasing a
// call twice panics; releasing one that Close has let go only waits for it.
func (call *Call) Release(ctx context.Context) error {
	tr := call.trap
	tr.mu.Lock()
	if call.released && !call.byClose {
		tr.mu.Unlock()
		panic(fmt.Errorf("simclock: %s call released twice", call.Method))
	}
	release := !call.released // else Close let it go: only wait for it
	call.released = true
	delete(tr.held, call)
	tr.mu.Unlock()
	if release {
		call.g.release()
	}
	select {
	case <-call.g.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close removes the trap: calls made afterwards go through, and calls it
// holds (taken by Wait or not) are released by it. Wait returns
// ErrTrapClosed from then on.
func (tr *Trap) Close() {
	c := tr.c
	c.mu.Lock()
	c.traps = slices.DeleteFunc(c.traps, func(x *Trap) bool { return x == tr })
	c.ntraps.Store(int32(len(c.traps)))
	c.mu.Unlock()
	tr.mu.Lock()
	if tr.closed {
		tr.mu.Unlock()
		return
	}
	tr.closed = true
	var held []*Call
	for call := range tr.held {
		call.released, call.byClose = true, true
		held = append(held, call)
	}
	clear(tr.held)
	tr.queue = nil
	tr.mu.Unlock()
	close(tr.signal)
	for _, call := range held {
		call.g.release()
	}
}

// String names the trap's method, for test messages.
func (tr *Trap) String() string { return "trap on " + tr.method }

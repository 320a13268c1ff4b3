package simclock

import (
	"context"
	"fmt"
	"slices"
	"strings"
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

// Trapper makes traps on the calls that carry all of tags.
type Trapper struct {
	c     *Clock
	match func(Call) bool
}

// Where narrows the traps to the calls match accepts.
func (tp Trapper) Where(match func(Call) bool) Trapper {
	if prev := tp.match; prev != nil {
		return Trapper{tp.c, func(c Call) bool { return prev(c) && match(c) }}
	}
	return Trapper{tp.c, match}
}

// Trap returns c's Trapper; a held callback does not hold up its advance.
func (c *Clock) Trap() Trapper { return Trapper{c: c} }

// Now traps Now.
func (tp Trapper) Now(tags ...string) *Trap { return tp.newTrap(methodNow, tags) }

// Since traps Since.
func (tp Trapper) Since(tags ...string) *Trap { return tp.newTrap(methodSince, tags) }

// Until traps Until.
func (tp Trapper) Until(tags ...string) *Trap { return tp.newTrap(methodUntil, tags) }

// Sleep traps Sleep.
func (tp Trapper) Sleep(tags ...string) *Trap { return tp.newTrap(methodSleep, tags) }

// After traps After.
func (tp Trapper) After(tags ...string) *Trap { return tp.newTrap(methodAfter, tags) }

// NewTimer traps NewTimer.
func (tp Trapper) NewTimer(tags ...string) *Trap { return tp.newTrap(methodNewTimer, tags) }

// AfterFunc traps AfterFunc.
func (tp Trapper) AfterFunc(tags ...string) *Trap { return tp.newTrap(methodAfterFunc, tags) }

// NewTicker traps NewTicker.
func (tp Trapper) NewTicker(tags ...string) *Trap { return tp.newTrap(methodNewTicker, tags) }

// Tick traps Tick.
func (tp Trapper) Tick(tags ...string) *Trap { return tp.newTrap(methodTick, tags) }

// TickerFunc traps TickerFunc.
func (tp Trapper) TickerFunc(tags ...string) *Trap { return tp.newTrap(methodTickerFunc, tags) }

// TimerStop traps Timer.Stop.
func (tp Trapper) TimerStop(tags ...string) *Trap { return tp.newTrap(methodTimerStop, tags) }

// TimerReset traps Timer.Reset.
func (tp Trapper) TimerReset(tags ...string) *Trap { return tp.newTrap(methodTimerReset, tags) }

// TickerStop traps Ticker.Stop.
func (tp Trapper) TickerStop(tags ...string) *Trap { return tp.newTrap(methodTickerStop, tags) }

// TickerReset traps Ticker.Reset.
func (tp Trapper) TickerReset(tags ...string) *Trap { return tp.newTrap(methodTickerReset, tags) }

// Trap holds the calls of one clock method; see Clock.Trap.
type Trap struct {
	c      *Clock
	method string
	tags   []string        // a call must carry all of them
	match  func(Call) bool // nil: every call
	mu     sync.Mutex
	queue  []*Call        // caught, not yet taken by Wait
	signal chan struct{}  // capacity 1: something was queued
	held   map[*Call]bool // caught and not released
	closed bool
}

// Call is a call held by a trap.
type Call struct {
	Method   string        // "Now", "NewTimer", "Timer.Reset", ...
	Duration time.Duration // the duration argument, if any
	Time     time.Time     // the time argument of Since and Until
	Tags     []string      // see Tagged

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

func (tp Trapper) newTrap(method string, tags []string) *Trap {
	c := tp.c
	tr := &Trap{c: c, method: method, tags: slices.Clone(tags), match: tp.match,
		signal: make(chan struct{}, 1), held: map[*Call]bool{}}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ready()
	c.traps = append(c.traps, tr)
	c.storeHooks()
	return tr
}

// matches reports whether tr catches call: same method, every tag of tr
// among the call's, and tr's match, if any, accepts it.
func (tr *Trap) matches(call Call) bool {
	if tr.method != call.Method {
		return false
	}
	for _, tag := range tr.tags {
		if !slices.Contains(call.Tags, tag) {
			return false
		}
	}
	return tr.match == nil || tr.match(call)
}

// trap is called at the start of a clock method while some trap is open or
// calls are logged. It logs the call; if a trap catches it, it blocks until
// every trap that caught it has released the call. It returns the function
// that the method defers, which tells Release that the call has returned.
func (c *Clock) trap(method string, d time.Duration, t time.Time, tags []string) func() {
	this := Call{Method: method, Duration: d, Time: t, Tags: tags}
	c.mu.Lock()
	var traps []*Trap
	for _, tr := range c.traps {
		if tr.method == method {
			traps = append(traps, tr)
		}
	}
	tb := c.logTB
	c.mu.Unlock()
	if tb != nil {
		tb.Logf("simclock: %s", this.describe())
	}
	var g *gate
	for _, tr := range traps {
		if !tr.matches(this) {
			continue
		}
		if g == nil {
			// pending starts at 1, released below once every trap has
			// the call, so that an early Release cannot open the gate.
			g = &gate{pending: 1, open: make(chan struct{}), done: make(chan struct{})}
		}
		call := &Call{Method: method, Duration: d, Time: t, Tags: tags, g: g, trap: tr}
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
	c.holdCallback()
	<-g.open
	return func() { close(g.done) }
}

// describe describes the call, for the log: method, arguments, tags.
func (call Call) describe() string {
	var b strings.Builder
	b.WriteString(call.Method)
	b.WriteByte('(')
	switch call.Method {
	case methodSince, methodUntil:
		b.WriteString(call.Time.String())
	case methodNow, methodTimerStop, methodTickerStop:
	default:
		b.WriteString(call.Duration.String())
	}
	b.WriteByte(')')
	if len(call.Tags) > 0 {
		fmt.Fprintf(&b, " %q", call.Tags)
	}
	return b.String()
}

// Wait returns the next call caught, or ctx.Err(), or ErrTrapClosed.
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

// Release lets the call go on and waits until it has returned. A call that
// several traps caught goes on once every one of them has released it; if
// ctx ends first, the error (which wraps ctx.Err()) names the traps still
// holding it.
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
		if others := call.heldElsewhere(); len(others) > 0 {
			return fmt.Errorf("%w: %s was also caught by %s, which has not released it; every trap that catches a call must release it",
				ctx.Err(), call.describe(), strings.Join(others, " and "))
		}
		return ctx.Err()
	}
}

// heldElsewhere names the other open traps that caught the same call and
// still hold it.
func (call *Call) heldElsewhere() []string {
	c := call.trap.c
	c.mu.Lock()
	traps := slices.Clone(c.traps)
	c.mu.Unlock()
	var names []string
	for _, tr := range traps {
		if tr == call.trap {
			continue
		}
		tr.mu.Lock()
		for held := range tr.held {
			if held.g == call.g {
				names = append(names, tr.String())
				break
			}
		}
		tr.mu.Unlock()
	}
	return names
}

// Close removes the trap and releases the calls it holds.
func (tr *Trap) Close() {
	c := tr.c
	c.mu.Lock()
	c.traps = slices.DeleteFunc(c.traps, func(x *Trap) bool { return x == tr })
	c.storeHooks()
	tb := c.tb
	c.mu.Unlock()
	tr.mu.Lock()
	if tr.closed {
		tr.mu.Unlock()
		return
	}
	tr.closed = true
	if taken := len(tr.held) - len(tr.queue); taken > 0 && tb != nil {
		tb.Helper()
		tb.Errorf("simclock: %v closed with %d call(s) taken by Wait and never released", tr, taken)
	}
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

// String names the trap's method and tags.
func (tr *Trap) String() string {
	if len(tr.tags) == 0 {
		return "trap on " + tr.method
	}
	return fmt.Sprintf("trap on %s %q", tr.method, tr.tags)
}

// MustWait is Wait that fails the test (WithTB), or panics, on error.
func (tr *Trap) MustWait(ctx context.Context) *Call {
	call, err := tr.Wait(ctx)
	if err != nil {
		if tb := tr.c.tb; tb != nil {
			tb.Helper() // the failure is the caller's
		}
		fail(tr.c, "%v: Wait: %v", tr, err)
	}
	return call
}

// MustRelease is Release that fails the test on error, as MustWait.
func (call *Call) MustRelease(ctx context.Context) {
	if err := call.Release(ctx); err != nil {
		if tb := call.trap.c.tb; tb != nil {
			tb.Helper() // the failure is the caller's
		}
		fail(call.trap.c, "Release of %s: %v", call.describe(), err)
	}
}

// fail fails c's test with Fatalf, or panics when c has no TB.
func fail(c *Clock, format string, args ...any) {
	c.mu.Lock()
	tb := c.tb
	c.mu.Unlock()
	if tb == nil {
		panic(fmt.Errorf("simclock: "+format, args...))
	}
	tb.Helper()
	tb.Fatalf("simclock: "+format, args...)
}

package simclock

import (
	"context"
	"time"
)

// Advancing is an advance in progress: quartz's AdvanceWaiter.
type Advancing struct {
	c        *Clock
	done     chan struct{}
	reached  chan struct{} // closed once Now() is the target
	moved    time.Duration // set before reached is closed
	fired    int
	panicked any
}

// AdvanceAsync is quartz's Advance: it returns once Now() is the target.
func (c *Clock) AdvanceAsync(d time.Duration) *Advancing {
	return c.goAdvance("AdvanceAsync", d, modeRelative)
}

// AdvanceNextAsync is quartz's AdvanceNext.
func (c *Clock) AdvanceNextAsync() *Advancing {
	return c.goAdvance("AdvanceNextAsync", 0, modeStep)
}

// goAdvance runs advance(op, 0, d, mode) on a goroutine of its own, which
// then waits for the callbacks a trap took hold of, and returns once the
// clock reads the advance's target (or the advance is done).
func (c *Clock) goAdvance(op string, d time.Duration, mode int) *Advancing {
	a := &Advancing{c: c, done: make(chan struct{}), reached: make(chan struct{})}
	go func() {
		defer close(a.done)
		defer func() {
			if p := recover(); p != nil {
				a.panicked = p
			}
		}()
		var held []*cbRun
		a.fired, _, held = c.advance(op, 0, d, mode, a)
		for _, r := range held {
			<-r.done
			if r.panicked != nil && a.panicked == nil {
				a.panicked = r.panicked
			}
		}
	}()
	c.mu.Lock()
	busy := c.inCall
	c.mu.Unlock()
	if busy && insideCallback() {
		return a // the advance waits for this callback to return
	}
	select {
	case <-a.reached:
	case <-a.done:
	}
	return a
}

// Done is closed when the advance and its callbacks are done.
func (a *Advancing) Done() <-chan struct{} { return a.done }

// Wait waits until Done or ctx ends, passing on a callback's panic. Called
// from a callback of the clock before Done, it panics with ErrReentrant.
func (a *Advancing) Wait(ctx context.Context) error {
	if !isClosed(a.done) {
		a.c.checkReentry("Advancing.Wait")
	}
	select {
	case <-a.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if a.panicked != nil {
		panic(a.panicked)
	}
	return nil
}

// MustWait is Wait that fails the test on error.
func (a *Advancing) MustWait(ctx context.Context) {
	if err := a.Wait(ctx); err != nil {
		if tb := a.c.tb; tb != nil {
			tb.Helper() // the failure is the caller's
		}
		fail(a.c, "advance not done: %v", err)
	}
}

// Result reports how far the advance moves, known once Now() is its target
// (when AdvanceAsync or AdvanceNextAsync returns, unless called from a
// callback), and how many timers fired, 0 until Done.
func (a *Advancing) Result() (time.Duration, int) {
	if isClosed(a.done) {
		return a.moved, a.fired
	}
	if isClosed(a.reached) {
		return a.moved, 0
	}
	return 0, 0
}

package simclock

import (
	"context"
	"time"
)

// Advancing is an advance running on a goroutine of its own, from
// AdvanceAsync or AdvanceNextAsync: quartz's AdvanceWaiter.
type Advancing struct {
	c        *Clock
	done     chan struct{}
	moved    time.Duration
	fired    int
	panicked any
}

// AdvanceAsync is quartz's awaitable Advance: it moves the clock by d and
// returns once Now() reads the target, leaving the callbacks due at the
// target itself to run on a goroutine of its own; Wait waits for them, and
// for any callback a trap holds. Every callback due before the target has
// returned, or is held by a trap, when it returns (one that blocks on
// anything else holds it up). Called from a callback, it returns at once
// and the advance starts after the current one.
func (c *Clock) AdvanceAsync(d time.Duration) *Advancing {
	return c.goAdvance(func(reached chan struct{}) (time.Duration, int, []*cbRun) {
		n, moved, held := c.advance("AdvanceAsync", 0, d, modeRelative, reached)
		return time.Duration(moved), n, held
	})
}

// AdvanceNextAsync is quartz's AdvanceNext: AdvanceAsync to the next instant
// at which a timer is due (or nowhere, with nothing pending). Result reports
// what it did.
func (c *Clock) AdvanceNextAsync() *Advancing {
	return c.goAdvance(func(reached chan struct{}) (time.Duration, int, []*cbRun) {
		n, moved, held := c.advance("AdvanceNextAsync", 0, 0, modeStep, reached)
		return time.Duration(max(moved, 0)), n, held
	})
}

func (c *Clock) goAdvance(run func(chan struct{}) (time.Duration, int, []*cbRun)) *Advancing {
	a := &Advancing{c: c, done: make(chan struct{})}
	reached := make(chan struct{})
	go func() {
		defer close(a.done)
		defer func() {
			if p := recover(); p != nil {
				a.panicked = p
			}
		}()
		var held []*cbRun
		a.moved, a.fired, held = run(reached)
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
	case <-reached:
	case <-a.done:
	}
	return a
}

// Done is closed when the advance has returned.
func (a *Advancing) Done() <-chan struct{} { return a.done }

// Wait waits until the advance has returned, or ctx ends (it returns
// ctx.Err()). If the advance panicked (a callback's panic, ErrReentrant),
// Wait panics with the same value, on its caller's goroutine.
func (a *Advancing) Wait(ctx context.Context) error {
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

// MustWait is Wait that fails the test when ctx ends first: with Fatalf on
// the TB of a clock made with WithTB (call it from the test's goroutine),
// else with a panic.
func (a *Advancing) MustWait(ctx context.Context) {
	if err := a.Wait(ctx); err != nil {
		fail(a.c, "advance not done: %v", err)
	}
}

// Result reports how far the advance moved the clock and how many timers
// fired, once Done is closed (0, 0 before).
func (a *Advancing) Result() (time.Duration, int) {
	select {
	case <-a.done:
		return a.moved, a.fired
	default:
		return 0, 0
	}
}

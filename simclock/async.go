package simclock

import (
	"context"
	"time"
)

// Advancing is an advance running on a goroutine of its own, from
// AdvanceAsync or AdvanceNextAsync: quartz's AdvanceWaiter.
type Advancing struct {
	done     chan struct{}
	moved    time.Duration
	fired    int
	panicked any
}

// AdvanceAsync starts Advance(d) on a goroutine of its own and returns at
// once. It is what a test uses when a callback's clock call is trapped:
// while the advance waits for the call's release, the test takes the call
// (Trap.Wait), releases it, then waits for the advance (Advancing.Wait).
// Traps catch callbacks' calls only in advances started this way.
func (c *Clock) AdvanceAsync(d time.Duration) *Advancing {
	return c.goAdvance(func() (time.Duration, int) {
		n, moved := c.advance("AdvanceAsync", 0, d, modeRelative)
		return time.Duration(moved), n
	})
}

// AdvanceNextAsync starts AdvanceNext on a goroutine of its own and returns
// at once; see AdvanceAsync. Result reports what it did.
func (c *Clock) AdvanceNextAsync() *Advancing {
	return c.goAdvance(func() (time.Duration, int) {
		n, moved := c.advance("AdvanceNextAsync", 0, 0, modeStep)
		return time.Duration(max(moved, 0)), n
	})
}

func (c *Clock) goAdvance(run func() (time.Duration, int)) *Advancing {
	a := &Advancing{done: make(chan struct{})}
	go func() {
		defer close(a.done)
		defer func() { a.panicked = recover() }()
		a.moved, a.fired = run()
	}()
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

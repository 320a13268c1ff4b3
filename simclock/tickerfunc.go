package simclock

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Waiter is what TickerFunc returns: Wait blocks until the ticker has
// stopped and returns why.
type Waiter interface {
	Wait() error
}

var errNonPositiveTickerFunc = errors.New("simclock: non-positive interval for TickerFunc")

// TickerFunc calls f every d of simulated time, on the goroutine that drives
// the clock (as an AfterFunc callback, in time order among the other timers),
// until f returns an error or ctx is done. Wait returns that error, or
// ctx.Err(). It panics if d <= 0. This is quartz's TickerFunc.
//
// Unlike a channel ticker, it drops no tick: an advance over k periods calls
// f k times, each with Now() at its tick, so its cost is one call per period
// passed. A tick that finds ctx done stops the ticker without calling f; the
// ticker also stops, on a goroutine of package context's, as soon as ctx is
// done. It does not count in Waiters.
func (c *Clock) TickerFunc(ctx context.Context, d time.Duration, f func() error) Waiter {
	if d <= 0 {
		panic(errNonPositiveTickerFunc)
	}
	if c.ntraps.Load() > 0 {
		defer c.trap(methodTickerFunc, d, time.Time{})()
	}
	w := &funcWaiter{done: make(chan struct{})}
	t := newExtTimer(c, nil, d, false)
	t.f = func() {
		err := ctx.Err()
		if err == nil {
			err = f()
		}
		if err != nil {
			c.stopTickerFunc(t)
			w.finish(err)
		}
	}
	c.mu.Lock()
	c.ready()
	c.start(t, c.after(d))
	if c.tickerFuncs == nil {
		c.tickerFuncs = map[*timer]func() error{}
	}
	c.tickerFuncs[t] = f // for Running, which names f rather than the wrapper
	c.mu.Unlock()
	w.mu.Lock()
	w.unwatch = context.AfterFunc(ctx, func() {
		c.stopTickerFunc(t)
		w.finish(ctx.Err())
	})
	w.mu.Unlock()
	return w
}

// stopTickerFunc stops a TickerFunc's timer, never trapped.
func (c *Clock) stopTickerFunc(t *timer) {
	t.stop()
	c.mu.Lock()
	delete(c.tickerFuncs, t)
	c.mu.Unlock()
}

// funcWaiter is the Waiter of a TickerFunc.
type funcWaiter struct {
	done    chan struct{}
	mu      sync.Mutex
	err     error
	unwatch func() bool // stops the watch on ctx
}

func (w *funcWaiter) finish(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	w.err = err
	close(w.done)
	if w.unwatch != nil {
		w.unwatch()
	}
}

// Wait blocks until the ticker has stopped and returns f's error or
// ctx.Err().
func (w *funcWaiter) Wait() error {
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// TickerFunc of package time: f runs on a goroutine of its own, every d,
// until it returns an error or ctx is done.
func (realClock) TickerFunc(ctx context.Context, d time.Duration, f func() error) Waiter {
	if d <= 0 {
		panic(errNonPositiveTickerFunc)
	}
	w := &funcWaiter{done: make(chan struct{})}
	tk := time.NewTicker(d)
	go func() {
		defer tk.Stop()
		for {
			select {
			case <-ctx.Done():
				w.finish(ctx.Err())
				return
			case <-tk.C:
				if err := ctx.Err(); err != nil {
					w.finish(err)
					return
				}
				if err := f(); err != nil {
					w.finish(err)
					return
				}
			}
		}
	}()
	return w
}

package simclock

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Waiter.Wait returns f's error, or ctx.Err() once f is not running.
type Waiter interface {
	Wait() error
}

var errNonPositiveTickerFunc = errors.New("simclock: non-positive interval for TickerFunc")

// TickerFunc is quartz's; a tick while a trap holds f is skipped.
func (c *Clock) TickerFunc(ctx context.Context, d time.Duration, f func() error) Waiter {
	return c.tickerFunc(ctx, d, f, nil)
}

func (c *Clock) tickerFunc(ctx context.Context, d time.Duration, f func() error, tags []string) Waiter {
	if d <= 0 {
		panic(errNonPositiveTickerFunc)
	}
	if c.ntraps.Load() > 0 {
		defer c.trap(methodTickerFunc, d, time.Time{}, tags)()
	}
	w := &funcWaiter{done: make(chan struct{})}
	t := newExtTimer(c, nil, d, false)
	t.f = func() {
		if err := ctx.Err(); err != nil {
			c.stopTickerFunc(t)
			w.finish(err)
			return
		}
		if !w.run.TryLock() {
			return // f has not returned from the last tick: skip this one
		}
		defer w.run.Unlock()
		if err := f(); err != nil {
			c.stopTickerFunc(t)
			w.finish(err) // before Unlock: f's error wins over ctx's
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
		w.run.Lock() // wait for a running f, whose error wins
		defer w.run.Unlock()
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
	run     sync.Mutex // held while f runs
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

// Wait blocks until the ticker has stopped and returns why: f's error, or
// ctx.Err() once ctx is done and f is not running.
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

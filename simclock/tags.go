package simclock

import (
	"context"
	"slices"
	"time"
)

// Tagged returns a view of clk whose calls carry tags (quartz's tags), and
// so do the Stop and Reset of the timers and tickers it makes.
func Tagged(clk Interface, tags ...string) Interface {
	switch v := clk.(type) {
	case *Clock:
		return taggedClock{v, slices.Clone(tags)}
	case taggedClock:
		return taggedClock{v.c, append(slices.Clip(v.tags), tags...)}
	}
	return clk
}

// TaggedTimer returns a view of t whose Stop and Reset carry tags, after
// those of the Tagged view that made t: quartz's t.Stop("stop") is
// TaggedTimer(t, "stop").Stop(). Timer's methods take no tags, so that it
// keeps satisfying interface{ Stop() bool }. A timer of Real() is returned
// as is.
func TaggedTimer(t Timer, tags ...string) Timer {
	switch v := t.(type) {
	case *timer:
		return taggedTimer{v, slices.Clone(tags)}
	case taggedTimer:
		return taggedTimer{v.t, append(slices.Clip(v.tags), tags...)}
	}
	return t
}

// TaggedTicker is TaggedTimer for a ticker: quartz's tk.Reset(d, "reset") is
// TaggedTicker(tk, "reset").Reset(d).
func TaggedTicker(tk Ticker, tags ...string) Ticker {
	switch v := tk.(type) {
	case *ticker:
		return taggedTicker{v, slices.Clone(tags)}
	case taggedTicker:
		return taggedTicker{v.t, append(slices.Clip(v.tags), tags...)}
	}
	return tk
}

// taggedClock is a *Clock whose calls carry tags.
type taggedClock struct {
	c    *Clock
	tags []string
}

func (v taggedClock) Now() time.Time {
	if v.c.ntraps.Load() > 0 {
		defer v.c.trap(methodNow, 0, time.Time{}, v.tags)()
	}
	return v.c.current()
}

func (v taggedClock) Since(t time.Time) time.Duration {
	if v.c.ntraps.Load() > 0 {
		defer v.c.trap(methodSince, 0, t, v.tags)()
	}
	return v.c.current().Sub(t)
}

func (v taggedClock) Until(t time.Time) time.Duration {
	if v.c.ntraps.Load() > 0 {
		defer v.c.trap(methodUntil, 0, t, v.tags)()
	}
	return t.Sub(v.c.current())
}

func (v taggedClock) Sleep(d time.Duration) { v.c.sleep(d, v.tags) }

func (v taggedClock) After(d time.Duration) <-chan time.Time {
	if v.c.ntraps.Load() > 0 {
		defer v.c.trap(methodAfter, d, time.Time{}, v.tags)()
	}
	return v.c.newTimer(d).C()
}

func (v taggedClock) Tick(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	if v.c.ntraps.Load() > 0 {
		defer v.c.trap(methodTick, d, time.Time{}, v.tags)()
	}
	return v.c.newTicker(d).C()
}

func (v taggedClock) NewTimer(d time.Duration) Timer {
	if v.c.ntraps.Load() > 0 {
		defer v.c.trap(methodNewTimer, d, time.Time{}, v.tags)()
	}
	return taggedTimer{v.c.newTimer(d), v.tags}
}

func (v taggedClock) AfterFunc(d time.Duration, f func()) Timer {
	if v.c.ntraps.Load() > 0 {
		defer v.c.trap(methodAfterFunc, d, time.Time{}, v.tags)()
	}
	return taggedTimer{v.c.afterFunc(d, f), v.tags}
}

func (v taggedClock) NewTicker(d time.Duration) Ticker {
	if d <= 0 {
		panic(errNonPositiveTicker)
	}
	if v.c.ntraps.Load() > 0 {
		defer v.c.trap(methodNewTicker, d, time.Time{}, v.tags)()
	}
	return taggedTicker{v.c.newTicker(d), v.tags}
}

func (v taggedClock) TickerFunc(ctx context.Context, d time.Duration, f func() error) Waiter {
	return v.c.tickerFunc(ctx, d, f, v.tags)
}

// taggedTimer is a timer whose Stop and Reset carry tags.
type taggedTimer struct {
	t    *timer
	tags []string
}

func (v taggedTimer) C() <-chan time.Time { return v.t.C() }

func (v taggedTimer) Stop() bool {
	if v.t.c.ntraps.Load() > 0 {
		defer v.t.c.trap(methodTimerStop, 0, time.Time{}, v.tags)()
	}
	return v.t.stop()
}

func (v taggedTimer) Reset(d time.Duration) bool {
	if v.t.c.ntraps.Load() > 0 {
		defer v.t.c.trap(methodTimerReset, d, time.Time{}, v.tags)()
	}
	return v.t.reset(d)
}

// taggedTicker is a ticker whose Stop and Reset carry tags.
type taggedTicker struct {
	t    *ticker
	tags []string
}

func (v taggedTicker) C() <-chan time.Time { return v.t.C() }

func (v taggedTicker) Stop() {
	if v.t.c.ntraps.Load() > 0 {
		defer v.t.c.trap(methodTickerStop, 0, time.Time{}, v.tags)()
	}
	v.t.stopTicker()
}

func (v taggedTicker) Reset(d time.Duration) {
	if d <= 0 {
		panic(errNonPositiveReset)
	}
	if v.t.c.ntraps.Load() > 0 {
		defer v.t.c.trap(methodTickerReset, d, time.Time{}, v.tags)()
	}
	v.t.resetTicker(d)
}

var (
	_ Interface = taggedClock{}
	_ Timer     = taggedTimer{}
	_ Ticker    = taggedTicker{}
)

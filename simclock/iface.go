package simclock

import (
	"context"
	"time"
)

// Interface is what code under test takes instead of calling package time:
// both *Clock (simulated) and Real() (package time) satisfy it. (It cannot
// share the name Clock with the simulated clock's type, as it would in
// clockwork or quartz; see the README's section on moving from them.)
type Interface interface {
	Now() time.Time
	Since(t time.Time) time.Duration
	Until(t time.Time) time.Duration
	Sleep(d time.Duration)
	After(d time.Duration) <-chan time.Time
	Tick(d time.Duration) <-chan time.Time
	NewTimer(d time.Duration) Timer
	AfterFunc(d time.Duration, f func()) Timer
	NewTicker(d time.Duration) Ticker
	// TickerFunc calls f every d until f returns an error or ctx is done;
	// the Waiter's Wait returns that error or ctx.Err(). With Real(), f
	// runs on a goroutine of its own and a slow f makes ticks drop, as
	// time.Ticker's do; with a *Clock, on the driving goroutine, once per
	// period passed.
	TickerFunc(ctx context.Context, d time.Duration, f func() error) Waiter
}

// Timer is a time.Timer behind an interface: the field C becomes the method
// C().
type Timer interface {
	C() <-chan time.Time
	Stop() bool
	Reset(d time.Duration) bool
}

// Ticker is a time.Ticker behind an interface.
type Ticker interface {
	C() <-chan time.Time
	Stop()
	Reset(d time.Duration)
}

var (
	_ Interface = (*Clock)(nil)
	_ Interface = realClock{}
	_ Timer     = (*timer)(nil)
	_ Ticker    = (*ticker)(nil)
)

// Real returns the Interface of package time. Its timers have the Stop and Reset
// semantics of the Go version the main module asks for (those of Go 1.23 and
// later for a go directive of 1.23 or more).
func Real() Interface { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) Since(t time.Time) time.Duration        { return time.Since(t) }
func (realClock) Until(t time.Time) time.Duration        { return time.Until(t) }
func (realClock) Sleep(d time.Duration)                  { time.Sleep(d) }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
func (realClock) Tick(d time.Duration) <-chan time.Time  { return time.Tick(d) }
func (realClock) NewTimer(d time.Duration) Timer         { return realTimer{time.NewTimer(d)} }
func (realClock) NewTicker(d time.Duration) Ticker       { return realTicker{time.NewTicker(d)} }
func (realClock) AfterFunc(d time.Duration, f func()) Timer {
	return realTimer{time.AfterFunc(d, f)}
}

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time        { return r.t.C }
func (r realTimer) Stop() bool                 { return r.t.Stop() }
func (r realTimer) Reset(d time.Duration) bool { return r.t.Reset(d) }

type realTicker struct{ t *time.Ticker }

func (r realTicker) C() <-chan time.Time   { return r.t.C }
func (r realTicker) Stop()                 { r.t.Stop() }
func (r realTicker) Reset(d time.Duration) { r.t.Reset(d) }

package simclock

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// panicOf runs f on a goroutine of its own and returns what it panicked with
// (nil if it returned). A call that hangs fails the test at ctx's end instead
// of hanging it.
func panicOf(t *testing.T, ctx context.Context, f func()) any {
	t.Helper()
	got := make(chan any, 1)
	go func() {
		defer func() { got <- recover() }()
		f()
	}()
	select {
	case r := <-got:
		return r
	case <-ctx.Done():
		t.Fatal("the call hung instead of panicking")
		return nil
	}
}

func TestReentrantAdvancePanics(t *testing.T) {
	ops := map[string]func(c *Clock){
		"Advance":     func(c *Clock) { c.Advance(time.Second) },
		"AdvanceTo":   func(c *Clock) { c.AdvanceTo(c.Now().Add(time.Second)) },
		"RunUntil":    func(c *Clock) { c.RunUntil(c.Now().Add(time.Second)) },
		"Step":        func(c *Clock) { c.Step() },
		"Run":         func(c *Clock) { _ = c.Run(context.Background()) },
		"Sleep":       func(c *Clock) { c.Sleep(time.Second) },
		"AdvanceNext": func(c *Clock) { c.AdvanceNext() },
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			ctx := bound(t)
			c := New(t0)
			ran := false
			c.AfterFunc(time.Second, func() { ran = true; op(c) })
			c.AfterFunc(time.Hour, func() {}) // something for Step and Run to reach
			r := panicOf(t, ctx, func() { c.Advance(2 * time.Second) })
			err, _ := r.(error)
			if !ran || !errors.Is(err, ErrReentrant) {
				t.Fatalf("ran %v, panic %v; want a panic wrapping ErrReentrant", ran, r)
			}
			want := fmt.Sprintf("%s would deadlock", name)
			if name == "Run" {
				want = "Step would deadlock" // Run steps
			}
			if msg := err.Error(); !contains(msg, want) || !contains(msg, "AfterFunc") {
				t.Fatalf("message %q: want it to name %q and say what to do instead (AfterFunc)", msg, want)
			}
			// The clock is usable afterwards, at the panicking callback's time.
			if got := c.Since(t0); got != time.Second {
				t.Fatalf("Now = t0+%v after the panic, want t0+1s", got)
			}
			if n := c.RunUntil(t0.Add(2 * time.Hour)); n != 1 {
				t.Fatalf("RunUntil fired %d timers after the panic, want 1", n)
			}
		})
	}
}

func contains(s, sub string) bool {
	return len(sub) <= len(s) && (s[:len(sub)] == sub || contains(s[1:], sub))
}

// Another goroutine may advance while a callback runs: it waits its turn,
// it does not panic.
func TestAdvanceFromOtherGoroutineDuringCallbackWaits(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	calling := make(chan struct{})
	other := make(chan any, 1)
	c.AfterFunc(time.Second, func() {
		go func() {
			defer func() { other <- recover() }()
			close(calling)
			c.Advance(time.Second)
			c.Sleep(0)
		}()
		<-calling
	})
	c.Advance(time.Second)
	select {
	case r := <-other:
		if r != nil {
			t.Fatalf("an advance from another goroutine panicked: %v", r)
		}
	case <-ctx.Done():
		t.Fatal("the other goroutine's advance did not return")
	}
	if got := c.Since(t0); got != 2*time.Second {
		t.Fatalf("Now = t0+%v, want t0+2s", got)
	}
}

// A callback of one clock may drive another clock that nobody else drives.
func TestCallbackDrivesAnotherClock(t *testing.T) {
	ctx := bound(t)
	a, b := New(t0), New(t0)
	fired := false
	b.AfterFunc(time.Minute, func() { fired = true })
	a.AfterFunc(time.Second, func() { b.Advance(time.Minute) })
	if r := panicOf(t, ctx, func() { a.Advance(time.Second) }); r != nil {
		t.Fatalf("panic %v", r)
	}
	if !fired {
		t.Fatal("b's timer did not fire")
	}
}

func TestZeroClockIsUsable(t *testing.T) {
	epoch := time.Unix(0, 0).UTC()
	var c Clock
	if got := c.Now(); !got.Equal(epoch) || got.IsZero() {
		t.Fatalf("zero Clock reads %v, want %v", got, epoch)
	}
	var z Clock
	if _, ok := z.Next(); ok {
		t.Fatal("zero Clock has a pending timer")
	}
	var l []string
	c.AfterFunc(2*time.Second, func() { l = append(l, "b@"+c.Since(epoch).String()) })
	c.AfterFunc(time.Second, func() { l = append(l, "a@"+c.Since(epoch).String()) })
	tm := c.NewTimer(3 * time.Second)
	if c.Waiters() != 1 {
		t.Fatalf("Waiters = %d, want 1", c.Waiters())
	}
	c.Advance(3 * time.Second)
	if got := fmt.Sprint(l); got != "[a@1s b@2s]" {
		t.Fatalf("fires %s, want [a@1s b@2s]", got)
	}
	if v := waiting(t, tm.C()); !v.Equal(epoch.Add(3 * time.Second)) {
		t.Fatalf("timer delivered %v", v)
	}
	// Each method works as the first call on a zero Clock.
	firsts := map[string]func(c *Clock){
		"Advance":   func(c *Clock) { c.Advance(time.Second) },
		"AdvanceTo": func(c *Clock) { c.AdvanceTo(epoch.Add(time.Second)) },
		"Step":      func(c *Clock) { c.Step() },
		"NewTicker": func(c *Clock) { c.NewTicker(time.Second).Stop() },
		"After":     func(c *Clock) { c.After(time.Second) },
		"Since":     func(c *Clock) { c.Since(epoch) },
		"Until":     func(c *Clock) { c.Until(epoch) },
		"Sleep(0)":  func(c *Clock) { c.Sleep(0) },
		"Waiters":   func(c *Clock) { c.Waiters() },
	}
	for name, f := range firsts {
		var c Clock
		f(&c)
		ran := false
		c.AfterFunc(time.Second, func() { ran = true })
		c.RunUntil(c.Now().Add(time.Second))
		if !ran {
			t.Fatalf("zero Clock after %s: the callback did not run", name)
		}
		if c.Now().Before(epoch) {
			t.Fatalf("zero Clock after %s reads %v", name, c.Now())
		}
	}
}

func stuckCallback(release <-chan struct{}) func() {
	return func() { <-release }
}

// Running names the callback that holds up an advance.
func TestRunningNamesStuckCallback(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	if _, _, ok := c.Running(); ok {
		t.Fatal("Running reports a callback on an idle clock")
	}
	release := make(chan struct{})
	c.AfterFunc(3*time.Second, stuckCallback(release))
	c.TickerFunc(context.Background(), time.Hour, func() error { <-release; return nil })
	advanced := make(chan struct{})
	go func() { c.Advance(2 * time.Hour); close(advanced) }()
	// Wait until the advance is stuck in the callback.
	eventually(t, ctx, "the callback runs", func() bool {
		at, fn, ok := c.Running()
		if ok && (at.Sub(t0) != 3*time.Second || !contains(fn, "stuckCallback")) {
			t.Fatalf("Running = %v, %q; want t0+3s in stuckCallback", at.Sub(t0), fn)
		}
		return ok
	})
	release <- struct{}{}
	eventually(t, ctx, "the ticker runs", func() bool { // named as the caller wrote it
		at, fn, ok := c.Running()
		if ok && at.Sub(t0) == time.Hour && !contains(fn, "TestRunningNamesStuckCallback.func") {
			t.Fatalf("Running names %q for the TickerFunc, want the test's closure", fn)
		}
		return ok && at.Sub(t0) == time.Hour
	})
	close(release)
	select {
	case <-advanced:
	case <-ctx.Done():
		t.Fatal("Advance did not return")
	}
	if _, _, ok := c.Running(); ok {
		t.Fatal("Running reports a callback after the advance")
	}
}

// eventually polls cond until it holds, failing the test at ctx's end. It
// decides no result by real time: it only waits for another goroutine to get
// somewhere the clock cannot signal.
func eventually(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waited in vain for %s", what)
		default:
			time.Sleep(time.Microsecond)
		}
	}
}

// waiting returns the value waiting in ch, failing the test if there is
// none: for a channel the clock has filled by the time the call that fills
// it returns.
func waiting[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	default:
		t.Fatal("no value waiting in the channel")
		panic("unreachable")
	}
}

// within returns the next value from ch, failing the test at ctx's end
// instead of hanging: for a value another goroutine sends.
func within[T any](t *testing.T, ctx context.Context, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatal("no value received before the test's deadline")
		panic("unreachable")
	}
}

// A callback that waits on an advance of its own clock would wait forever:
// that advance cannot begin until the one running the callback is done. It
// panics with ErrReentrant, as driving the clock does; starting the advance
// alone is fine (it runs after).
func TestCallbackWaitingOnItsClocksAdvancePanics(t *testing.T) {
	waits := map[string]func(c *Clock){
		"AdvanceAsync Wait":         func(c *Clock) { _ = c.AdvanceAsync(time.Second).Wait(context.Background()) },
		"AdvanceAsync MustWait":     func(c *Clock) { c.AdvanceAsync(time.Second).MustWait(context.Background()) },
		"AdvanceNextAsync Wait":     func(c *Clock) { _ = c.AdvanceNextAsync().Wait(context.Background()) },
		"AdvanceNextAsync MustWait": func(c *Clock) { c.AdvanceNextAsync().MustWait(context.Background()) },
	}
	for name, wait := range waits {
		for _, kind := range []string{"AfterFunc", "TickerFunc"} {
			t.Run(name+" from "+kind, func(t *testing.T) {
				ctx := bound(t)
				c := New(t0)
				var ran atomic.Bool
				if kind == "AfterFunc" {
					c.AfterFunc(time.Second, func() { ran.Store(true); wait(c) })
				} else {
					// The advance the callback started runs after the panic
					// and would tick again: the ticker ends with the test.
					tick, stop := context.WithCancel(ctx)
					defer stop()
					c.TickerFunc(tick, time.Second, func() error { ran.Store(true); wait(c); return nil })
				}
				c.AfterFunc(time.Hour, func() {}) // something for AdvanceNextAsync to reach
				r := panicOf(t, ctx, func() { c.Advance(time.Second) })
				err, _ := r.(error)
				if !ran.Load() || !errors.Is(err, ErrReentrant) {
					t.Fatalf("ran %v, panic %v; want a panic wrapping ErrReentrant", ran.Load(), r)
				}
				if msg := err.Error(); !contains(msg, "Advancing.Wait would deadlock") || !contains(msg, "AfterFunc") {
					t.Fatalf("message %q: want it to name Advancing.Wait and say what to do instead", msg)
				}
			})
		}
	}
	// Waiting on an advance that is done already is fine.
	ctx := bound(t)
	c := New(t0)
	adv := c.AdvanceAsync(time.Second)
	if err := adv.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	c.AfterFunc(time.Second, func() { adv.MustWait(ctx) })
	if r := panicOf(t, ctx, func() { c.Advance(time.Second) }); r != nil {
		t.Fatalf("waiting on a finished advance from a callback panicked: %v", r)
	}
	// Starting one without waiting is fine: it runs after the callback's.
	c.AfterFunc(time.Second, func() { adv = c.AdvanceAsync(time.Second) })
	c.Advance(time.Second)
	if err := adv.Wait(ctx); err != nil || c.Since(t0) != 4*time.Second {
		t.Fatalf("an advance started by a callback: Wait = %v at t0+%v, want nil at t0+4s", err, c.Since(t0))
	}
}

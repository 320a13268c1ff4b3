package simclock_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/simclock"
)

// The behaviour tests of docs/migrating.md: every row of its tables names,
// in its last column, one of these tests, which checks what the row says
// simclock does. TestMigrationRows runs them by the names the document
// gives, and fails if a row names no test or a test has no row.

var t1 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// testBound is a real-time safety net: a wait that should end at once fails
// the test instead of hanging it.
func testBound(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func recv(t *testing.T, ctx context.Context, ch <-chan time.Time) time.Time {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatal("nothing received")
		return time.Time{}
	}
}

// await returns the next value from ch, failing the test at ctx's end.
func await[T any](t *testing.T, ctx context.Context, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatal("nothing received before the test's deadline")
		panic("unreachable")
	}
}

func none(t *testing.T, ch <-chan time.Time, what string) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("%s: received %v, want nothing", what, v)
	default:
	}
}

var rowTests = map[string]func(t *testing.T){
	"interface": func(t *testing.T) {
		// Code under test takes simclock.Interface; both clocks satisfy it.
		var clocks = []simclock.Interface{simclock.Real(), simclock.New(t1)}
		for _, c := range clocks {
			if c.Now().IsZero() {
				t.Fatalf("%T: Now is zero", c)
			}
		}
	},
	"real": func(t *testing.T) {
		before := time.Now()
		now := simclock.Real().Now()
		if now.Before(before) || now.Sub(before) > time.Minute {
			t.Fatalf("Real().Now() = %v, time.Now() was %v", now, before)
		}
	},
	"new-at": func(t *testing.T) {
		if got := simclock.New(t1).Now(); !got.Equal(t1) {
			t.Fatalf("New(t).Now() = %v, want %v", got, t1)
		}
	},
	"zero-epoch": func(t *testing.T) {
		var c simclock.Clock
		if got := c.Now(); !got.Equal(time.Unix(0, 0)) {
			t.Fatalf("zero Clock reads %v, want the Unix epoch", got)
		}
	},
	"now-since-until": func(t *testing.T) {
		c := simclock.New(t1)
		c.Advance(time.Second)
		if c.Since(t1) != time.Second || c.Until(t1.Add(3*time.Second)) != 2*time.Second ||
			!c.Now().Equal(t1.Add(time.Second)) {
			t.Fatalf("Now %v, Since %v, Until %v", c.Now(), c.Since(t1), c.Until(t1.Add(3*time.Second)))
		}
		if c.Now() != c.Now() {
			t.Fatal("Now moved between two reads: the clock moves only when driven")
		}
	},
	"advance": func(t *testing.T) {
		// Any distance; callbacks in time order, FIFO at equal times, each at
		// its own time, all run when Advance returns.
		c := simclock.New(t1)
		var got []string
		at := func(s string) func() { return func() { got = append(got, s+"@"+c.Since(t1).String()) } }
		c.AfterFunc(time.Hour, at("c"))
		c.AfterFunc(time.Second, at("a"))
		c.AfterFunc(time.Second, at("b"))
		c.Advance(24 * time.Hour)
		if strings.Join(got, " ") != "a@1s b@1s c@1h0m0s" || c.Since(t1) != 24*time.Hour {
			t.Fatalf("fires %v, now +%v", got, c.Since(t1))
		}
	},
	"advance-to": func(t *testing.T) {
		c := simclock.New(t1)
		fired := false
		c.AfterFunc(time.Minute, func() { fired = true })
		c.AdvanceTo(t1.Add(time.Hour))
		if !fired || !c.Now().Equal(t1.Add(time.Hour)) {
			t.Fatalf("fired %v, Now %v", fired, c.Now())
		}
		c.AdvanceTo(t1) // the past: the clock never goes back
		if !c.Now().Equal(t1.Add(time.Hour)) {
			t.Fatalf("AdvanceTo(the past) moved the clock to %v", c.Now())
		}
	},
	"advance-next": func(t *testing.T) {
		c := simclock.New(t1)
		c.AfterFunc(3*time.Second, func() {})
		c.AfterFunc(3*time.Second, func() {})
		if d, n := c.AdvanceNext(); d != 3*time.Second || n != 2 {
			t.Fatalf("AdvanceNext = %v, %d; want 3s, 2", d, n)
		}
		if d, n := c.AdvanceNext(); d != 0 || n != 0 {
			t.Fatalf("AdvanceNext with nothing pending = %v, %d", d, n)
		}
		// quartz's: the distance first, the wait later.
		c.AfterFunc(2*time.Second, func() {})
		w := c.AdvanceNextAsync()
		if d, _ := w.Result(); d != 2*time.Second {
			t.Fatalf("AdvanceNextAsync's distance at its return = %v, want 2s", d)
		}
		w.MustWait(testBound(t))
	},
	"next": func(t *testing.T) {
		c := simclock.New(t1)
		if _, ok := c.Next(); ok {
			t.Fatal("Next reports a timer on a new clock")
		}
		c.NewTimer(5 * time.Second)
		next, ok := c.Next()
		if !ok || c.Until(next) != 5*time.Second {
			t.Fatalf("Next = %v, %v; want 5s ahead", next, ok)
		}
	},
	"run-all": func(t *testing.T) {
		// Fire everything pending, however far: Run, or for c.Step() {}.
		c := simclock.New(t1)
		c.AfterFunc(time.Hour, func() { c.AfterFunc(time.Hour, func() {}) })
		if err := c.Run(testBound(t)); err != nil || c.Since(t1) != 2*time.Hour {
			t.Fatalf("Run = %v at +%v, want nil at +2h", err, c.Since(t1))
		}
	},
	"after": func(t *testing.T) {
		ctx := testBound(t)
		c := simclock.New(t1)
		ch := c.After(time.Second)
		c.Advance(time.Second - 1)
		none(t, ch, "before its time")
		c.Advance(1)
		if v := recv(t, ctx, ch); !v.Equal(t1.Add(time.Second)) {
			t.Fatalf("After delivered %v", v)
		}
	},
	"afterfunc": func(t *testing.T) {
		c := simclock.New(t1)
		var at time.Duration
		tm := c.AfterFunc(time.Second, func() { at = c.Since(t1) })
		stopped := c.AfterFunc(time.Second, func() { t.Error("a stopped AfterFunc ran") })
		if tm.C() != nil || c.Waiters() != 0 {
			t.Fatalf("AfterFunc's C() = %v, Waiters = %d; want nil, 0 (not a waiter)", tm.C(), c.Waiters())
		}
		if !stopped.Stop() {
			t.Fatal("Stop of a pending AfterFunc = false")
		}
		c.Advance(time.Minute)
		if at != time.Second {
			t.Fatalf("the callback ran at +%v, want +1s", at)
		}
	},
	"newtimer": func(t *testing.T) {
		ctx := testBound(t)
		c := simclock.New(t1)
		tm := c.NewTimer(time.Second)
		if c.Waiters() != 1 {
			t.Fatalf("Waiters = %d, want 1", c.Waiters())
		}
		c.Advance(time.Second)
		if v := recv(t, ctx, tm.C()); !v.Equal(t1.Add(time.Second)) {
			t.Fatalf("timer delivered %v", v)
		}
		if c.NewTimer(0).C() == nil || len(c.NewTimer(-1).C()) != 1 {
			t.Fatal("NewTimer(d <= 0) does not deliver at once")
		}
	},
	"timer-stop-go123": func(t *testing.T) {
		// Go 1.23 semantics: Stop of a fired but unreceived timer returns
		// true and discards the value (older peers return false and leave it).
		c := simclock.New(t1)
		tm := c.NewTimer(time.Second)
		c.Advance(time.Second)
		if !tm.Stop() {
			t.Fatal("Stop of a fired, unreceived timer = false, want true")
		}
		none(t, tm.C(), "after Stop")
		if tm.Stop() {
			t.Fatal("second Stop = true")
		}
	},
	"timer-reset-go123": func(t *testing.T) {
		ctx := testBound(t)
		c := simclock.New(t1)
		tm := c.NewTimer(time.Second)
		c.Advance(time.Second)
		if !tm.Reset(time.Second) { // the unreceived value is discarded
			t.Fatal("Reset of a fired, unreceived timer = false, want true")
		}
		none(t, tm.C(), "after Reset")
		c.Advance(time.Second)
		if v := recv(t, ctx, tm.C()); !v.Equal(t1.Add(2 * time.Second)) {
			t.Fatalf("reset timer delivered %v, want +2s", v)
		}
	},
	"newticker": func(t *testing.T) {
		ctx := testBound(t)
		c := simclock.New(t1)
		tk := c.NewTicker(time.Second)
		for i := 1; i <= 3; i++ {
			c.Advance(time.Second)
			if v := recv(t, ctx, tk.C()); v.Sub(t1) != time.Duration(i)*time.Second {
				t.Fatalf("tick %d at +%v", i, v.Sub(t1))
			}
		}
		tk.Reset(time.Minute)
		c.Advance(59 * time.Second)
		none(t, tk.C(), "before the reset period")
		c.Advance(time.Second)
		recv(t, ctx, tk.C())
		c.Advance(30 * time.Second)
		tk.Stop()
		c.Advance(time.Hour)
		none(t, tk.C(), "after Stop")
	},
	"ticker-drops": func(t *testing.T) {
		// Ticks nobody received are dropped, as time.Ticker drops them.
		ctx := testBound(t)
		c := simclock.New(t1)
		tk := c.NewTicker(time.Second)
		c.Advance(time.Hour)
		if v := recv(t, ctx, tk.C()); v.Sub(t1) != time.Second {
			t.Fatalf("waiting tick +%v, want the first, +1s", v.Sub(t1))
		}
		none(t, tk.C(), "a second tick")
	},
	"tick": func(t *testing.T) {
		ctx := testBound(t)
		c := simclock.New(t1)
		if c.Tick(0) != nil {
			t.Fatal("Tick(0) != nil")
		}
		ch := c.Tick(time.Second)
		c.Advance(time.Second)
		recv(t, ctx, ch)
	},
	"sleep": func(t *testing.T) {
		ctx := testBound(t)
		c := simclock.New(t1)
		woke := make(chan time.Time, 1)
		go func() { c.Sleep(time.Second); woke <- c.Now() }()
		if err := c.BlockUntilContext(ctx, 1); err != nil {
			t.Fatal(err)
		}
		c.Advance(time.Second)
		if v := recv(t, ctx, woke); v.Before(t1.Add(time.Second)) {
			t.Fatalf("woke at %v", v)
		}
	},
	"blockuntil-at-least": func(t *testing.T) {
		// At least n, as clockwork v0.5: BlockUntil(1) with a ticker and a
		// timer pending returns at once.
		ctx := testBound(t)
		c := simclock.New(t1)
		c.NewTicker(time.Second)
		c.NewTimer(time.Second)
		done := make(chan struct{})
		go func() { c.BlockUntil(1); close(done) }()
		await(t, ctx, done)
		if err := c.BlockUntilContext(ctx, 2); err != nil {
			t.Fatalf("at least 2 with 2 waiters: %v", err)
		}
		if err := c.BlockUntilContext(ctx, 1); err != nil {
			t.Fatalf("at least 1 with 2 waiters: %v", err)
		}
		over, cancel := context.WithCancel(ctx)
		cancel()
		if err := c.BlockUntilContext(over, 3); !errors.Is(err, context.Canceled) {
			t.Fatalf("at least 3 with 2 waiters: %v, want the context's error", err)
		}
	},
	"waiters-count": func(t *testing.T) {
		// Counted: Sleep, After/NewTimer, tickers, context deadlines. Not
		// counted: AfterFunc (k8s counts it) and TickerFunc.
		c := simclock.New(t1)
		c.AfterFunc(time.Second, func() {})
		c.TickerFunc(context.Background(), time.Second, func() error { return nil })
		if c.Waiters() != 0 {
			t.Fatalf("Waiters = %d for AfterFunc and TickerFunc, want 0", c.Waiters())
		}
		c.NewTimer(time.Second)
		c.NewTicker(time.Second)
		_, cancel := simclock.WithTimeout(context.Background(), c, time.Second)
		defer cancel()
		if c.Waiters() != 3 {
			t.Fatalf("Waiters = %d, want 3", c.Waiters())
		}
	},
	"with-timeout": func(t *testing.T) {
		c := simclock.New(t1)
		ctx, cancel := simclock.WithTimeout(context.Background(), c, time.Minute)
		defer cancel()
		c.Advance(time.Minute - 1)
		if ctx.Err() != nil {
			t.Fatal("done before its deadline")
		}
		c.Advance(1)
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Fatalf("Err = %v, want DeadlineExceeded", ctx.Err())
		}
	},
	"with-deadline-parent": func(t *testing.T) {
		// As package context: a parent's earlier deadline wins, and a
		// parent's end (whatever its error) ends the child with that error.
		c := simclock.New(t1)
		parent, cancelP := simclock.WithTimeout(context.Background(), c, time.Second)
		defer cancelP()
		ctx, cancel := simclock.WithDeadline(parent, c, t1.Add(time.Hour))
		defer cancel()
		if d, _ := ctx.Deadline(); !d.Equal(t1.Add(time.Second)) {
			t.Fatalf("Deadline = %v, want the parent's", d)
		}
		c.Advance(time.Second)
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Fatalf("Err = %v, want the parent's DeadlineExceeded", ctx.Err())
		}
	},
	"context-clock": func(t *testing.T) {
		c := simclock.New(t1)
		if simclock.FromContext(simclock.NewContext(context.Background(), c)) != simclock.Interface(c) {
			t.Fatal("FromContext lost the clock")
		}
		if simclock.FromContext(context.Background()) != simclock.Real() {
			t.Fatal("FromContext without a clock is not Real()")
		}
	},
	"tickerfunc": func(t *testing.T) {
		c := simclock.New(t1)
		stop := errors.New("stop")
		n := 0
		w := c.TickerFunc(context.Background(), time.Second, func() error {
			if n++; n == 3 {
				return stop
			}
			return nil
		})
		c.Advance(time.Hour)
		done := make(chan error, 1)
		go func() { done <- w.Wait() }()
		if err := await(t, testBound(t), done); err != stop || n != 3 {
			t.Fatalf("Wait = %v after %d calls, want stop after 3", err, n)
		}
	},
	"trap": func(t *testing.T) {
		ctx := testBound(t)
		c := simclock.New(t1)
		trap := c.Trap().NewTimer()
		defer trap.Close()
		if !strings.Contains(trap.String(), "NewTimer") {
			t.Fatalf("String = %q", trap.String())
		}
		go c.NewTimer(time.Second)
		call, err := trap.Wait(ctx)
		if err != nil || call.Method != "NewTimer" || call.Duration != time.Second {
			t.Fatalf("Wait = %+v, %v", call, err)
		}
		if c.Waiters() != 0 {
			t.Fatal("the trapped NewTimer ran before its release")
		}
		if err := call.Release(ctx); err != nil || c.Waiters() != 1 {
			t.Fatalf("Release = %v, Waiters %d: want the timer in place", err, c.Waiters())
		}
		trap.Close()
		if _, err := trap.Wait(ctx); !errors.Is(err, simclock.ErrTrapClosed) {
			t.Fatalf("Wait after Close = %v", err)
		}
	},
	"trapper-methods": func(t *testing.T) {
		// Each Trapper method catches calls of its method, with their
		// arguments, and holds them until released.
		ctx := testBound(t)
		for _, tc := range []struct {
			method string
			trap   func(simclock.Trapper, ...string) *simclock.Trap
			call   func(c *simclock.Clock, tm simclock.Timer, tk simclock.Ticker)
			d      time.Duration
		}{
			{"Now", simclock.Trapper.Now, func(c *simclock.Clock, _ simclock.Timer, _ simclock.Ticker) { c.Now() }, 0},
			{"Since", simclock.Trapper.Since, func(c *simclock.Clock, _ simclock.Timer, _ simclock.Ticker) { c.Since(t1) }, 0},
			{"Until", simclock.Trapper.Until, func(c *simclock.Clock, _ simclock.Timer, _ simclock.Ticker) { c.Until(t1) }, 0},
			{"After", simclock.Trapper.After, func(c *simclock.Clock, _ simclock.Timer, _ simclock.Ticker) { c.After(1) }, 1},
			{"Tick", simclock.Trapper.Tick, func(c *simclock.Clock, _ simclock.Timer, _ simclock.Ticker) { c.Tick(8) }, 8},
			{"NewTimer", simclock.Trapper.NewTimer, func(c *simclock.Clock, _ simclock.Timer, _ simclock.Ticker) { c.NewTimer(2) }, 2},
			{"AfterFunc", simclock.Trapper.AfterFunc, func(c *simclock.Clock, _ simclock.Timer, _ simclock.Ticker) { c.AfterFunc(3, func() {}) }, 3},
			{"NewTicker", simclock.Trapper.NewTicker, func(c *simclock.Clock, _ simclock.Timer, _ simclock.Ticker) { c.NewTicker(4) }, 4},
			{"TickerFunc", simclock.Trapper.TickerFunc, func(c *simclock.Clock, _ simclock.Timer, _ simclock.Ticker) {
				c.TickerFunc(context.Background(), 5, func() error { return nil })
			}, 5},
			{"Timer.Stop", simclock.Trapper.TimerStop, func(_ *simclock.Clock, tm simclock.Timer, _ simclock.Ticker) { tm.Stop() }, 0},
			{"Timer.Reset", simclock.Trapper.TimerReset, func(_ *simclock.Clock, tm simclock.Timer, _ simclock.Ticker) { tm.Reset(6) }, 6},
			{"Ticker.Stop", simclock.Trapper.TickerStop, func(_ *simclock.Clock, _ simclock.Timer, tk simclock.Ticker) { tk.Stop() }, 0},
			{"Ticker.Reset", simclock.Trapper.TickerReset, func(_ *simclock.Clock, _ simclock.Timer, tk simclock.Ticker) { tk.Reset(7) }, 7},
		} {
			c := simclock.New(t1)
			tm, tk := c.NewTimer(time.Hour), c.NewTicker(time.Hour)
			trap := tc.trap(c.Trap())
			if tc.method != "Now" {
				c.Now() // another method: not caught
			}
			returned := make(chan struct{})
			go func() { tc.call(c, tm, tk); close(returned) }()
			call, err := trap.Wait(ctx)
			if err != nil || call.Method != tc.method || call.Duration != tc.d {
				t.Fatalf("caught %+v, %v; want %s(%v)", call, err, tc.method, tc.d)
			}
			select {
			case <-returned:
				t.Fatalf("%s returned before its release", tc.method)
			default:
			}
			if err := call.Release(ctx); err != nil {
				t.Fatal(err)
			}
			await(t, ctx, returned)
			trap.Close()
		}
	},
	"ticker-unread-o1": func(t *testing.T) {
		c := simclock.New(t1)
		tk := c.NewTicker(time.Nanosecond)
		defer tk.Stop()
		if n := c.RunUntil(t1.Add(time.Hour)); n > 3 {
			t.Fatalf("an hour of a 1 ns ticker nobody reads fired %d times, want at most 3", n)
		}
	},
	"trap-distinguish": func(t *testing.T) {
		// No tags: calls of one method are told apart by their arguments.
		ctx := testBound(t)
		c := simclock.New(t1)
		trap := c.Trap().AfterFunc()
		defer trap.Close()
		go func() { c.AfterFunc(time.Second, func() {}); c.AfterFunc(time.Minute, func() {}) }()
		for _, want := range []time.Duration{time.Second, time.Minute} {
			call, err := trap.Wait(ctx)
			if err != nil || call.Duration != want {
				t.Fatalf("call %+v, %v; want Duration %v", call, err, want)
			}
			if err := call.Release(ctx); err != nil {
				t.Fatal(err)
			}
		}
	},
	"running": func(t *testing.T) {
		ctx := testBound(t)
		c := simclock.New(t1)
		release := make(chan struct{})
		c.AfterFunc(time.Second, func() { <-release })
		advanced := make(chan struct{})
		go func() { c.Advance(time.Minute); close(advanced) }()
		for {
			if at, fn, ok := c.Running(); ok {
				if !at.Equal(t1.Add(time.Second)) || !strings.Contains(fn, "simclock_test") {
					t.Fatalf("Running = %v, %q", at, fn)
				}
				break
			}
			select {
			case <-ctx.Done():
				t.Fatal("the callback never ran")
			default:
				time.Sleep(time.Microsecond)
			}
		}
		close(release)
		await(t, ctx, advanced)
	},
	"trap-where": func(t *testing.T) {
		ctx := testBound(t)
		c := simclock.New(t1)
		trap := c.Trap().Where(func(call simclock.Call) bool { return call.Duration == time.Minute }).NewTimer()
		defer trap.Close()
		go func() { c.NewTimer(time.Second); c.NewTimer(time.Minute) }()
		call, err := trap.Wait(ctx)
		if err != nil || call.Duration != time.Minute {
			t.Fatalf("caught %+v, %v; want the 1m NewTimer only", call, err)
		}
		if err := call.Release(ctx); err != nil {
			t.Fatal(err)
		}
	},
	"tickerfuncwait-not-a-call": func(t *testing.T) {
		// Waiter.Wait is not a clock call: no trap catches it.
		ctx := testBound(t)
		c := simclock.New(t1)
		trap := c.Trap().TickerFunc()
		defer trap.Close()
		cctx, cancel := context.WithCancel(context.Background())
		w := make(chan simclock.Waiter, 1)
		go func() { w <- c.TickerFunc(cctx, time.Second, func() error { return nil }) }()
		call, _ := trap.Wait(ctx)
		if err := call.Release(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := await(t, ctx, w).Wait(); err != context.Canceled {
			t.Fatalf("Wait = %v", err)
		}
		over, stop := context.WithCancel(ctx)
		stop()
		if call, err := trap.Wait(over); err == nil {
			t.Fatalf("Wait was trapped: %+v", call)
		}
	},
	"advance-done-when-returns": func(t *testing.T) {
		// Nothing to wait for after Advance: callbacks and context
		// deadlines have run, values are in their channels.
		c := simclock.New(t1)
		ran := false
		c.AfterFunc(time.Second, func() { ran = true })
		ctx, cancel := simclock.WithTimeout(context.Background(), c, time.Second)
		defer cancel()
		tm := c.NewTimer(time.Second)
		c.Advance(time.Second)
		if !ran || ctx.Err() == nil || len(tm.C()) != 1 {
			t.Fatalf("after Advance: callback ran %v, ctx.Err %v, %d values waiting", ran, ctx.Err(), len(tm.C()))
		}
	},
	"advance-async": func(t *testing.T) {
		// quartz's latency measurer: a TickerFunc whose f measures with
		// Now and Since, Since trapped; the test advances while the call
		// is held, and the measure is what it advanced.
		ctx := testBound(t)
		c := simclock.New(t1, simclock.WithTB(t))
		var last atomic.Int64
		c.TickerFunc(ctx, 10*time.Second, func() error {
			start := c.Now()
			last.Store(int64(c.Since(start)))
			return nil
		})
		trap := c.Trap().Since()
		defer trap.Close()
		w := c.AdvanceAsync(10 * time.Second)
		call := trap.MustWait(ctx)
		c.AdvanceAsync(33 * time.Millisecond).MustWait(ctx)
		call.MustRelease(ctx)
		w.MustWait(ctx)
		if got := time.Duration(last.Load()); got != 33*time.Millisecond {
			t.Fatalf("measured %v, want 33ms", got)
		}
		w = c.AdvanceNextAsync()
		call = trap.MustWait(ctx)
		c.Advance(17 * time.Millisecond)
		call.MustRelease(ctx)
		w.MustWait(ctx)
		if d, _ := w.Result(); d != 10*time.Second-33*time.Millisecond || time.Duration(last.Load()) != 17*time.Millisecond {
			t.Fatalf("AdvanceNext moved %v, measured %v; want 9.967s, 17ms", d, time.Duration(last.Load()))
		}
	},
	"len-counts-all":        TestLenCountsEveryTimer,
	"with-tb":               TestWithTBFailsTheTest,
	"advance-async-moves":   TestQuartzAdvanceMovesBeforeReturn,
	"afterfunc-nonpositive": TestAfterFuncNonPositiveRunsAtOnce,
	"tickerfunc-wait":       TestTickerFuncWaitWaitsForRunningF,
	"call-log":              TestWithCallLog,
	"tags":                  TestQuartzTags,
	"quartz-timer-stop":     TestQuartzTimerStopTags,
	"quartz-timer-reset":    TestQuartzTimerResetTags,
	"quartz-ticker-tags":    TestQuartzTickerTags,
	"reentrant-panics": func(t *testing.T) {
		for name, reenter := range map[string]func(c *simclock.Clock){
			"drive": func(c *simclock.Clock) { c.Advance(time.Second) },
			"wait":  func(c *simclock.Clock) { c.AdvanceAsync(time.Second).MustWait(context.Background()) },
		} {
			func() {
				c := simclock.New(t1)
				c.AfterFunc(time.Second, func() { reenter(c) })
				defer func() {
					if err, _ := recover().(error); !errors.Is(err, simclock.ErrReentrant) {
						t.Fatalf("%s: panic %v, want ErrReentrant", name, err)
					}
				}()
				c.Advance(time.Second)
			}()
		}
	},
	"no-interval-clock": func(t *testing.T) {
		// Reading the clock never moves it; a test moves it explicitly.
		c := simclock.New(t1)
		for range 3 {
			if !c.Now().Equal(t1) {
				t.Fatal("Now moved the clock")
			}
		}
	},
}

// poll polls every second for an hour, and records when it last polled.
func poll(clk simclock.Interface, polls, last *atomic.Int64) {
	tk := clk.NewTicker(time.Second)
	defer tk.Stop()
	end := clk.NewTimer(time.Hour)
	for {
		select {
		case <-tk.C():
			polls.Add(1)
			last.Store(clk.Now().UnixNano())
		case <-end.C():
			return
		}
	}
}

func TestPollCountsEveryTick(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clk := simclock.New(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), simclock.WithTB(t))
	stamp := clk.Trap().Now()
	var polls, last atomic.Int64
	go poll(clk, &polls, &last)
	// Right here: only poll's ticker and timer make the count 2.
	if err := clk.BlockUntilContext(ctx, 2); err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 3; i++ {
		clk.Advance(time.Second)
		// Wrong here: the ticker and the timer stay counted, so
		// BlockUntilContext(ctx, 2) returns before poll has seen the tick.
		stamp.MustWait(ctx).MustRelease(ctx) // poll has counted the tick
		if n := polls.Load(); n != i {
			t.Fatalf("%d polls after %d ticks", n, i)
		}
	}
	stamp.Close()
	clk.Advance(time.Hour) // poll returns
}

// What TestPollCountsEveryTick's comment says: with a ticker and a timer
// armed, BlockUntilContext returns while the goroutine the tick woke is
// still busy (here, held by a trap), not back in its wait.
func TestBlockUntilContextReturnsBeforeTheTickIsSeen(t *testing.T) {
	ctx := testBound(t)
	clk := simclock.New(t1)
	stamp := clk.Trap().Now()
	defer stamp.Close()
	var polls, last atomic.Int64
	go poll(clk, &polls, &last)
	if err := clk.BlockUntilContext(ctx, 2); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	call := stamp.MustWait(ctx) // poll is busy with the tick
	if err := clk.BlockUntilContext(ctx, 2); err != nil {
		t.Fatal(err)
	}
	call.MustRelease(ctx)
}

// testedBlock precedes a go block of docs/migrating.md that is copied from
// a test file of this package, which compiles and runs it.
var testedBlock = regexp.MustCompile("^<!-- copied from simclock/([a-z_]+_test\\.go) -->$")

// TestMigratingCodeIsTested: every go block of docs/migrating.md marked as
// copied from a test file is in that file, character for character.
func TestMigratingCodeIsTested(t *testing.T) {
	doc, err := os.ReadFile("../docs/migrating.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(doc), "\n")
	found := 0
	for i, l := range lines {
		m := testedBlock.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if i+1 >= len(lines) || lines[i+1] != "```go" {
			t.Fatalf("migrating.md:%d: the marker is not followed by a go block", i+1)
		}
		end := slices.Index(lines[i+2:], "```")
		if end < 0 {
			t.Fatalf("migrating.md:%d: the block is not closed", i+2)
		}
		block := strings.Join(lines[i+2:i+2+end], "\n") + "\n"
		src, err := os.ReadFile(m[1])
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), block) {
			t.Errorf("migrating.md:%d: the block is not in %s as it stands", i+2, m[1])
		}
		found++
	}
	if found == 0 {
		t.Error("migrating.md has no go block copied from a test file")
	}
}

// rowRef matches a row's test reference: the last cell, `name`.
var rowRef = regexp.MustCompile("\\| `([a-z0-9-]+)` \\|\\s*$")

func TestMigrationRows(t *testing.T) {
	f, err := os.Open("../docs/migrating.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	used := map[string]bool{}
	var section string
	rows := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			section = strings.TrimPrefix(line, "## ")
		}
		m := rowRef.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rows++
		name := m[1]
		test, ok := rowTests[name]
		if !ok {
			t.Errorf("%s: row %q names test %q, which does not exist", section, line, name)
			continue
		}
		if !used[name] {
			used[name] = true
			t.Run(name, test)
		}
	}
	if rows < 60 {
		t.Errorf("found %d rows in docs/migrating.md, want every peer method (at least 60)", rows)
	}
	var unused []string
	for name := range rowTests {
		if !used[name] {
			unused = append(unused, name)
		}
	}
	slices.Sort(unused)
	if len(unused) > 0 {
		t.Errorf("tests named by no row of docs/migrating.md: %v", unused)
	}
}

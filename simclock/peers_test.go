package simclock_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/simclock"
)

// Tests in the shape of the peers' (clockwork v0.5, quartz) documented
// behaviour, re-created from their documentation: each failed before the
// change that made simclock behave so.

// fakeTB records what a clock made with WithTB reports to its test.
type fakeTB struct {
	mu       sync.Mutex
	logs     []string
	errors   []string
	fatals   []string
	cleanups []func()
	helpers  []string // the functions that called Helper
}

// Helper records its caller, which testing would leave out of a report.
func (f *fakeTB) Helper() {
	pc, _, _, _ := runtime.Caller(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.helpers = append(f.helpers, runtime.FuncForPC(pc).Name())
}
func (f *fakeTB) Logf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

// Fatalf records the failure and ends the goroutine, as testing's does.
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.fatals = append(f.fatals, fmt.Sprintf(format, args...))
	f.mu.Unlock()
	panic(errFatal)
}
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }

// end runs the cleanups, as the end of a test does.
func (f *fakeTB) end() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

var errFatal = errors.New("fatal")

// fatalOf runs fn and reports whether it called Fatalf.
func fatalOf(fn func()) (fatal bool) {
	defer func() {
		if r := recover(); r != nil {
			if r != errFatal {
				panic(r)
			}
			fatal = true
		}
	}()
	fn()
	return false
}

// quartz: the inactivity timer of quartz's README. The callback's Until is
// tagged "inner", so that the trap catches it and not the first Until; the
// test advances 3 ms while the call is held, and the callback sees a
// negative duration.
func TestQuartzInactivityTimerLate(t *testing.T) {
	ctx := testBound(t)
	clk := simclock.New(t1, simclock.WithTB(t))
	trap := clk.Trap().Until("inner")
	defer trap.Close()

	var mu sync.Mutex
	activity := clk.Now()
	var seen time.Duration
	var tm simclock.Timer
	start := func(c simclock.Interface) {
		mu.Lock()
		defer mu.Unlock()
		next := c.Until(activity.Add(10 * time.Minute))
		tm = c.AfterFunc(next, func() {
			mu.Lock()
			defer mu.Unlock()
			seen = simclock.Tagged(c, "inner").Until(activity.Add(10 * time.Minute))
			if seen > 0 {
				tm.Reset(seen)
			}
		})
	}
	start(clk)

	w := clk.AdvanceAsync(10 * time.Minute)
	call := trap.MustWait(ctx)
	if !strings.Contains(fmt.Sprint(call.Tags), "inner") {
		t.Fatalf("caught %v, want the call tagged inner", call)
	}
	clk.AdvanceAsync(3 * time.Millisecond).MustWait(ctx)
	call.MustRelease(ctx)
	w.MustWait(ctx)
	mu.Lock()
	defer mu.Unlock()
	if seen != -3*time.Millisecond {
		t.Fatalf("the callback's Until saw %v, want -3ms", seen)
	}
}

// quartz: Advance moves the clock before it returns; the fires follow.
// Two awaitable advances not waited for still leave Now() at +2s.
func TestQuartzAdvanceMovesBeforeReturn(t *testing.T) {
	ctx := testBound(t)
	clk := simclock.New(t1)
	release := make(chan struct{})
	clk.AfterFunc(time.Second, func() { <-release }) // a callback at the target that blocks
	w1 := clk.AdvanceAsync(time.Second)
	if got := clk.Since(t1); got != time.Second {
		t.Fatalf("Now = +%v right after AdvanceAsync(1s), want +1s", got)
	}
	close(release)
	w2 := clk.AdvanceAsync(time.Second) // waits for the advance in progress to end
	if got := clk.Since(t1); got != 2*time.Second {
		t.Fatalf("Now = +%v right after two advances of 1s not waited for, want +2s", got)
	}
	w1.MustWait(ctx)
	w2.MustWait(ctx)
	// With nothing pending, AdvanceAsync has moved the clock when it returns.
	w3 := clk.AdvanceAsync(time.Second)
	if got := clk.Since(t1); got != 3*time.Second {
		t.Fatalf("Now = +%v right after a third AdvanceAsync, want +3s", got)
	}
	w3.MustWait(ctx)
}

// quartz: tags tell apart calls that differ only in where they were made.
func TestQuartzTags(t *testing.T) {
	ctx := testBound(t)
	clk := simclock.New(t1)
	trap := clk.Trap().Now("foo")
	defer trap.Close()
	foo := make(chan time.Time, 1)
	go func() { foo <- simclock.Tagged(clk, "foo", "bar").Now() }()
	baz := make(chan time.Time, 1)
	go func() { baz <- simclock.Tagged(clk, "baz").Now() }()
	call := trap.MustWait(ctx)
	if got := fmt.Sprint(call.Tags); got != "[foo bar]" {
		t.Fatalf("caught a call tagged %s, want [foo bar]", got)
	}
	if v := await(t, ctx, baz); !v.Equal(t1) {
		t.Fatalf("the untrapped call read %v", v)
	}
	clk.Advance(time.Second)
	call.MustRelease(ctx)
	if v := await(t, ctx, foo); !v.Equal(t1.Add(time.Second)) {
		t.Fatalf("the trapped call read %v, want +1s", v)
	}
	// Timers of a tagged view carry its tags on Stop and Reset.
	stop := clk.Trap().TimerStop("backoff")
	defer stop.Close()
	tm := simclock.Tagged(clk, "backoff").NewTimer(time.Hour)
	clk.NewTimer(time.Hour).Stop() // untagged: goes through
	done := make(chan bool, 1)
	go func() { done <- tm.Stop() }()
	stop.MustWait(ctx).MustRelease(ctx)
	if !await(t, ctx, done) {
		t.Fatal("Stop of a pending tagged timer = false")
	}
	if simclock.Tagged(simclock.Real(), "x") != simclock.Real() {
		t.Fatal("Tagged(Real()) is not Real()")
	}
}

// caught runs f on a goroutine, checks that trap catches its call carrying
// the tags want, releases the call and returns f's result.
func caught[T any](t *testing.T, ctx context.Context, trap *simclock.Trap, want string, f func() T) T {
	t.Helper()
	res := make(chan T, 1)
	go func() { res <- f() }()
	call := trap.MustWait(ctx)
	if got := fmt.Sprint(call.Tags); got != want {
		t.Errorf("%v caught a call tagged %s, want %s", trap, got, want)
	}
	call.MustRelease(ctx)
	return await(t, ctx, res)
}

// quartz: t.Stop("stop") is TaggedTimer(t, "stop").Stop(), which a trap on
// TimerStop("stop") catches; Stop of a fired, unreceived timer returns true
// (quartz: false).
func TestQuartzTimerStopTags(t *testing.T) {
	ctx := testBound(t)
	clk := simclock.New(t1)
	trap := clk.Trap().TimerStop("stop")
	defer trap.Close()
	tm := clk.NewTimer(time.Second)
	clk.NewTimer(time.Hour).Stop() // untagged: goes through
	clk.Advance(time.Second)
	if !caught(t, ctx, trap, "[stop]", simclock.TaggedTimer(tm, "stop").Stop) {
		t.Fatal("Stop of a fired, unreceived timer = false, want true")
	}
	none(t, tm.C(), "after Stop")
	rt := simclock.Real().NewTimer(time.Hour)
	defer rt.Stop()
	if simclock.TaggedTimer(rt, "stop") != rt {
		t.Fatal("TaggedTimer of a Real() timer is not the timer")
	}
}

// quartz: t.Reset(d, "reset") is TaggedTimer(t, "reset").Reset(d); the call
// also carries the tags of the Tagged view that made t. Reset of a fired,
// unreceived timer returns true (quartz: false) and discards the value.
func TestQuartzTimerResetTags(t *testing.T) {
	ctx := testBound(t)
	clk := simclock.New(t1)
	trap := clk.Trap().TimerReset("reset")
	defer trap.Close()
	tm := simclock.Tagged(clk, "backoff").NewTimer(time.Second)
	clk.Advance(time.Second)
	reset := func() bool { return simclock.TaggedTimer(tm, "reset").Reset(time.Second) }
	if !caught(t, ctx, trap, "[backoff reset]", reset) {
		t.Fatal("Reset of a fired, unreceived timer = false, want true")
	}
	none(t, tm.C(), "after Reset")
	clk.Advance(time.Second)
	if v := recv(t, ctx, tm.C()); !v.Equal(t1.Add(2 * time.Second)) {
		t.Fatalf("reset timer delivered %v, want +2s", v)
	}
}

// quartz: tk.Reset(d, "reset") and tk.Stop("stop") are TaggedTicker's.
func TestQuartzTickerTags(t *testing.T) {
	ctx := testBound(t)
	clk := simclock.New(t1)
	resets, stops := clk.Trap().TickerReset("reset"), clk.Trap().TickerStop("stop")
	defer resets.Close()
	defer stops.Close()
	tk := clk.NewTicker(time.Second)
	caught(t, ctx, resets, "[reset]", func() bool { simclock.TaggedTicker(tk, "reset").Reset(time.Minute); return true })
	clk.Advance(time.Second)
	none(t, tk.C(), "a second after a reset to a minute")
	caught(t, ctx, stops, "[stop]", func() bool { simclock.TaggedTicker(tk, "stop").Stop(); return true })
	clk.Advance(time.Hour)
	none(t, tk.C(), "after Stop")
	rt := simclock.Real().NewTicker(time.Hour)
	defer rt.Stop()
	if simclock.TaggedTicker(rt, "stop") != rt {
		t.Fatal("TaggedTicker of a Real() ticker is not the ticker")
	}
}

// quartz: a clock tied to a test fails it when a trapped call taken by Wait
// is never released, and MustWait / MustRelease fail it on error.
func TestWithTBFailsTheTest(t *testing.T) {
	ctx := testBound(t)
	tb := &fakeTB{}
	clk := simclock.New(t1, simclock.WithTB(tb))
	trap := clk.Trap().NewTimer()
	go clk.NewTimer(time.Second)
	trap.MustWait(ctx) // taken, never released
	trap.Close()
	if len(tb.errors) != 1 || !strings.Contains(tb.errors[0], "never released") {
		t.Fatalf("errors %q, want one naming the call never released", tb.errors)
	}
	// A trap left open is closed at the test's end, and reports the same.
	open := clk.Trap().Now()
	go clk.Now()
	open.MustWait(ctx)
	over, cancel := context.WithCancel(ctx)
	cancel()
	if !fatalOf(func() { open.MustWait(over) }) || len(tb.fatals) != 1 {
		t.Fatalf("MustWait with a done context did not fail the test: %q", tb.fatals)
	}
	tb.end()
	if len(tb.errors) != 2 {
		t.Fatalf("errors %q after the test's end, want a second for the open trap", tb.errors)
	}
	if _, err := open.Wait(ctx); !errors.Is(err, simclock.ErrTrapClosed) {
		t.Fatalf("the open trap is not closed at the test's end: %v", err)
	}
	// Without WithTB, MustWait panics.
	plain := simclock.New(t1).Trap().Now()
	defer plain.Close()
	defer func() {
		if recover() == nil {
			t.Fatal("MustWait on a clock without a TB did not panic")
		}
	}()
	plain.MustWait(over)
}

// A Must* method that fails the test marks itself a helper, so that the
// failure points at the test's line, not at simclock's.
func TestMustMethodsAreHelpers(t *testing.T) {
	ctx := testBound(t)
	over, cancel := context.WithCancel(ctx)
	cancel()
	tb := &fakeTB{}
	clk := simclock.New(t1, simclock.WithTB(tb))
	// A Now call caught by two traps: released by one, it does not return.
	one, two := clk.Trap().Now(), clk.Trap().Now()
	go clk.Now()
	call := one.MustWait(ctx)
	two.MustWait(ctx)
	// A callback's call held by a trap: the advance is not done.
	cb := clk.Trap().Since()
	clk.AfterFunc(time.Second, func() { clk.Since(t1) })
	adv := clk.AdvanceAsync(time.Minute)
	held := cb.MustWait(ctx)
	for name, must := range map[string]func(){
		"(*Trap).MustWait":      func() { one.MustWait(over) },
		"(*Call).MustRelease":   func() { call.MustRelease(over) },
		"(*Advancing).MustWait": func() { adv.MustWait(over) },
	} {
		tb.helpers = nil
		if !fatalOf(must) {
			t.Fatalf("%s did not fail the test", name)
		}
		if !slices.ContainsFunc(tb.helpers, func(f string) bool { return strings.HasSuffix(f, "simclock."+name) }) {
			t.Errorf("%s failed the test without calling Helper; Helper called by %q", name, tb.helpers)
		}
	}
	held.MustRelease(ctx)
	adv.MustWait(ctx)
	tb.end()
}

// quartz: WithLogger. WithCallLog logs every clock call to the test; a
// clock without it logs nothing.
func TestWithCallLog(t *testing.T) {
	tb := &fakeTB{}
	clk := simclock.New(t1, simclock.WithTB(tb), simclock.WithCallLog())
	clk.Now()
	simclock.Tagged(clk, "x").AfterFunc(time.Second, func() {})
	clk.Advance(time.Second)
	clk.Trap().Since().Close() // traps are not logged
	silent := simclock.New(t1, simclock.WithTB(tb))
	silent.Now() // no WithCallLog: not logged
	silent.Advance(time.Second)
	tb.end()
	clk.Now() // after the test: not logged
	got := strings.Join(tb.logs, "\n")
	for _, want := range []string{"Now()", `AfterFunc(1s) ["x"]`, "Advance(1s)"} {
		if !strings.Contains(got, want) {
			t.Fatalf("log\n%s\nhas no %q", got, want)
		}
	}
	if len(tb.logs) != 3 {
		t.Fatalf("%d lines logged, want 3:\n%s", len(tb.logs), got)
	}
	defer func() {
		if err, _ := recover().(error); !errors.Is(err, simclock.ErrInvalidOption) {
			t.Fatalf("WithCallLog without WithTB: panic %v, want ErrInvalidOption", err)
		}
	}()
	simclock.New(t1, simclock.WithCallLog())
}

// time and quartz: AfterFunc with d <= 0 runs without waiting for an
// advance, at Now(), once.
func TestAfterFuncNonPositiveRunsAtOnce(t *testing.T) {
	ctx := testBound(t)
	for _, d := range []time.Duration{0, -time.Second} {
		clk := simclock.New(t1)
		ran := make(chan time.Time, 2)
		clk.AfterFunc(d, func() { ran <- clk.Now() })
		if v := await(t, ctx, ran); !v.Equal(t1) { // no advance
			t.Fatalf("AfterFunc(%v) ran at %v, want the start", d, v)
		}
		// Reset with d <= 0 runs it again, also without an advance.
		tm := clk.AfterFunc(time.Hour, func() { ran <- clk.Now() })
		tm.Reset(d)
		await(t, ctx, ran)
		clk.Advance(time.Hour)
		select {
		case v := <-ran:
			t.Fatalf("a callback ran twice (again at %v)", v)
		default:
		}
	}
}

// Len counts every pending timer, AfterFunc and TickerFunc included, which
// Waiters leaves out.
func TestLenCountsEveryTimer(t *testing.T) {
	clk := simclock.New(t1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := clk.AfterFunc(time.Second, func() {})
	clk.TickerFunc(ctx, time.Second, func() error { return nil })
	clk.NewTimer(time.Second)
	tk := clk.NewTicker(time.Second)
	_, cancelDeadline := simclock.WithTimeout(context.Background(), clk, time.Minute)
	defer cancelDeadline()
	clk.NewTimer(200 * 365 * 24 * time.Hour) // beyond the reach: pending, never fires
	if got := clk.Len(); got != 6 {
		t.Fatalf("Len = %d, want 6 (Waiters = %d)", got, clk.Waiters())
	}
	a.Stop()
	tk.Stop()
	if got := clk.Len(); got != 4 {
		t.Fatalf("Len = %d after two stops, want 4", got)
	}
	clk.Advance(time.Second) // the timer fires; the TickerFunc re-arms
	if got := clk.Len(); got != 3 {
		t.Fatalf("Len = %d after the advance, want 3", got)
	}
}

// quartz's Waiter: Wait waits for a call of f in progress when ctx ends,
// and f's error wins; the same with Real().
func TestTickerFuncWaitWaitsForRunningF(t *testing.T) {
	bound := testBound(t)
	errF := errors.New("f's error")
	for _, name := range []string{"simulated", "real"} {
		clk := simclock.Interface(simclock.Real())
		sim := simclock.New(t1)
		if name == "simulated" {
			clk = sim
		}
		ctx, cancel := context.WithCancel(context.Background())
		inF := make(chan struct{})
		release := make(chan struct{})
		var once sync.Once
		w := clk.TickerFunc(ctx, time.Millisecond, func() error {
			once.Do(func() { close(inF) })
			<-release
			return errF
		})
		if name == "simulated" {
			go sim.Advance(time.Millisecond)
		}
		await(t, bound, inF)
		cancel() // while f runs
		got := make(chan error, 1)
		go func() { got <- w.Wait() }()
		select {
		case err := <-got:
			t.Fatalf("%s: Wait returned %v while f was running", name, err)
		case <-time.After(10 * time.Millisecond):
		}
		close(release)
		if err := await(t, bound, got); err != errF {
			t.Fatalf("%s: Wait = %v, want f's error", name, err)
		}
	}
}

// quartz: a tick that comes while f is held by a trap is skipped, and the
// clock moves on meanwhile.
func TestTickerFuncSkipsTicksWhileFIsHeld(t *testing.T) {
	ctx := testBound(t)
	clk := simclock.New(t1)
	var calls atomic.Int32
	clk.TickerFunc(ctx, time.Second, func() error {
		calls.Add(1)
		clk.Now()
		return nil
	})
	trap := clk.Trap().Now()
	defer trap.Close()
	clk.Advance(time.Second)
	call := trap.MustWait(ctx)
	clk.Advance(3 * time.Second) // ticks at 2s, 3s, 4s: f is still held
	if got := calls.Load(); got != 1 {
		t.Fatalf("f called %d times while held, want 1", got)
	}
	call.MustRelease(ctx)
	trap.Close()
	clk.Advance(time.Second)
	if got := calls.Load(); got != 2 {
		t.Fatalf("f called %d times, want 2 (the held tick and +5s)", got)
	}
}

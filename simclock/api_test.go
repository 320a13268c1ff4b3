package simclock

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/levelbits"
)

var t0 = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// log records fires as "name@offset" strings, offsets from t0.
type log struct {
	c   *Clock
	got []string
}

func (l *log) fn(name string) func() {
	return func() { l.got = append(l.got, fmt.Sprintf("%s@%v", name, l.c.Since(t0))) }
}

func (l *log) String() string { return strings.Join(l.got, " ") }

func TestAfterFuncTimeOrderFIFOAndNow(t *testing.T) {
	c := New(t0)
	l := &log{c: c}
	c.AfterFunc(3*time.Second, l.fn("a"))
	c.AfterFunc(1*time.Second, l.fn("b"))
	c.AfterFunc(3*time.Second, l.fn("c"))
	c.AfterFunc(2*time.Second, l.fn("d"))
	c.AfterFunc(1*time.Second, l.fn("e"))
	c.Advance(10 * time.Second)
	if want := "b@1s e@1s d@2s a@3s c@3s"; l.String() != want {
		t.Fatalf("fires %q, want %q", l, want)
	}
	if got := c.Since(t0); got != 10*time.Second {
		t.Fatalf("Now after Advance = t0+%v, want t0+10s", got)
	}
}

func TestCallbackSchedulesInsideAdvance(t *testing.T) {
	c := New(t0)
	l := &log{c: c}
	var late Timer
	c.AfterFunc(10*time.Second, func() {
		l.fn("first")()
		c.AfterFunc(5*time.Second, l.fn("child"))   // 15s: before "late", before the target
		c.AfterFunc(0, l.fn("now"))                 // same instant, after the rest of it
		late.Reset(2 * time.Second)                 // 12s instead of 17s
		c.AfterFunc(30*time.Second, l.fn("beyond")) // 40s: after the target
	})
	c.AfterFunc(10*time.Second, l.fn("tie"))
	late = c.AfterFunc(17*time.Second, l.fn("late"))
	c.Advance(20 * time.Second)
	if want := "first@10s tie@10s now@10s late@12s child@15s"; l.String() != want {
		t.Fatalf("fires %q, want %q", l, want)
	}
	if n, ok := c.Next(); !ok || n.Sub(t0) != 40*time.Second {
		t.Fatalf("Next() = %v, %v; want t0+40s", n.Sub(t0), ok)
	}
}

func TestStopInsideSameInstant(t *testing.T) {
	c := New(t0)
	l := &log{c: c}
	var second Timer
	c.AfterFunc(time.Second, func() {
		if !second.Stop() {
			t.Error("Stop of a timer due at the same instant but not fired returned false")
		}
	})
	second = c.AfterFunc(time.Second, l.fn("second"))
	c.Advance(time.Second)
	if len(l.got) != 0 {
		t.Fatalf("a timer stopped before its turn fired: %v", l)
	}
}

func TestTimerNoStaleValue(t *testing.T) {
	c := New(t0)
	tm := c.NewTimer(time.Second)
	c.Advance(2 * time.Second)
	if !tm.Stop() {
		t.Fatal("Stop with an unreceived value returned false, want true (Go 1.23)")
	}
	select {
	case v := <-tm.C():
		t.Fatalf("received stale %v after Stop", v)
	default:
	}
	if tm.Stop() {
		t.Fatal("second Stop returned true")
	}
	tm.Reset(time.Second)
	c.Advance(time.Second)
	if tm.Reset(time.Minute) != true {
		t.Fatal("Reset with an unreceived value returned false")
	}
	select {
	case v := <-tm.C():
		t.Fatalf("received stale %v after Reset", v)
	default:
	}
	c.Advance(time.Minute)
	if v := waiting(t, tm.C()); v.Sub(t0) != 3*time.Second+time.Minute {
		t.Fatalf("timer value t0+%v, want t0+3s+1m", v.Sub(t0))
	}
	// d <= 0 delivers at once.
	tm.Reset(0)
	if v := waiting(t, tm.C()); !v.Equal(c.Now()) {
		t.Fatalf("Reset(0) delivered %v, want %v", v, c.Now())
	}
	if v := waiting(t, c.After(-time.Second)); !v.Equal(c.Now()) {
		t.Fatalf("After(-1s) delivered %v, want %v", v, c.Now())
	}
}

func TestTickerDropsUnreceivedTicks(t *testing.T) {
	c := New(t0)
	tk := c.NewTicker(time.Second)
	fires := c.RunUntil(c.Now().Add(5500 * time.Millisecond))
	// 1s delivered; 2s dropped, so it skips to the last tick, 5s (dropped too).
	if fires != 3 {
		t.Fatalf("ticker fired %d times over 5.5 periods with nobody receiving, want 3", fires)
	}
	if v := waiting(t, tk.C()); v.Sub(t0) != time.Second {
		t.Fatalf("tick t0+%v in the channel, want the first, t0+1s", v.Sub(t0))
	}
	select {
	case v := <-tk.C():
		t.Fatalf("second tick %v kept, want dropped", v)
	default:
	}
	// A receiver that keeps up gets every tick.
	for i := 6; i <= 8; i++ {
		fires += c.RunUntil(c.Now().Add(time.Second))
		if v := waiting(t, tk.C()); v.Sub(t0) != time.Duration(i)*time.Second {
			t.Fatalf("tick t0+%v, want t0+%ds", v.Sub(t0), i)
		}
	}
	tk.Reset(300 * time.Millisecond) // at 8s: ticks at 8.3s and 8.6s
	fires += c.RunUntil(c.Now().Add(700 * time.Millisecond))
	tk.Stop()
	select {
	case v := <-tk.C():
		t.Fatalf("tick %v after Stop", v)
	default:
	}
	if fires != 8 {
		t.Fatalf("ticker fired %d times, want 8", fires)
	}
	if c.Tick(0) != nil {
		t.Fatal("Tick(0) != nil")
	}
	ch := c.Tick(time.Second)
	c.Sleep(0) // returns at once
	c.Advance(time.Second)
	if v := waiting(t, ch); !v.Equal(c.Now()) {
		t.Fatalf("Tick delivered %v, want %v", v, c.Now())
	}
	mustPanic(t, errNonPositiveTicker, func() { c.NewTicker(0) })
	mustPanic(t, errNonPositiveReset, func() { tk.Reset(-1) })
}

func mustPanic(t *testing.T, want error, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		err, _ := r.(error)
		if !errors.Is(err, want) {
			t.Fatalf("panic %v, want %v", r, want)
		}
	}()
	f()
}

func TestPanicInCallbackLeavesClockUsable(t *testing.T) {
	c := New(t0)
	l := &log{c: c}
	boom := errors.New("boom")
	c.AfterFunc(time.Second, l.fn("a"))
	c.AfterFunc(time.Second, func() { panic(boom) })
	c.AfterFunc(time.Second, l.fn("b"))
	c.AfterFunc(2*time.Second, l.fn("c"))
	mustPanic(t, boom, func() { c.Advance(5 * time.Second) })
	if got := c.Since(t0); got != time.Second {
		t.Fatalf("after the panic Now = t0+%v, want the panicking callback's t0+1s", got)
	}
	if n, ok := c.Next(); !ok || !n.Equal(c.Now()) {
		t.Fatalf("Next() = %v, %v; want Now (b is still due)", n, ok)
	}
	c.Advance(0)
	if want := "a@1s b@1s"; l.String() != want {
		t.Fatalf("fires %q, want %q", l, want)
	}
	c.Advance(5 * time.Second)
	if want := "a@1s b@1s c@2s"; l.String() != want {
		t.Fatalf("fires %q, want %q", l, want)
	}
}

func TestStepRunUntilRun(t *testing.T) {
	c := New(t0)
	l := &log{c: c}
	if c.Step() {
		t.Fatal("Step on an empty clock returned true")
	}
	c.AfterFunc(2*time.Second, l.fn("a"))
	c.AfterFunc(2*time.Second, func() { c.AfterFunc(0, l.fn("a0")) })
	c.AfterFunc(5*time.Second, l.fn("b"))
	c.AfterFunc(9*time.Second, l.fn("c"))
	if !c.Step() || c.Since(t0) != 2*time.Second || l.String() != "a@2s a0@2s" {
		t.Fatalf("after Step: Now t0+%v, fires %q", c.Since(t0), l)
	}
	if n := c.RunUntil(t0.Add(6 * time.Second)); n != 1 || c.Since(t0) != 6*time.Second {
		t.Fatalf("RunUntil fired %d, Now t0+%v; want 1, 6s", n, c.Since(t0))
	}
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := "a@2s a0@2s b@5s c@9s"; l.String() != want || c.Since(t0) != 9*time.Second {
		t.Fatalf("fires %q at the end t0+%v, want %q at 9s", l, c.Since(t0), want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tk := c.NewTicker(time.Second)
	n := 0
	c.AfterFunc(0, func() {}) // keep Run busy at first
	go func() {
		for range tk.C() {
			if n++; n == 3 {
				cancel()
				return
			}
		}
	}()
	// A ticker keeps Run going until the context ends.
	if err := c.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run with a ticker returned %v, want context.Canceled", err)
	}
	tk.Stop()
}

func TestAdvanceBackwardsAndOutOfRange(t *testing.T) {
	c := New(t0)
	c.Advance(time.Hour)
	c.AdvanceTo(t0) // in the past: nothing moves
	c.Advance(-time.Hour)
	if c.Since(t0) != time.Hour {
		t.Fatalf("clock moved backwards to t0+%v", c.Since(t0))
	}
	mustPanic(t, ErrOutOfRange, func() { c.Advance(1<<63 - 1) })
	mustPanic(t, ErrOutOfRange, func() { c.AdvanceTo(t0.AddDate(200, 0, 0)) })
	// A timer beyond the reach is accepted and never fires: it counts in
	// Len, and Next, Step and Run pass it by (the package doc).
	fired := false
	tm := c.AfterFunc(1<<63-1, func() { fired = true })
	if _, ok := c.Next(); ok {
		t.Fatal("Next reports a timer beyond the reach")
	}
	if c.Step() || c.Run(context.Background()) != nil || c.Len() != 1 || c.Since(t0) != time.Hour {
		t.Fatalf("a far timer alone: Len %d, Now t0+%v; want Step false, Run nil, Len 1, Now t0+1h", c.Len(), c.Since(t0))
	}
	c.AdvanceTo(t0.Add(maxOffset))
	if fired || !tm.Stop() {
		t.Fatalf("far timer: fired %v; want not fired and still stoppable", fired)
	}
}

func TestAnyStartTime(t *testing.T) {
	for _, start := range []time.Time{{}, time.Date(1900, 1, 1, 0, 0, 0, 0, time.Local), time.Now()} {
		c := New(start)
		var at time.Time
		c.AfterFunc(time.Hour, func() { at = c.Now() })
		c.Advance(2 * time.Hour)
		if !at.Equal(start.Add(time.Hour)) || !c.Now().Equal(start.Add(2*time.Hour)) {
			t.Fatalf("start %v: fired at %v, now %v", start, at, c.Now())
		}
	}
}

func TestOptions(t *testing.T) {
	// A coarse precision keeps exact times and order.
	c := New(t0, WithPrecision(time.Millisecond))
	l := &log{c: c}
	c.AfterFunc(900*time.Microsecond, l.fn("late"))
	c.AfterFunc(100*time.Microsecond, l.fn("early"))
	c.AfterFunc(100*time.Microsecond, l.fn("early2"))
	c.Advance(time.Second)
	if want := "early@100µs early2@100µs late@900µs"; l.String() != want {
		t.Fatalf("coarse precision fires %q, want %q", l, want)
	}
	// Short level bits: 2^8 ns of reach.
	lb, err := levelbits.New(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	c = New(t0, WithLevelBits(lb))
	c.AfterFunc(100, func() {})
	mustPanic(t, ErrBeyondReach, func() { c.AfterFunc(time.Millisecond, func() {}) })
	if _, ok := c.Next(); !ok {
		t.Fatal("the timer within reach is lost")
	}
	c = New(t0, WithLevelBits(lb), WithOverflow())
	l = &log{c: c}
	c.AfterFunc(time.Millisecond, l.fn("far"))
	c.AfterFunc(100, l.fn("near"))
	c.Advance(time.Second)
	if want := "near@100ns far@1ms"; l.String() != want {
		t.Fatalf("overflow fires %q, want %q", l, want)
	}
	mustPanic(t, ErrInvalidOption, func() { New(t0, WithPrecision(0)) })
	// The precision is a duration, as timingwheel.New takes it: 1ms rounds
	// down to 2^19 ns.
	c = New(t0, WithPrecision(time.Millisecond))
	if c.cfg.Precision().Duration() != 1<<19 {
		t.Fatalf("WithPrecision(1ms) gives %v, want 2^19 ns", c.cfg.Precision().Duration())
	}
}

func TestBlockUntilContextCancelled(t *testing.T) {
	c := New(t0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.BlockUntilContext(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("BlockUntilContext = %v, want context.Canceled", err)
	}
	tm := c.NewTimer(time.Second)
	tk := c.NewTicker(time.Second)
	c.AfterFunc(time.Second, func() {}) // not a waiter
	if n := c.Waiters(); n != 2 {
		t.Fatalf("Waiters = %d, want 2", n)
	}
	tm.Stop()
	c.Advance(time.Second) // the ticker stays a waiter
	if n := c.Waiters(); n != 1 {
		t.Fatalf("Waiters = %d, want 1", n)
	}
	tk.Stop()
	if n := c.Waiters(); n != 0 {
		t.Fatalf("Waiters = %d, want 0", n)
	}
}

func TestRealClock(t *testing.T) {
	r := Real()
	before := time.Now()
	if d := r.Since(before); d < 0 {
		t.Fatalf("Since = %v", d)
	}
	tm := r.NewTimer(time.Millisecond)
	<-tm.C()
	if tm.Stop() {
		t.Fatal("Stop of a fired, received timer returned true")
	}
	done := make(chan struct{})
	r.AfterFunc(time.Millisecond, func() { close(done) })
	<-done
	tk := r.NewTicker(time.Millisecond)
	<-tk.C()
	tk.Reset(2 * time.Millisecond)
	<-tk.C()
	tk.Stop()
	<-r.Tick(time.Millisecond)
	if tm.Reset(time.Millisecond) {
		t.Fatal("Reset of a fired, received real timer returned true")
	}
	<-tm.C()
	r.Sleep(time.Microsecond)
	<-r.After(time.Microsecond)
	if r.Until(time.Now().Add(time.Hour)) <= 0 {
		t.Fatal("Until of a future time <= 0")
	}
	ctx, cancel := WithTimeout(context.Background(), r, time.Millisecond)
	defer cancel()
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("real WithTimeout: %v", ctx.Err())
	}
}

// TestEarlyHeapStaysSmall: resetting a due timer again and again without
// advancing leaves stale entries behind, which must not pile up.
func TestEarlyHeapStaysSmall(t *testing.T) {
	c := New(t0)
	c.adv.Lock() // keep the timer due: it would run at once (kick)
	n := 0
	tm := c.AfterFunc(0, func() { n++ })
	for range 10_000 {
		tm.Reset(0)
	}
	if len(c.early) > 200 {
		t.Fatalf("early heap holds %d entries for one timer", len(c.early))
	}
	c.adv.Unlock()
	c.Advance(0)
	if n != 1 {
		t.Fatalf("the timer ran %d times, want once", n)
	}
}

// TestDeterministic: the same program, run twice, gives the same trace of
// fires, callbacks scheduling more callbacks at colliding times included.
func TestDeterministic(t *testing.T) {
	run := func() string {
		c := New(t0)
		l := &log{c: c}
		seed := uint64(1)
		next := func() time.Duration { // a fixed LCG: the same draws each run
			seed = seed*6364136223846793005 + 1442695040888963407
			return time.Duration(seed>>60) * time.Millisecond
		}
		var spawn func(name string, depth int) func()
		spawn = func(name string, depth int) func() {
			return func() {
				l.fn(name)()
				if depth < 3 {
					for i := range 3 {
						c.AfterFunc(next(), spawn(fmt.Sprintf("%s.%d", name, i), depth+1))
					}
				}
			}
		}
		for i := range 20 {
			c.AfterFunc(next(), spawn(fmt.Sprint(i), 0))
		}
		c.Advance(time.Minute)
		return l.String()
	}
	first := run()
	if n := strings.Count(first, "@"); n != 20*(1+3+9+27) {
		t.Fatalf("%d fires, want %d", n, 20*40)
	}
	for range 3 {
		if again := run(); again != first {
			t.Fatalf("traces differ:\n%s\n%s", first, again)
		}
	}
}

// TestAdvanceToThePast: a target before Now() fires the timers already due,
// as Advance(-1) does, and leaves the clock where it is; also after a panic
// stopped an advance halfway through an instant.
func TestAdvanceToThePast(t *testing.T) {
	c := New(t0)
	l := &log{c: c}
	c.Advance(time.Hour)
	c.AfterFunc(0, l.fn("due"))
	c.AdvanceTo(t0)
	if l.String() != "due@1h0m0s" || !c.Now().Equal(t0.Add(time.Hour)) {
		t.Fatalf("AdvanceTo(past): fired %q, Now = t0+%v; want due@1h0m0s, t0+1h", l, c.Now().Sub(t0))
	}
	c.AfterFunc(0, l.fn("again"))
	// A timer due now runs at once (kick): RunUntil fires it unless the
	// kick's goroutine got there first, and either way it has run when
	// RunUntil returns.
	if n := c.RunUntil(t0); n > 1 || l.String() != "due@1h0m0s again@1h0m0s" {
		t.Fatalf("RunUntil(past) = %d, fired %q; want at most 1, due and again at 1h", n, l)
	}

	c = New(t0)
	l = &log{c: c}
	boom := errors.New("boom")
	c.AfterFunc(time.Second, func() { panic(boom) })
	c.AfterFunc(time.Second, l.fn("after"))
	mustPanic(t, boom, func() { c.Advance(5 * time.Second) })
	c.AdvanceTo(t0)
	if l.String() != "after@1s" || !c.Now().Equal(t0.Add(time.Second)) {
		t.Fatalf("after a panic, AdvanceTo(past): fired %q, Now = t0+%v; want after@1s, t0+1s", l, c.Now().Sub(t0))
	}
}

// A nil option is reported as any invalid option, naming its position.
func TestNewNilOption(t *testing.T) {
	defer func() {
		err, _ := recover().(error)
		if !errors.Is(err, ErrInvalidOption) || !strings.Contains(err.Error(), "opts[1] is nil") {
			t.Fatalf("New with a nil option: panic %v, want ErrInvalidOption naming opts[1]", err)
		}
	}()
	New(t0, WithPrecision(time.Second), nil)
}

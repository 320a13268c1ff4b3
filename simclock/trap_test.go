package simclock

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// mustCall takes the next call from tr, failing the test at ctx's end.
func mustCall(t *testing.T, ctx context.Context, tr *Trap) *Call {
	t.Helper()
	call, err := tr.Wait(ctx)
	if err != nil {
		t.Fatalf("%v: Wait: %v", tr, err)
	}
	return call
}

func mustRelease(t *testing.T, ctx context.Context, call *Call) {
	t.Helper()
	if err := call.Release(ctx); err != nil {
		t.Fatalf("Release of %s: %v", call.Method, err)
	}
}

// The trapped NewTimer is held while the test advances the clock, so the
// timer counts from the release: the race between the code's NewTimer and
// the test's Advance is decided by the test.
func TestTrapHoldsNewTimer(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	trap := c.Trap().NewTimer()
	defer trap.Close()
	got := make(chan time.Time, 1)
	go func() {
		tm := c.NewTimer(5 * time.Second)
		got <- <-tm.C()
	}()
	call := mustCall(t, ctx, trap)
	if call.Method != "NewTimer" || call.Duration != 5*time.Second {
		t.Fatalf("caught %s(%v), want NewTimer(5s)", call.Method, call.Duration)
	}
	c.Advance(time.Second) // the timer does not exist yet
	if c.Waiters() != 0 {
		t.Fatalf("Waiters = %d while NewTimer is held, want 0", c.Waiters())
	}
	mustRelease(t, ctx, call)
	if c.Waiters() != 1 { // Release returned: the timer is in place
		t.Fatalf("Waiters = %d after Release, want 1", c.Waiters())
	}
	c.Advance(5 * time.Second)
	select {
	case v := <-got:
		if v.Sub(t0) != 6*time.Second {
			t.Fatalf("timer fired at t0+%v, want t0+6s (5s after the release at 1s)", v.Sub(t0))
		}
	case <-ctx.Done():
		t.Fatal("timer did not fire")
	}
}

func TestTrapSleepAndNowSeeTheTimeOfRelease(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	nowTrap, sleepTrap := c.Trap().Now(), c.Trap().Sleep()
	defer nowTrap.Close()
	defer sleepTrap.Close()
	saw := make(chan time.Duration, 2)
	go func() {
		saw <- c.Since(t0) // Since is not trapped: Now is
		saw <- c.Now().Sub(t0)
		c.Sleep(time.Second)
		saw <- c.Since(t0)
	}()
	if got := within(t, ctx, saw); got != 0 {
		t.Fatalf("Since = %v, want 0", got)
	}
	call := mustCall(t, ctx, nowTrap)
	c.Advance(time.Minute)
	mustRelease(t, ctx, call)
	if got := within(t, ctx, saw); got != time.Minute {
		t.Fatalf("trapped Now read t0+%v, want the time at its release, t0+1m", got)
	}
	call = mustCall(t, ctx, sleepTrap)
	mustRelease(t, ctx, call) // returns once the Sleep is counted
	c.Advance(time.Second)
	select {
	case got := <-saw:
		if got != time.Minute+time.Second {
			t.Fatalf("woke at t0+%v, want t0+1m1s", got)
		}
	case <-ctx.Done():
		t.Fatal("Sleep did not return")
	}
}

func TestTrapReleaseWaitsForTheCall(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	// Caught by two traps, the call goes on only when both release it, so
	// the first Release cannot see it return: with a context that ends, it
	// reports that.
	a, b := c.Trap().Now(), c.Trap().Now()
	defer a.Close()
	defer b.Close()
	go c.Now()
	ca, cb := mustCall(t, ctx, a), mustCall(t, ctx, b)
	short, cancel := context.WithCancel(ctx)
	cancel()
	if err := ca.Release(short); !errors.Is(err, context.Canceled) {
		t.Fatalf("Release = %v, want Canceled (the call is still held by the other trap)", err)
	}
	mustRelease(t, ctx, cb)
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("a second Release did not panic")
		}
	}()
	_ = ca.Release(ctx)
}

// A released Sleep is counted as a waiter by the time Release returns.
func TestTrapSleepReleaseReturnsWhenAsleep(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	trap := c.Trap().Sleep()
	defer trap.Close()
	woke := make(chan struct{})
	go func() { c.Sleep(time.Second); close(woke) }()
	mustRelease(t, ctx, mustCall(t, ctx, trap))
	if c.Waiters() != 1 {
		t.Fatalf("Waiters = %d after the Sleep's release, want 1", c.Waiters())
	}
	c.Advance(time.Second)
	select {
	case <-woke:
	case <-ctx.Done():
		t.Fatal("Sleep did not return")
	}
}

func TestTwoTrapsBothRelease(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	a, b := c.Trap().AfterFunc(), c.Trap().AfterFunc()
	defer a.Close()
	defer b.Close()
	returned := make(chan struct{})
	go func() { c.AfterFunc(time.Second, func() {}); close(returned) }()
	ca, cb := mustCall(t, ctx, a), mustCall(t, ctx, b)
	releasedA := make(chan error, 1)
	go func() { releasedA <- ca.Release(ctx) }()
	select {
	case <-returned:
		t.Fatal("the call went on with one of its two traps released")
	default:
	}
	mustRelease(t, ctx, cb)
	if err := within(t, ctx, releasedA); err != nil {
		t.Fatal(err)
	}
	within(t, ctx, returned)
}

// A call that two traps caught waits for both; a Release that gives up
// first says which trap still holds the call.
func TestTrapReleaseNamesTheOtherTrap(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	all, tagged := c.Trap().Now(), c.Trap().Now("x")
	defer all.Close()
	defer tagged.Close()
	returned := make(chan struct{})
	go func() { Tagged(c, "x").Now(); close(returned) }()
	ca := mustCall(t, ctx, all)
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	err := ca.Release(short)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `trap on Now ["x"]`) {
		t.Fatalf("Release while another trap holds the call: %v; want DeadlineExceeded naming the other trap", err)
	}
	mustRelease(t, ctx, mustCall(t, ctx, tagged))
	within(t, ctx, returned)
}

func TestTrapCloseReleasesHeldCalls(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	trap := c.Trap().Now()
	returned := make(chan struct{})
	go func() { c.Now(); c.Now(); close(returned) }()
	call := mustCall(t, ctx, trap) // taken, not released
	trap.Close()
	select {
	case <-returned:
	case <-ctx.Done():
		t.Fatal("Close did not release the held call")
	}
	mustRelease(t, ctx, call) // after Close: no panic, nothing to do
	if _, err := trap.Wait(ctx); !errors.Is(err, ErrTrapClosed) {
		t.Fatalf("Wait after Close = %v, want ErrTrapClosed", err)
	}
	trap.Close() // twice is fine
	over, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Trap().Now().Wait(over); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with nothing caught and a done context = %v", err)
	}
}

// A callback's call is trapped too: the advance goes on without the held
// callback, and Wait waits for it.
func TestTrapInCallback(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	trap := c.Trap().Now()
	defer trap.Close()
	var seen time.Duration
	c.AfterFunc(time.Second, func() { seen = c.Now().Sub(t0) })
	adv := c.AdvanceAsync(time.Minute)
	mustRelease(t, ctx, mustCall(t, ctx, trap))
	if err := adv.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	// The advance went on without the held callback, to its target: the
	// released call reads the clock as it is then, as in quartz.
	if d, n := adv.Result(); seen != time.Minute || d != time.Minute || n != 1 {
		t.Fatalf("callback saw t0+%v, advance moved %v firing %d; want t0+1m, 1m, 1", seen, d, n)
	}
	// AdvanceNextAsync, the same way.
	c.AfterFunc(time.Second, func() { seen = c.Now().Sub(t0) })
	adv = c.AdvanceNextAsync()
	mustRelease(t, ctx, mustCall(t, ctx, trap))
	if err := adv.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if d, n := adv.Result(); seen != time.Minute+time.Second || d != time.Second || n != 1 {
		t.Fatalf("callback saw t0+%v, advance moved %v firing %d; want t0+1m1s, 1s, 1", seen, d, n)
	}
}

// A callback that a trap held and that panics once released: the panic is
// the Advancing's, passed on by Wait, for both asynchronous advances. (An
// advance that no Advancing waits for would leave it to the callback's own
// goroutine, which would crash the test binary.)
func TestHeldCallbackPanicReachesWait(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	trap := c.Trap().Now()
	defer trap.Close()
	for name, start := range map[string]func() *Advancing{
		"AdvanceAsync":     func() *Advancing { return c.AdvanceAsync(time.Minute) },
		"AdvanceNextAsync": c.AdvanceNextAsync,
	} {
		c.AfterFunc(time.Second, func() { c.Now(); panic(errors.New("late boom")) })
		adv := start()
		mustRelease(t, ctx, mustCall(t, ctx, trap))
		if r := panicOf(t, ctx, func() { _ = adv.Wait(ctx) }); r == nil || fmt.Sprint(r) != "late boom" {
			t.Fatalf("%s: Wait panicked with %v, want late boom", name, r)
		}
	}
}

// In a synchronous advance, a callback's call that a trap catches no longer
// holds up the advance: Advance fires the rest and returns while the call is
// held; released, the callback goes on and reads the clock as it is then. A
// call the trap's match rejects goes through.
func TestTrappedCallbackInSyncAdvanceIsHeld(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	trap := c.Trap().Where(func(call Call) bool { return call.Duration == time.Hour }).AfterFunc()
	defer trap.Close()
	var order []string
	var mu sync.Mutex
	add := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	c.AfterFunc(time.Second, func() { c.AfterFunc(time.Minute, func() {}); add("1s") }) // not matched
	released := make(chan struct{})
	c.AfterFunc(2*time.Second, func() {
		c.AfterFunc(time.Hour, func() {})
		add("2s released at " + c.Since(t0).String())
		close(released)
	})
	c.AfterFunc(3*time.Second, func() { add("3s") })
	c.Advance(time.Minute) // would hang if the held callback held it up
	call := mustCall(t, ctx, trap)
	if got := c.Since(t0); got != time.Minute {
		t.Fatalf("Now = t0+%v after Advance, want t0+1m", got)
	}
	c.Advance(time.Second)
	mustRelease(t, ctx, call)
	select { // the released callback goes on on its own goroutine
	case <-released:
	case <-ctx.Done():
		t.Fatal("the released callback did not finish")
	}
	mu.Lock()
	got := fmt.Sprint(order)
	mu.Unlock()
	if want := "[1s 3s 2s released at 1m1s]"; got != want {
		t.Fatalf("order %s, want %s", got, want)
	}
	// The panic reaches Wait's caller when the advance is asynchronous.
	c.AfterFunc(time.Second, func() { panic(errors.New("boom")) })
	adv := c.AdvanceAsync(time.Minute)
	if r := panicOf(t, ctx, func() { _ = adv.Wait(ctx) }); r == nil || fmt.Sprint(r) != "boom" {
		t.Fatalf("Wait panicked with %v, want boom", r)
	}
	// And Wait with a done context reports it.
	c.AfterFunc(time.Second, func() { c.Now() })
	nowTrap := c.Trap().Now()
	defer nowTrap.Close()
	adv = c.AdvanceAsync(time.Minute)
	over, cancel := context.WithCancel(ctx)
	cancel()
	if err := adv.Wait(over); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with a done context while the call is held = %v", err)
	}
	if d, n := adv.Result(); d != time.Minute || n != 0 {
		t.Fatalf("Result before the end = %v, %d; want the distance, 1m, and 0 fired until done", d, n)
	}
	mustRelease(t, ctx, mustCall(t, ctx, nowTrap))
	if err := adv.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// The clock's own calls are not trapped: a WithTimeout context's Now and the
// Stop of its timer, a TickerFunc's Stop.
func TestTrapIgnoresClockInternals(t *testing.T) {
	c := New(t0)
	traps := []*Trap{c.Trap().Now(), c.Trap().Until(), c.Trap().TimerStop(), c.Trap().AfterFunc()}
	defer func() {
		for _, tr := range traps {
			tr.Close()
		}
	}()
	ctx, cancel := WithTimeout(context.Background(), c, time.Second)
	cancel()
	_, cancel = WithDeadline(context.Background(), c, t0.Add(time.Minute))
	c.Advance(2 * time.Second)
	cancel()
	if ctx.Err() != context.Canceled {
		t.Fatal(ctx.Err())
	}
	for _, tr := range traps {
		tr.mu.Lock()
		n := len(tr.queue)
		tr.mu.Unlock()
		if n != 0 {
			t.Fatalf("%v caught %d internal calls", tr, n)
		}
	}
}

// Where narrows a trap to the calls that match, as quartz's tags do; the
// others go through untouched.
func TestTrapWhere(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	minute := func(call Call) bool { return call.Duration == time.Minute }
	trap := c.Trap().Where(minute).NewTimer()
	defer trap.Close()
	both := c.Trap().Where(minute).Where(func(call Call) bool { return call.Method == "AfterFunc" }).AfterFunc()
	defer both.Close()
	returned := make(chan struct{})
	go func() {
		c.NewTimer(time.Second) // not caught
		c.AfterFunc(time.Minute, func() {})
		c.AfterFunc(time.Second, func() {}) // not caught
		c.NewTimer(time.Minute)
		close(returned)
	}()
	call := mustCall(t, ctx, both)
	if call.Duration != time.Minute {
		t.Fatalf("caught AfterFunc(%v), want AfterFunc(1m)", call.Duration)
	}
	mustRelease(t, ctx, call)
	call = mustCall(t, ctx, trap)
	if call.Method != "NewTimer" || call.Duration != time.Minute {
		t.Fatalf("caught %s(%v), want NewTimer(1m)", call.Method, call.Duration)
	}
	if c.Waiters() != 1 {
		t.Fatalf("Waiters = %d, want 1: the 1s timer went through", c.Waiters())
	}
	mustRelease(t, ctx, call)
	within(t, ctx, returned)
}

// A call caught by two traps, released by one before the other has it, still
// waits for the other: the gate opens only when every trap has released.
func TestTrapEarlyReleaseOfOneOfTwo(t *testing.T) {
	ctx := bound(t)
	for range 50 {
		c := New(t0)
		a, b := c.Trap().Now(), c.Trap().Now()
		returned := make(chan struct{})
		go func() { c.Now(); close(returned) }()
		cb, releasedByA := mustCallAsync(t, ctx, a, b)
		select {
		case <-returned:
			t.Fatal("the call returned before b released it")
		default:
		}
		mustRelease(t, ctx, cb)
		within(t, ctx, returned)
		// a's Release returns once the call has, here at once. Waited for
		// here, not in a goroutine of its own: one that reported after the
		// test ended would find ctx cancelled by the test's cleanup, and
		// its report would panic the test binary.
		if err := within(t, ctx, releasedByA); err != nil {
			t.Fatalf("Release by a: %v", err)
		}
		a.Close()
		b.Close()
	}
}

// mustCallAsync takes the call from a and releases it on another goroutine
// at once, then takes it from b and returns it, with the channel on which
// a's Release reports.
func mustCallAsync(t *testing.T, ctx context.Context, a, b *Trap) (*Call, <-chan error) {
	t.Helper()
	ca := mustCall(t, ctx, a)
	released := make(chan error, 1)
	go func() { released <- ca.Release(ctx) }()
	return mustCall(t, ctx, b), released
}

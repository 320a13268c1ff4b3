package simclock

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

type key struct{}

func TestWithTimeoutFollowsSimulatedTime(t *testing.T) {
	c := New(t0)
	parent := context.WithValue(context.Background(), key{}, "v")
	ctx, cancel := WithTimeout(parent, c, 5*time.Second)
	defer cancel()
	child, cancelChild := context.WithCancel(ctx)
	defer cancelChild()
	if d, ok := ctx.Deadline(); !ok || !d.Equal(t0.Add(5*time.Second)) {
		t.Fatalf("Deadline() = %v, %v; want t0+5s", d, ok)
	}
	if ctx.Value(key{}) != "v" || child.Value(key{}) != "v" {
		t.Fatal("values of the parent are lost")
	}
	// Callbacks at the deadline see the context's end in scheduling order:
	// one scheduled before the context's timer still sees it alive.
	var before, after error
	var ctx2 context.Context
	c.AfterFunc(5*time.Second, func() { before = ctx2.Err() })
	ctx2, cancel2 := WithDeadline(parent, c, t0.Add(5*time.Second))
	defer cancel2()
	c.AfterFunc(5*time.Second, func() { after = ctx2.Err() })

	c.Advance(5*time.Second - 1)
	if ctx.Err() != nil || child.Err() != nil {
		t.Fatalf("before the deadline: Err = %v, %v", ctx.Err(), child.Err())
	}
	select {
	case <-ctx.Done():
		t.Fatal("Done closed before the deadline")
	default:
	}
	c.Advance(1)
	for name, x := range map[string]context.Context{"ctx": ctx, "child": child} {
		if !errors.Is(x.Err(), context.DeadlineExceeded) || !errors.Is(context.Cause(x), context.DeadlineExceeded) {
			t.Fatalf("%s at the deadline: Err = %v, Cause = %v; want DeadlineExceeded", name, x.Err(), context.Cause(x))
		}
		select {
		case <-x.Done():
		default:
			t.Fatalf("%s: Done not closed at the deadline", name)
		}
	}
	if before != nil {
		t.Fatalf("a callback scheduled before the context saw Err = %v, want nil", before)
	}
	if !errors.Is(after, context.DeadlineExceeded) {
		t.Fatalf("a callback scheduled after the context saw Err = %v, want DeadlineExceeded", after)
	}
	// A child made after the deadline is born done.
	late, cancelLate := context.WithTimeout(ctx, time.Hour)
	defer cancelLate()
	if !errors.Is(late.Err(), context.DeadlineExceeded) {
		t.Fatalf("child made after the deadline: Err = %v", late.Err())
	}
}

func TestWithDeadlineCancelReleasesTimer(t *testing.T) {
	c := New(t0)
	ctx, cancel := WithTimeout(context.Background(), c, time.Minute)
	if _, ok := c.Next(); !ok {
		t.Fatal("no timer for the deadline")
	}
	cancel()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("Err after cancel = %v, want Canceled", ctx.Err())
	}
	if n, ok := c.Next(); ok {
		t.Fatalf("cancel left a timer at %v", n)
	}
	c.Advance(time.Hour)
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("Err after the deadline passed = %v, want still Canceled", ctx.Err())
	}
}

func TestWithDeadlineParentCancelled(t *testing.T) {
	c := New(t0)
	parent, cancelParent := context.WithCancelCause(context.Background())
	ctx, cancel := WithTimeout(parent, c, time.Minute)
	defer cancel()
	why := errors.New("why")
	cancelParent(why)
	// No waiting: the context consults its parent when asked, as a child
	// made by package context would already be cancelled here.
	select {
	case <-ctx.Done():
	default:
		t.Fatal("Done still open after the parent's cancel returned")
	}
	if !errors.Is(ctx.Err(), context.Canceled) || !errors.Is(context.Cause(ctx), why) {
		t.Fatalf("Err = %v, Cause = %v; want Canceled, %v", ctx.Err(), context.Cause(ctx), why)
	}
	if n, ok := c.Next(); ok {
		t.Fatalf("the parent's end left a timer at %v", n)
	}
}

func TestWithDeadlineInThePast(t *testing.T) {
	c := New(t0)
	c.Advance(time.Hour)
	ctx, cancel := WithDeadline(context.Background(), c, t0)
	defer cancel()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err = %v, want DeadlineExceeded at once", ctx.Err())
	}
	if n, ok := c.Next(); ok {
		t.Fatalf("a past deadline left a timer at %v", n)
	}
	ctx, cancel = WithTimeout(context.Background(), c, 0)
	defer cancel()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("WithTimeout(0): Err = %v, want DeadlineExceeded", ctx.Err())
	}
}

// TestWithDeadlineParentCancelledBeforeDeadline: the parent ends, then the
// clock passes the deadline before anything has looked at the context. The
// context must end with the parent's error every time, never with
// DeadlineExceeded, whichever way the goroutines that carry the parent's end
// are scheduled.
func TestWithDeadlineParentCancelledBeforeDeadline(t *testing.T) {
	why := errors.New("why")
	for i := range 100 {
		c := New(t0)
		parent, cancelParent := context.WithCancelCause(context.Background())
		ctx, cancel := WithTimeout(parent, c, time.Second)
		var atDeadline error
		c.AfterFunc(time.Second, func() { atDeadline = ctx.Err() })
		cancelParent(why)
		c.Advance(time.Second)
		if !errors.Is(ctx.Err(), context.Canceled) || !errors.Is(context.Cause(ctx), why) {
			t.Fatalf("run %d: Err = %v, Cause = %v; want Canceled, %v", i, ctx.Err(), context.Cause(ctx), why)
		}
		if !errors.Is(atDeadline, context.Canceled) {
			t.Fatalf("run %d: a callback at the deadline saw Err = %v, want Canceled", i, atDeadline)
		}
		cancel()
	}
}

// slowParent is a context whose end reaches the functions registered through
// its AfterFunc method only when deliver is called: it stands for the
// goroutine that carries a parent's end to a simclock context, made as late
// as it may be.
type slowParent struct {
	context.Context // for Deadline and Value
	mu              sync.Mutex
	done            chan struct{}
	err             error
	fns             []func()
}

func newSlowParent() *slowParent {
	return &slowParent{Context: context.Background(), done: make(chan struct{})}
}

func (p *slowParent) Done() <-chan struct{} { return p.done }

func (p *slowParent) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

func (p *slowParent) AfterFunc(f func()) func() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fns = append(p.fns, f)
	return func() bool { return false }
}

func (p *slowParent) cancel() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.err = context.Canceled
	close(p.done)
}

func (p *slowParent) deliver() {
	p.mu.Lock()
	fns := p.fns
	p.fns = nil
	p.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// TestWithDeadlineSlowParent: the parent's end has not been delivered when
// the clock reaches the deadline; the context still ends with the parent's
// error, and the late delivery changes nothing.
func TestWithDeadlineSlowParent(t *testing.T) {
	c := New(t0)
	p := newSlowParent()
	ctx, cancel := WithTimeout(p, c, time.Second)
	defer cancel()
	p.cancel()
	c.Advance(time.Second)
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("parent ended before the deadline: Err = %v, want Canceled", ctx.Err())
	}
	p.deliver()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("after the late delivery: Err = %v, want Canceled", ctx.Err())
	}

	// Without an advance, reading the context is enough.
	p = newSlowParent()
	ctx, cancel = WithTimeout(p, c, time.Second)
	defer cancel()
	p.cancel()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("parent ended, nothing delivered: Err = %v, want Canceled", ctx.Err())
	}
	if n, ok := c.Next(); ok {
		t.Fatalf("the parent's end left a timer at %v", n)
	}
}

// TestWithDeadlineSeesParentAtOnce: once the parent's cancel returns, Err of
// the context (and of one derived from it afterwards) is the parent's, with no
// goroutine in between, and the deadline's timer is gone.
func TestWithDeadlineSeesParentAtOnce(t *testing.T) {
	c := New(t0)
	for i := range 100 {
		parent, cancelParent := context.WithCancel(context.Background())
		ctx, cancel := WithTimeout(parent, c, time.Hour)
		cancelParent()
		if !errors.Is(ctx.Err(), context.Canceled) {
			t.Fatalf("run %d: Err = %v right after the parent's cancel, want Canceled", i, ctx.Err())
		}
		child, cancelChild := context.WithCancel(ctx)
		if !errors.Is(child.Err(), context.Canceled) {
			t.Fatalf("run %d: a child made afterwards has Err = %v, want Canceled", i, child.Err())
		}
		if n, ok := c.Next(); ok {
			t.Fatalf("run %d: the parent's end left a timer at %v", i, n)
		}
		cancelChild()
		cancel()
	}
}

// TestWithDeadlineCancelledParentBornDone: from a parent already cancelled,
// the context is done when WithDeadline returns, with the parent's error and
// cause, and schedules no timer.
func TestWithDeadlineCancelledParentBornDone(t *testing.T) {
	c := New(t0)
	why := errors.New("why")
	parent, cancelParent := context.WithCancelCause(context.Background())
	cancelParent(why)
	ctx, cancel := WithTimeout(parent, c, time.Hour)
	defer cancel()
	if !errors.Is(ctx.Err(), context.Canceled) || !errors.Is(context.Cause(ctx), why) {
		t.Fatalf("Err = %v, Cause = %v; want Canceled, %v", ctx.Err(), context.Cause(ctx), why)
	}
	if n, ok := c.Next(); ok {
		t.Fatalf("a cancelled parent left a timer at %v", n)
	}
	// The parent's error wins over a deadline already passed, as in package
	// context.
	ctx2, cancel2 := WithTimeout(parent, c, 0)
	defer cancel2()
	if !errors.Is(ctx2.Err(), context.Canceled) {
		t.Fatalf("WithTimeout(cancelled parent, 0): Err = %v, want Canceled", ctx2.Err())
	}
}

// TestWithDeadlineEarlierParentDeadline: a deadline later than the parent's
// is not reported; the context ends with the parent at the parent's deadline.
// An equal or earlier one is kept.
func TestWithDeadlineEarlierParentDeadline(t *testing.T) {
	c := New(t0)
	p, cancelP := WithTimeout(context.Background(), c, time.Second)
	defer cancelP()
	for _, d := range []time.Duration{time.Second, time.Hour} {
		ctx, cancel := WithTimeout(p, c, d)
		defer cancel()
		if got, ok := ctx.Deadline(); !ok || !got.Equal(t0.Add(time.Second)) {
			t.Fatalf("WithTimeout(parent due at t0+1s, %v): Deadline = %v, %v; want t0+1s", d, got, ok)
		}
	}
	early, cancelEarly := WithTimeout(p, c, time.Millisecond)
	defer cancelEarly()
	if got, _ := early.Deadline(); !got.Equal(t0.Add(time.Millisecond)) {
		t.Fatalf("an earlier deadline: Deadline = %v, want t0+1ms", got)
	}
	late, cancelLate := WithTimeout(p, c, time.Hour)
	defer cancelLate()
	c.Advance(time.Second)
	if !errors.Is(late.Err(), context.DeadlineExceeded) {
		t.Fatalf("at the parent's deadline: Err = %v, want DeadlineExceeded", late.Err())
	}
	if n, ok := c.Next(); ok {
		t.Fatalf("a timer is left at %v", n)
	}
}

// A parent's deadline on another clock (the wall clock, as a test's usual
// guard, or another simulated clock) says nothing about this clock's time:
// the child gets its own simulated deadline, counts in Waiters and ends at
// it, and still ends with the parent.
func TestWithDeadlineParentOnAnotherClock(t *testing.T) {
	guard, cancelGuard := context.WithTimeout(context.Background(), time.Hour) // wall clock
	defer cancelGuard()
	other := New(t0)
	otherCtx, cancelOther := WithTimeout(context.Background(), other, time.Second)
	defer cancelOther()
	for name, parent := range map[string]context.Context{"wall clock": guard, "other clock": otherCtx} {
		// This clock reads later than both parents' deadlines, as a clock
		// started at time.Now() does once a test advances it.
		c := New(time.Now().Add(24 * time.Hour))
		ctx, cancel := WithTimeout(parent, c, 30*time.Second)
		if d, ok := ctx.Deadline(); !ok || !d.Equal(c.Now().Add(30*time.Second)) {
			t.Fatalf("%s: Deadline = %v, %v; want Now()+30s", name, d, ok)
		}
		if w := c.Waiters(); w != 1 {
			t.Fatalf("%s: Waiters = %d, want 1 (the deadline)", name, w)
		}
		c.Advance(time.Minute)
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Fatalf("%s: after Advance past the deadline: Err = %v, want DeadlineExceeded", name, ctx.Err())
		}
		cancel()
	}
	// The parent still ends the child, by its own means.
	c := New(time.Now().Add(24 * time.Hour))
	p, cancelP := context.WithTimeout(context.Background(), time.Hour)
	ctx, cancel := WithTimeout(p, c, 30*time.Second)
	defer cancel()
	cancelP()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("after the wall-clock parent was cancelled: Err = %v, want Canceled", ctx.Err())
	}
}

// TestWithTimeoutZeroAtParentDeadline: as with package context, a deadline
// equal to the parent's makes a context of its own, so WithTimeout(parent, 0)
// is done at once even when the parent's deadline is exactly Now() and the
// parent's own timer has not run yet (here a callback at the same instant,
// scheduled earlier, runs first).
func TestWithTimeoutZeroAtParentDeadline(t *testing.T) {
	c := New(t0)
	var parent context.Context
	var childErr error
	ran := false
	c.AfterFunc(10, func() {
		child, cancel := WithTimeout(parent, c, 0)
		defer cancel()
		childErr, ran = child.Err(), true
	})
	parent, cancelP := WithTimeout(context.Background(), c, 10)
	defer cancelP()
	c.Advance(10)
	if !ran || !errors.Is(childErr, context.DeadlineExceeded) {
		t.Fatalf("WithTimeout(parent due now, 0) inside a callback: ran %v, Err = %v; want DeadlineExceeded", ran, childErr)
	}
	// And with deadlines equal in the future, the result still ends at that
	// deadline.
	p2, cancel2 := WithTimeout(context.Background(), c, time.Second)
	defer cancel2()
	ctx, cancel := WithDeadline(p2, c, c.Now().Add(time.Second))
	defer cancel()
	if d, ok := ctx.Deadline(); !ok || !d.Equal(c.Now().Add(time.Second)) {
		t.Fatalf("Deadline = %v, %v", d, ok)
	}
	c.Advance(time.Second)
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("at the shared deadline: Err = %v, want DeadlineExceeded", ctx.Err())
	}
}

// A deadline made through a Tagged view is the clock's own: it counts in
// Waiters, expires with the clock, and neither making it nor cancelling it
// is a call that a trap catches (it would hold cancel forever).
func TestDeadlineThroughTaggedView(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	v := Tagged(c, "svc")
	traps := []*Trap{c.Trap().Now(), c.Trap().Until(), c.Trap().TimerStop(), c.Trap().AfterFunc()}
	defer func() {
		for _, tr := range traps {
			tr.Close()
		}
	}()
	made := make(chan [2]context.CancelFunc, 1)
	var short, long context.Context
	go func() {
		var a, b context.CancelFunc
		short, a = WithTimeout(context.Background(), v, time.Second)
		long, b = WithDeadline(context.Background(), v, t0.Add(time.Minute))
		made <- [2]context.CancelFunc{a, b}
	}()
	cancels := within(t, ctx, made)
	if n := c.Waiters(); n != 2 {
		t.Fatalf("Waiters = %d with two deadlines made through a view, want 2", n)
	}
	c.Advance(time.Second)
	if !errors.Is(short.Err(), context.DeadlineExceeded) || long.Err() != nil || c.Waiters() != 1 {
		t.Fatalf("at 1s: Err %v and %v, Waiters %d; want DeadlineExceeded, nil, 1", short.Err(), long.Err(), c.Waiters())
	}
	cancelled := make(chan struct{})
	go func() {
		cancels[0]()
		cancels[1]()
		close(cancelled)
	}()
	within(t, ctx, cancelled)
	if !errors.Is(long.Err(), context.Canceled) || c.Waiters() != 0 || c.Len() != 0 {
		t.Fatalf("after cancel: Err %v, Waiters %d, Len %d; want Canceled, 0, 0", long.Err(), c.Waiters(), c.Len())
	}
	for _, tr := range traps {
		tr.mu.Lock()
		n := len(tr.queue)
		tr.mu.Unlock()
		if n != 0 {
			t.Fatalf("%v caught %d calls of the deadline's own", tr, n)
		}
	}
}

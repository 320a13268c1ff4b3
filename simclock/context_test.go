package simclock

import (
	"context"
	"errors"
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
	select {
	case <-ctx.Done():
	case <-bound(t).Done():
		t.Fatal("the parent's cancellation did not reach the context")
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

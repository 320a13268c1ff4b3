package simclock

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// waitFor runs w.Wait where a hang fails the test.
func waitFor(t *testing.T, ctx context.Context, w Waiter) error {
	t.Helper()
	got := make(chan error, 1)
	go func() { got <- w.Wait() }()
	select {
	case err := <-got:
		return err
	case <-ctx.Done():
		t.Fatal("Wait did not return")
		return nil
	}
}

func TestTickerFuncEveryTickInOrder(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	l := &log{c: c}
	boom := errors.New("boom")
	calls := 0
	w := c.TickerFunc(context.Background(), time.Second, func() error {
		calls++
		l.fn(fmt.Sprint("tick", calls))()
		if calls == 5 {
			return boom
		}
		return nil
	})
	// Scheduled at 0s, before the ticker re-arms for 2s (at tick 1): it
	// fires before tick 2, FIFO at equal times.
	c.AfterFunc(2*time.Second, l.fn("other"))
	if c.Waiters() != 0 {
		t.Fatalf("Waiters = %d, want 0: TickerFunc does not count", c.Waiters())
	}
	c.Advance(3500 * time.Millisecond) // no tick dropped, each at its own time
	if want := "tick1@1s other@2s tick2@2s tick3@3s"; l.String() != want {
		t.Fatalf("fires %q, want %q", l, want)
	}
	c.Advance(time.Hour)
	if calls != 5 {
		t.Fatalf("f called %d times, want 5 (stopped by its error)", calls)
	}
	if err := waitFor(t, ctx, w); err != boom {
		t.Fatalf("Wait = %v, want f's error", err)
	}
	if _, ok := c.Next(); ok {
		t.Fatal("a timer is still pending after the ticker stopped")
	}
	mustPanic(t, errNonPositiveTickerFunc, func() { c.TickerFunc(context.Background(), 0, nil) })
}

func TestTickerFuncStopsWithContext(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	calls := 0
	// A simulated deadline between ticks 2 and 3: the tick at 3s finds the
	// context done and stops the ticker without calling f.
	dctx, cancel := WithTimeout(context.Background(), c, 2500*time.Millisecond)
	defer cancel()
	w := c.TickerFunc(dctx, time.Second, func() error { calls++; return nil })
	c.Advance(10 * time.Second)
	if calls != 2 {
		t.Fatalf("f called %d times, want 2", calls)
	}
	if err := waitFor(t, ctx, w); err != context.DeadlineExceeded {
		t.Fatalf("Wait = %v, want DeadlineExceeded", err)
	}
	// Cancelled between advances: no call after the cancel has returned
	// and the ticker's watch has run; Wait reports Canceled.
	cctx, stop := context.WithCancel(context.Background())
	calls = 0
	w = c.TickerFunc(cctx, time.Second, func() error { calls++; return nil })
	c.Advance(time.Second)
	stop()
	if err := waitFor(t, ctx, w); err != context.Canceled {
		t.Fatalf("Wait = %v, want Canceled", err)
	}
	c.Advance(time.Hour)
	if calls != 1 {
		t.Fatalf("f called %d times, want 1", calls)
	}
}

func TestRealTickerFunc(t *testing.T) {
	ctx := bound(t)
	boom := errors.New("boom")
	calls := 0
	w := Real().TickerFunc(context.Background(), time.Millisecond, func() error {
		calls++
		if calls == 3 {
			return boom
		}
		return nil
	})
	if err := waitFor(t, ctx, w); err != boom || calls != 3 {
		t.Fatalf("Wait = %v after %d calls, want boom after 3", err, calls)
	}
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	w = Real().TickerFunc(cctx, time.Hour, func() error { return nil })
	if err := waitFor(t, ctx, w); err != context.Canceled {
		t.Fatalf("Wait = %v, want Canceled", err)
	}
}

func TestClockInContext(t *testing.T) {
	if _, ok := FromContext(context.Background()).(realClock); !ok {
		t.Fatal("FromContext without a clock is not Real()")
	}
	c := New(t0)
	ctx := NewContext(context.Background(), c)
	if FromContext(ctx) != Interface(c) {
		t.Fatal("FromContext did not return the clock NewContext stored")
	}
	// It survives derived contexts, simulated deadlines included.
	dctx, cancel := WithTimeout(ctx, FromContext(ctx), time.Second)
	defer cancel()
	if FromContext(dctx) != Interface(c) {
		t.Fatal("the clock is lost in a derived context")
	}
	if FromContext(NewContext(ctx, nil)) != Real() {
		t.Fatal("a nil clock in the context is not taken as Real()")
	}
}

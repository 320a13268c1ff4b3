package simclock

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestContextDeadlinesCountAsWaiters(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	c1, cancel1 := WithTimeout(context.Background(), c, time.Second)
	c2, cancel2 := WithDeadline(context.Background(), c, t0.Add(time.Minute))
	defer cancel2()
	if w := c.Waiters(); w != 2 {
		t.Fatalf("Waiters = %d with two pending deadlines, want 2", w)
	}
	cancel1()
	if w := c.Waiters(); w != 1 || c1.Err() != context.Canceled {
		t.Fatalf("after cancel: Waiters = %d (want 1), Err %v", w, c1.Err())
	}
	c.Advance(time.Minute)
	if w := c.Waiters(); w != 0 || c2.Err() != context.DeadlineExceeded {
		t.Fatalf("after the deadline: Waiters = %d (want 0), Err %v", w, c2.Err())
	}
	// A deadline already passed, or a parent's earlier deadline, makes no timer.
	_, cancel3 := WithTimeout(context.Background(), c, 0)
	defer cancel3()
	p, cancelP := WithTimeout(context.Background(), c, time.Second)
	defer cancelP()
	_, cancel4 := WithTimeout(p, c, time.Hour)
	defer cancel4()
	if w := c.Waiters(); w != 1 {
		t.Fatalf("Waiters = %d, want 1 (only p's deadline)", w)
	}

	// The use: wait until the code under test has set its deadline.
	done := make(chan error, 1)
	go func() {
		ctx, cancel := WithTimeout(context.Background(), c, 5*time.Second)
		defer cancel()
		<-ctx.Done()
		done <- ctx.Err()
	}()
	if err := c.BlockUntilContext(ctx, 2); err != nil {
		t.Fatal(err)
	}
	cancelP()
	c.Advance(5 * time.Second)
	select {
	case err := <-done:
		if err != context.DeadlineExceeded {
			t.Fatalf("code under test ended with %v, want DeadlineExceeded", err)
		}
	case <-ctx.Done():
		t.Fatal("the code under test's deadline did not pass")
	}
}

// BlockUntil and BlockUntilContext wait for at least n waiters, as
// clockwork v0.5's do: with a ticker and a timer pending, BlockUntil(1)
// returns at once (an exact count would hang), and a wait for more returns as
// soon as the count gets there.
func TestBlockUntilAtLeast(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	c.NewTicker(time.Second)
	c.NewTimer(5 * time.Second)
	returned := make(chan struct{})
	go func() { c.BlockUntil(1); close(returned) }() // no context: a hang fails below
	select {
	case <-returned:
	case <-ctx.Done():
		t.Fatal("BlockUntil(1) with 2 waiters did not return")
	}
	if err := c.BlockUntilContext(ctx, 2); err != nil {
		t.Fatal(err)
	}
	over, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.BlockUntilContext(over, 3); !errors.Is(err, context.Canceled) {
		t.Fatalf("BlockUntilContext(3) with 2 waiters and a done context = %v, want Canceled", err)
	}
	got := make(chan error, 1)
	go func() { got <- c.BlockUntilContext(ctx, 3) }()
	go c.Sleep(time.Minute) // 2 -> 3, whether the wait has started or not
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("BlockUntilContext(3) missed the count of 3")
	}
}

// A count that reaches n only for an instant, inside one advance, is still
// seen by a wait that started before.
func TestBlockUntilSeesPassingCount(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	c.NewTimer(time.Minute)
	got := make(chan error, 1)
	go func() { got <- c.BlockUntilContext(ctx, 2) }()
	eventually(t, ctx, "the wait to register", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.blocked) == 1
	})
	// 1 -> 2 -> 1 in one advance, with no chance to look in between.
	c.AfterFunc(time.Second, func() { c.NewTimer(time.Hour).Stop() })
	c.Advance(time.Second)
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("BlockUntilContext(2) missed a count of 2 that lasted an instant")
	}
}

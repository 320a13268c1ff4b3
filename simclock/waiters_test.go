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
	if err := c.BlockUntilWaiters(ctx, 2); err != nil {
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

func TestBlockUntilExactly(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	a := c.NewTimer(time.Second)
	c.NewTimer(time.Second)
	// At least 1 holds at once; exactly 1 does not, and a done context ends
	// the wait with its error.
	if err := c.BlockUntilWaiters(ctx, 1); err != nil {
		t.Fatal(err)
	}
	over, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.BlockUntilContext(over, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("BlockUntilContext(1) with 2 waiters and a done context = %v, want Canceled", err)
	}
	got := make(chan error, 1)
	go func() { got <- c.BlockUntilContext(ctx, 1) }()
	a.Stop() // 2 -> 1, whether the wait has started or not
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("BlockUntilContext(1) missed the count of 1")
	}
	// BlockUntil has no context: run it where a hang fails the test.
	returned := make(chan struct{})
	go func() { c.BlockUntil(0); close(returned) }()
	c.Advance(time.Second)
	select {
	case <-returned:
	case <-ctx.Done():
		t.Fatal("BlockUntil(0) did not return")
	}
}

// A count that holds n only for an instant, inside one advance, is still
// seen by an exact wait that started before.
func TestBlockUntilSeesPassingCount(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	c.NewTimer(time.Second)
	c.NewTimer(2 * time.Second)
	got := make(chan error, 1)
	go func() { got <- c.BlockUntilContext(ctx, 1) }()
	eventually(t, ctx, "the wait to register", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.blocked) == 1
	})
	// 2 -> 1 -> 0 in one advance, with no chance to look in between.
	c.AfterFunc(3*time.Second, func() {})
	c.Advance(3 * time.Second)
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("BlockUntilContext(1) missed a count of 1 that lasted an instant")
	}
}

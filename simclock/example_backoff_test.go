package simclock_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gotimingwheel/timingwheel/simclock"
)

// Backoff retries an operation with capped exponential backoff and full
// jitter, within an overall time budget: the component under test. It takes
// its clock as simclock.Interface, so production passes simclock.Real().
type Backoff struct {
	Clock  simclock.Interface
	Base   time.Duration                     // the first wait's cap
	Max    time.Duration                     // no wait is longer
	Budget time.Duration                     // the whole call's limit
	Jitter func(time.Duration) time.Duration // a wait in [0, cap)
}

// Do calls op until it succeeds or the budget is spent.
func (b Backoff) Do(ctx context.Context, op func(context.Context) error) error {
	ctx, cancel := simclock.WithTimeout(ctx, b.Clock, b.Budget)
	defer cancel()
	for attempt := 0; ; attempt++ {
		err := op(ctx)
		if err == nil {
			return nil
		}
		t := b.Clock.NewTimer(b.Jitter(min(b.Max, b.Base<<attempt)))
		select {
		case <-t.C():
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("gave up after %d attempts: %w (last: %w)", attempt+1, ctx.Err(), err)
		}
	}
}

// Testing Backoff: a trap on NewTimer holds each backoff at the point where
// Do has chosen its wait, so the test sees the jittered duration, lets the
// timer start, and moves the clock straight to the next event. BlockUntil
// first waits until Do has set its budget's deadline. Nothing depends on the
// scheduler, and 10 simulated seconds take microseconds.
func Example_backoffWithTraps() {
	clk := simclock.New(start)
	r := rand.New(rand.NewPCG(7, 7))
	b := Backoff{Clock: clk, Base: 500 * time.Millisecond, Max: 4 * time.Second, Budget: 10 * time.Second,
		Jitter: func(d time.Duration) time.Duration { // whole milliseconds, to read easily
			return time.Duration(r.Int64N(d.Milliseconds())) * time.Millisecond
		}}
	test, cancel := context.WithTimeout(context.Background(), 10*time.Second) // real time: a safety net
	defer cancel()

	newTimer := clk.Trap().NewTimer()
	defer newTimer.Close()
	attempts := 0
	result := make(chan error, 1)
	go func() {
		result <- b.Do(context.Background(), func(context.Context) error {
			attempts++
			return errors.New("unavailable")
		})
	}()
	clk.BlockUntilContext(test, 1) // the budget's deadline is set

	for clk.Since(start) < b.Budget {
		call, err := newTimer.Wait(test) // Do has failed and chosen a wait
		if err != nil {
			panic(err)
		}
		fmt.Printf("+%-6v attempt %d failed, backing off %v\n", clk.Since(start), attempts, call.Duration)
		if err := call.Release(test); err != nil { // the timer is running
			panic(err)
		}
		clk.AdvanceNext() // the backoff timer, or the deadline if it comes first
	}
	select {
	case err := <-result:
		fmt.Println(err)
	case <-test.Done():
		panic("Do did not return")
	}
	// Output:
	// +0s     attempt 1 failed, backing off 480ms
	// +480ms  attempt 2 failed, backing off 19ms
	// +499ms  attempt 3 failed, backing off 1.518s
	// +2.017s attempt 4 failed, backing off 597ms
	// +2.614s attempt 5 failed, backing off 943ms
	// +3.557s attempt 6 failed, backing off 1.207s
	// +4.764s attempt 7 failed, backing off 3.239s
	// +8.003s attempt 8 failed, backing off 777ms
	// +8.78s  attempt 9 failed, backing off 1.759s
	// gave up after 9 attempts: context deadline exceeded (last: unavailable)
}

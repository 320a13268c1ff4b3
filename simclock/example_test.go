package simclock_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gotimingwheel/timingwheel/simclock"
)

var start = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Callbacks fire in time order, FIFO at equal times, each seeing its own
// time; a callback may schedule more work inside the same advance.
func ExampleClock_Advance() {
	clk := simclock.New(start)
	say := func(s string) func() {
		return func() { fmt.Printf("+%v %s\n", clk.Since(start), s) }
	}
	clk.AfterFunc(3*time.Second, say("third"))
	clk.AfterFunc(time.Second, func() {
		say("first")()
		clk.AfterFunc(time.Second, say("second, scheduled by first"))
	})
	clk.AfterFunc(3*time.Second, say("fourth, same time as third"))
	clk.Advance(time.Minute)
	fmt.Println("now +" + clk.Since(start).String())
	// Output:
	// +1s first
	// +2s second, scheduled by first
	// +3s third
	// +3s fourth, same time as third
	// now +1m0s
}

// A context whose deadline follows the simulated clock.
func ExampleWithTimeout() {
	clk := simclock.New(start)
	ctx, cancel := simclock.WithTimeout(context.Background(), clk, 30*time.Second)
	defer cancel()
	clk.Advance(29 * time.Second)
	fmt.Println(ctx.Err())
	clk.Advance(time.Second)
	fmt.Println(ctx.Err())
	// Output:
	// <nil>
	// context deadline exceeded
}

// retry calls op until it succeeds or makes attempts calls, waiting base,
// 2*base, 4*base, ... between calls. It takes simclock.Interface, so that
// production passes simclock.Real() and tests a simulated clock.
func retry(ctx context.Context, clk simclock.Interface, attempts int, base time.Duration, op func() error) error {
	wait := base
	for i := 1; ; i++ {
		err := op()
		if err == nil || i == attempts {
			return err
		}
		t := clk.NewTimer(wait)
		select {
		case <-t.C():
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		wait *= 2
	}
}

// Testing exponential backoff without waiting: the test lets retry run until
// it waits on the clock, then steps the clock to its wake-up time. The whole
// run takes microseconds of real time for 7 simulated seconds.
func Example_retryWithBackoff() {
	clk := simclock.New(start)
	calls := 0
	op := func() error {
		calls++
		fmt.Printf("attempt %d at +%v\n", calls, clk.Since(start))
		if calls < 4 {
			return errors.New("unavailable")
		}
		return nil
	}
	running, finished := context.WithCancel(context.Background())
	var err error
	go func() {
		defer finished()
		err = retry(context.Background(), clk, 5, time.Second, op)
	}()
	// While retry runs: wait until it sleeps, then wake it.
	for clk.BlockUntilContext(running, 1) == nil {
		clk.Step()
	}
	fmt.Printf("result %v after %v\n", err, clk.Since(start))
	// Output:
	// attempt 1 at +0s
	// attempt 2 at +1s
	// attempt 3 at +3s
	// attempt 4 at +7s
	// result <nil> after 7s
}

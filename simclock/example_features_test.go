package simclock_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gotimingwheel/timingwheel/simclock"
)

// A trap holds the code under test at a clock call: here the test lets time
// pass between the code's decision to wait and the start of its timer.
func ExampleClock_Trap() {
	clk := simclock.New(start)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // real time: a safety net
	defer cancel()
	trap := clk.Trap().NewTimer()
	defer trap.Close()

	woke := make(chan time.Time)
	go func() {
		t := clk.NewTimer(time.Minute)
		woke <- <-t.C()
	}()
	call, err := trap.Wait(ctx) // the goroutine is inside NewTimer
	if err != nil {
		panic(err)
	}
	fmt.Println("caught", call.Method, call.Duration)
	clk.Advance(time.Hour) // the timer does not exist yet: nothing fires
	if err := call.Release(ctx); err != nil {
		panic(err)
	}
	clk.Advance(time.Minute)
	select {
	case v := <-woke:
		fmt.Println("woke at +" + v.Sub(start).String())
	case <-ctx.Done():
		panic("the timer did not fire")
	}
	// Output:
	// caught NewTimer 1m0s
	// woke at +1h1m0s
}

// TickerFunc calls f for every tick, in time order with the other timers,
// until f fails or the context ends.
func ExampleClock_TickerFunc() {
	clk := simclock.New(start)
	n := 0
	w := clk.TickerFunc(context.Background(), time.Second, func() error {
		n++
		fmt.Printf("tick %d at +%v\n", n, clk.Since(start))
		if n == 3 {
			return errors.New("enough")
		}
		return nil
	})
	clk.Advance(time.Minute)
	fmt.Println(w.Wait())
	// Output:
	// tick 1 at +1s
	// tick 2 at +2s
	// tick 3 at +3s
	// enough
}

// AdvanceNext moves to the next instant with something due and says how far
// it went and how many timers fired.
func ExampleClock_AdvanceNext() {
	clk := simclock.New(start)
	clk.AfterFunc(90*time.Second, func() {})
	clk.NewTimer(90 * time.Second)
	clk.AfterFunc(time.Hour, func() {})
	for {
		d, n := clk.AdvanceNext()
		if n == 0 {
			break
		}
		fmt.Printf("moved %v, %d fired\n", d, n)
	}
	// Output:
	// moved 1m30s, 2 fired
	// moved 58m30s, 1 fired
}

// Code that finds its clock in its context runs on the real clock in
// production and on a simulated one in tests.
func ExampleFromContext() {
	deadline := func(ctx context.Context) time.Time {
		return simclock.FromContext(ctx).Now().Add(time.Minute)
	}
	clk := simclock.New(start)
	fmt.Println(deadline(simclock.NewContext(context.Background(), clk)).Format(time.Kitchen))
	real := deadline(context.Background()) // no clock in the context: Real()
	fmt.Println(real.After(start))
	// Output:
	// 12:01AM
	// true
}

// The zero Clock is ready to use and starts at the Unix epoch.
func ExampleClock_zero() {
	var clk simclock.Clock
	clk.Advance(time.Hour)
	fmt.Println(clk.Now().UTC())
	// Output:
	// 1970-01-01 01:00:00 +0000 UTC
}

// quartz's latency measurer: a TickerFunc measures how long its work takes
// with Now and Since. The test holds the Since call, advances the clock 33ms
// meanwhile (a held callback does not hold up the clock), and lets it go.
func ExampleClock_AdvanceAsync() {
	clk := simclock.New(start)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // real time: a safety net
	defer cancel()
	clk.TickerFunc(ctx, 10*time.Second, func() error {
		begin := clk.Now()
		fmt.Println("measured", clk.Since(begin))
		return nil
	})
	trap := clk.Trap().Since()
	defer trap.Close()

	w := clk.AdvanceAsync(10 * time.Second) // returns once Now() is +10s
	call := trap.MustWait(ctx)              // the tick's callback is inside Since
	clk.Advance(33 * time.Millisecond)
	call.MustRelease(ctx)
	w.MustWait(ctx)
	d, n := w.Result()
	fmt.Printf("advanced %v, %d fired; now +%v\n", d, n, clk.Now().Sub(start))
	// Output:
	// measured 33ms
	// advanced 10s, 1 fired; now +10.033s
}

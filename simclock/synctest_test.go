//go:build go1.25

package simclock_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gotimingwheel/timingwheel/simclock"
)

// pollLoop is code in the style benbjohnson/clock's users test: a goroutine
// that does its work on every tick, which the test checks by reading a
// counter after advancing.
func pollLoop(ctx context.Context, clk simclock.Interface, polls *atomic.Int64) {
	tk := clk.NewTicker(time.Second)
	defer tk.Stop()
	for {
		select {
		case <-tk.C():
			polls.Add(1)
		case <-ctx.Done():
			return
		}
	}
}

// Waiting for what an advance set in motion: inside a testing/synctest
// bubble, synctest.Wait returns once every goroutine of the bubble is blocked
// again, so the goroutine the tick woke has counted it. No real time passes
// and nothing is guessed: the read after Wait cannot come too early.
// (benbjohnson/clock sleeps a millisecond of real time instead, and a third
// of tests written that way read too early on a loaded machine.)
func TestAwaitEffectsWithSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		clk := simclock.New(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
		var polls atomic.Int64
		done := make(chan struct{})
		go func() { pollLoop(ctx, clk, &polls); close(done) }()
		synctest.Wait() // the loop has made its ticker and waits on it
		for i := int64(1); i <= 5; i++ {
			clk.Advance(time.Second)
			synctest.Wait()
			if got := polls.Load(); got != i {
				t.Fatalf("after %d advances the loop polled %d times", i, got)
			}
		}
		cancel()
		<-done
	})
}

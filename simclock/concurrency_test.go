package simclock

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// bound is a real-time safety net for the waits below: a test that hangs
// fails instead. It never decides a result; nothing here waits for real time
// to pass.
func bound(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestSleepersWakeAtTheirTime(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	const n = 50
	woke := make(chan time.Duration, n)
	for i := range n {
		go func() {
			d := time.Duration(i+1) * time.Millisecond
			c.Sleep(d)
			woke <- c.Since(t0) - d // >= 0: never early
		}()
	}
	if err := c.BlockUntilContext(ctx, n); err != nil {
		t.Fatalf("BlockUntilContext(%d): %v (Waiters = %d)", n, err, c.Waiters())
	}
	// Half of them first: exactly those wake.
	c.Advance(n / 2 * time.Millisecond)
	for range n / 2 {
		select {
		case late := <-woke:
			if late < 0 {
				t.Fatalf("a sleeper woke %v early", -late)
			}
		case <-ctx.Done():
			t.Fatal("sleepers did not wake")
		}
	}
	if w := c.Waiters(); w != n/2 {
		t.Fatalf("Waiters = %d after waking half, want %d", w, n/2)
	}
	c.Advance(time.Hour)
	for range n / 2 {
		select {
		case late := <-woke:
			if late < 0 {
				t.Fatalf("a sleeper woke %v early", -late)
			}
		case <-ctx.Done():
			t.Fatal("sleepers did not wake")
		}
	}
}

func TestBlockUntilContextOnChannels(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	got := make(chan time.Time, 2)
	go func() { got <- <-c.After(time.Second) }()
	go func() {
		tm := c.NewTimer(2 * time.Second)
		got <- <-tm.C()
	}()
	if err := c.BlockUntilContext(ctx, 2); err != nil {
		t.Fatal(err)
	}
	c.Advance(3 * time.Second)
	seen := map[time.Duration]bool{}
	for range 2 {
		select {
		case v := <-got:
			seen[v.Sub(t0)] = true
		case <-ctx.Done():
			t.Fatal("timers did not deliver")
		}
	}
	if !seen[time.Second] || !seen[2*time.Second] {
		t.Fatalf("delivered %v, want t0+1s and t0+2s", seen)
	}
}

// TestResetRacingAdvance races Reset and Stop of one timer, receives from
// its channel, and advances, on three goroutines; at the end, after Stop,
// nothing may be received and no callback of a stopped AfterFunc may run.
func TestResetRacingAdvance(t *testing.T) {
	c := New(t0)
	tm := c.NewTimer(time.Microsecond)
	var calls atomic.Int64
	f := c.AfterFunc(time.Microsecond, func() { calls.Add(1) })
	const rounds = 2000
	var writers sync.WaitGroup
	writers.Add(2)
	go func() {
		defer writers.Done()
		r := rand.New(rand.NewPCG(1, 2))
		for range rounds {
			d := time.Duration(r.IntN(100) - 10)
			if r.IntN(4) == 0 {
				tm.Stop()
				f.Stop()
			} else {
				tm.Reset(d)
				f.Reset(d)
			}
		}
	}()
	go func() {
		defer writers.Done()
		r := rand.New(rand.NewPCG(3, 4))
		for range rounds {
			c.Advance(time.Duration(r.IntN(50)))
		}
	}()
	stop, readerDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(readerDone)
		for {
			select {
			case v := <-tm.C():
				if now := c.Now(); v.After(now) {
					t.Errorf("received %v from the future (now %v)", v, now)
				}
			case <-stop:
				return
			}
		}
	}()
	writers.Wait()
	close(stop)
	<-readerDone
	tm.Stop()
	f.Stop()
	// A Reset to d <= 0 runs f at once on a goroutine of its own (kick); as
	// with time.AfterFunc, Stop does not wait for an f already running.
	// Advances are serialized, so this one waits for such a run to end.
	c.Advance(0)
	before := calls.Load()
	c.Advance(time.Hour)
	select {
	case v := <-tm.C():
		t.Fatalf("received %v after Stop", v)
	default:
	}
	if calls.Load() != before {
		t.Fatal("a stopped AfterFunc ran")
	}
	if c.Waiters() != 0 {
		t.Fatalf("Waiters = %d after Stop, want 0", c.Waiters())
	}
}

// TestConcurrentAdvancers: two goroutines advance at once; advances are
// serialized, so the callbacks still run one at a time, each at its own time,
// and the whole trace is in time order.
func TestConcurrentAdvancers(t *testing.T) {
	c := New(t0)
	const n = 2000
	var mu sync.Mutex
	var seen []time.Duration
	r := rand.New(rand.NewPCG(5, 6))
	for range n {
		d := time.Duration(r.IntN(1000)) * time.Microsecond
		c.AfterFunc(d, func() {
			now := c.Since(t0)
			if now != d {
				t.Errorf("callback for t0+%v ran at t0+%v", d, now)
			}
			mu.Lock()
			seen = append(seen, now)
			mu.Unlock()
		})
	}
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				c.Advance(time.Duration(g+1) * 7 * time.Microsecond)
			}
		}()
	}
	wg.Wait()
	c.Advance(time.Second)
	if len(seen) != n {
		t.Fatalf("%d callbacks ran, want %d", len(seen), n)
	}
	for i := 1; i < n; i++ {
		if seen[i] < seen[i-1] {
			t.Fatalf("callback %d at t0+%v after one at t0+%v", i, seen[i], seen[i-1])
		}
	}
}

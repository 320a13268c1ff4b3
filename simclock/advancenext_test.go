package simclock

import (
	"testing"
	"time"
)

func TestAdvanceNextReportsWhatFired(t *testing.T) {
	c := New(t0)
	if d, n := c.AdvanceNext(); d != 0 || n != 0 {
		t.Fatalf("AdvanceNext with nothing pending = %v, %d; want 0, 0", d, n)
	}
	l := &log{c: c}
	c.AfterFunc(2*time.Second, l.fn("a"))
	c.AfterFunc(2*time.Second, func() {
		l.fn("b")()
		c.AfterFunc(0, l.fn("c")) // same instant: part of this step
	})
	tm := c.NewTimer(5 * time.Second)
	c.Advance(time.Second)
	if d, n := c.AdvanceNext(); d != time.Second || n != 3 {
		t.Fatalf("AdvanceNext = %v, %d; want 1s, 3 (a, b and c at t0+2s)", d, n)
	}
	if want := "a@2s b@2s c@2s"; l.String() != want {
		t.Fatalf("fires %q, want %q", l, want)
	}
	if d, n := c.AdvanceNext(); d != 3*time.Second || n != 1 {
		t.Fatalf("AdvanceNext = %v, %d; want 3s, 1 (the timer)", d, n)
	}
	if v := waiting(t, tm.C()); v.Sub(t0) != 5*time.Second {
		t.Fatalf("timer delivered t0+%v, want t0+5s", v.Sub(t0))
	}
	if d, n := c.AdvanceNext(); d != 0 || n != 0 || c.Since(t0) != 5*time.Second {
		t.Fatalf("AdvanceNext = %v, %d at t0+%v; want 0, 0 at t0+5s", d, n, c.Since(t0))
	}
}

// As with quartz's AdvanceNext, the distance is known when the call returns,
// with Now() at the target, while the callbacks there may still be running;
// the count of timers fired comes with Done.
func TestAsyncAdvanceDistanceKnownAtReturn(t *testing.T) {
	ctx := bound(t)
	c := New(t0)
	for name, start := range map[string]func() *Advancing{
		"AdvanceNextAsync": c.AdvanceNextAsync,
		"AdvanceAsync":     func() *Advancing { return c.AdvanceAsync(90 * time.Second) },
	} {
		from := c.Now()
		release := make(chan struct{})
		c.AfterFunc(90*time.Second, func() { <-release })
		adv := start()
		if d, n := adv.Result(); d != 90*time.Second || n != 0 || c.Since(from) != 90*time.Second {
			t.Fatalf("%s: Result() = %v, %d at its return, Now() = from+%v; want 1m30s, 0, from+1m30s",
				name, d, n, c.Since(from))
		}
		close(release)
		if err := adv.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		if d, n := adv.Result(); d != 90*time.Second || n != 1 {
			t.Fatalf("%s: Result() = %v, %d when done; want 1m30s, 1", name, d, n)
		}
	}
	// With nothing pending, AdvanceNextAsync moves nothing.
	if d, n := c.AdvanceNextAsync().Result(); d != 0 || n != 0 {
		t.Fatalf("AdvanceNextAsync with nothing pending: Result() = %v, %d", d, n)
	}
}

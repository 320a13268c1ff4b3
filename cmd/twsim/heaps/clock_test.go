package heaps_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/cmd/twsim/heaps"
	"github.com/gotimingwheel/timingwheel/simclock"
)

// stopResetter is the part of a timer the script uses.
type stopResetter interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// driven is the part of a clock the script uses, over simclock and the heap
// clock alike.
type driven struct {
	afterFunc func(d time.Duration, f func()) stopResetter
	advance   func(d time.Duration)
	advanceTo func(t time.Time)
	step      func() bool
	now       func() time.Time
}

var start = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

func simDriven() driven {
	c := simclock.New(start)
	return driven{
		afterFunc: func(d time.Duration, f func()) stopResetter { return c.AfterFunc(d, f) },
		advance:   c.Advance, advanceTo: c.AdvanceTo, step: c.Step, now: c.Now,
	}
}

func heapDriven() driven {
	c := heaps.NewClock(start)
	return driven{
		afterFunc: func(d time.Duration, f func()) stopResetter { return c.AfterFunc(d, f) },
		advance:   c.Advance, advanceTo: c.AdvanceTo, step: c.Step, now: c.Now,
	}
}

// script runs a fixed random sequence of AfterFunc, Stop, Reset, Advance,
// AdvanceTo and Step on c, with delays from -2 to 24 ns so that many timers
// share an instant, and returns the log: every callback with the clock's
// reading inside it, every return value, and Now() after each drive. Some
// callbacks schedule, stop or reset timers (some due at once, in the
// advance in progress), and some panic.
func script(c driven, seed uint64, ops int) []string {
	r := rand.New(rand.NewPCG(seed, 15))
	var log []string
	var timers []stopResetter
	logf := func(format string, args ...any) { log = append(log, fmt.Sprintf(format, args...)) }
	var schedule func(d time.Duration) stopResetter
	callback := func(id int) func() {
		return func() {
			logf("fire %d at %v", id, c.now().Sub(start))
			// The callback's action depends on its id only, not on the
			// order of fires, so that a wrong order shows as a diff.
			switch id % 7 {
			case 0:
				if len(timers) < 400 {
					schedule(time.Duration(id % 3)) // 0: due now, in this advance
				}
			case 1:
				logf("  stop %d: %v", id/2, timers[id/2].Stop())
			case 2:
				logf("  reset %d: %v", id/3, timers[id/3].Reset(time.Duration(id%4)-1))
			case 3:
				if id%3 == 0 {
					panic(fmt.Sprintf("callback %d", id))
				}
			}
		}
	}
	schedule = func(d time.Duration) stopResetter {
		id := len(timers)
		t := c.afterFunc(d, callback(id))
		timers = append(timers, t)
		logf("  schedule %d after %v", id, d)
		return t
	}
	drive := func(name string, f func()) {
		defer func() {
			if p := recover(); p != nil {
				logf("%s panicked: %v", name, p)
			}
			logf("now %v", c.now().Sub(start))
		}()
		f()
	}
	delay := func() time.Duration { return time.Duration(r.IntN(27) - 2) }
	// Timers scheduled or reset by the script itself are due later: simclock
	// runs an AfterFunc due now made outside a callback at once, on a
	// goroutine of its own, which the heap clock does not model (the clock
	// workloads make none). Callbacks still make timers due now.
	later := func() time.Duration { return time.Duration(1 + r.IntN(24)) }
	for range ops {
		switch k := r.IntN(20); {
		case k < 7 || len(timers) == 0:
			schedule(later())
		case k < 9:
			i := r.IntN(len(timers))
			logf("stop %d: %v", i, timers[i].Stop())
		case k < 11:
			i, d := r.IntN(len(timers)), later()
			logf("reset %d after %v: %v", i, d, timers[i].Reset(d))
		case k < 14:
			d := delay() / 2
			logf("advance %v", d)
			drive("advance", func() { c.advance(d) })
		case k < 16:
			t := c.now().Add(delay() / 2)
			logf("advance to %v", t.Sub(start))
			drive("advance to", func() { c.advanceTo(t) })
		default:
			drive("step", func() { logf("step: %v", c.step()) })
		}
	}
	for {
		more := true // a panicking callback leaves timers pending
		drive("step", func() { more = c.step() })
		if !more {
			break
		}
	}
	return log
}

// The heap clock fires the same timers in the same order as simclock, with
// the same readings and return values, on fixed random scripts.
func TestClockMatchesSimclock(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		want := script(simDriven(), seed, 400)
		got := script(heapDriven(), seed, 400)
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("seed %d, log line %d: heap clock %q, simclock %q\ncontext (simclock): %q",
					seed, i, got[i], want[i], want[max(0, i-8):i+1])
			}
		}
		if len(got) != len(want) {
			t.Fatalf("seed %d: heap clock logged %d lines, simclock %d", seed, len(got), len(want))
		}
	}
}

// The script exercises what it is meant to: fires, panics, and Stop and
// Reset with both results (else the comparison above would say little).
func TestClockScriptCoverage(t *testing.T) {
	keys := []string{"fire ", "panicked", "stop", "reset", ": true", ": false", "schedule"}
	counts := map[string]int{}
	for seed := uint64(1); seed <= 20; seed++ {
		for _, l := range script(heapDriven(), seed, 400) {
			for _, k := range keys {
				if strings.Contains(l, k) {
					counts[k]++
				}
			}
		}
	}
	for _, k := range keys {
		if counts[k] < 20 {
			t.Errorf("the scripts logged %q only %d times", k, counts[k])
		}
	}
}

// Advancing past the reach panics with a message and leaves the clock as it
// was.
func TestClockReach(t *testing.T) {
	c := heaps.NewClock(start)
	c.Advance(time.Second)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Advance past the reach did not panic")
			}
		}()
		c.Advance(1<<63 - 1)
	}()
	if got := c.Now(); !got.Equal(start.Add(time.Second)) {
		t.Fatalf("Now() = %v after the panic, want %v", got, start.Add(time.Second))
	}
	c.AfterFunc(-time.Second, func() {})
	if c.Len() != 1 || !c.Step() || c.Len() != 0 || c.Step() {
		t.Fatal("a timer with d < 0 is not due at Now()")
	}
}

package timingwheel_test

import (
	"fmt"
	"slices"
	"time"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// event is what a simulation alarm carries.
type event struct {
	kind     string // "arrive" or "leave"
	customer int
}

// bank simulates one teller serving customers in arrival order. Each arrival
// schedules the next one; each start of service schedules a departure.
type bank struct {
	w        *timingwheel.Wheel[event]
	arrivals []time.Duration // since opening, one per customer
	service  time.Duration
	open     time.Time
	queue    []int // waiting customers
	busy     bool
	trace    []string
}

func newBank(arrivals []time.Duration, service time.Duration) *bank {
	open := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)
	// Microsecond intervals; events are milliseconds apart.
	w, err := timingwheel.NewWithConfig[event](config.MicrosecondPrecision(), open)
	if err != nil {
		panic(err)
	}
	b := &bank{w: w, arrivals: arrivals, service: service, open: open}
	b.schedule(open.Add(arrivals[0]), event{"arrive", 0})
	return b
}

func (b *bank) schedule(at time.Time, e event) {
	if _, err := b.w.Add(at, e); err != nil {
		panic(err)
	}
}

// handle runs one event. Its time is the alarm's time, whichever loop drives
// the wheel.
func (b *bank) handle(f timingwheel.Fired[event]) {
	e, now := f.Value, f.At
	switch e.kind {
	case "arrive":
		if next := e.customer + 1; next < len(b.arrivals) {
			b.schedule(b.open.Add(b.arrivals[next]), event{"arrive", next})
		}
		if b.busy {
			b.queue = append(b.queue, e.customer)
			b.log(now, "customer %d arrives and waits (%d in line)", e.customer, len(b.queue))
			return
		}
		b.log(now, "customer %d arrives and is served", e.customer)
		b.serve(now, e.customer)
	case "leave":
		b.log(now, "customer %d leaves", e.customer)
		b.busy = false
		if len(b.queue) > 0 {
			next := b.queue[0]
			b.queue = b.queue[1:]
			b.serve(now, next)
		}
	}
}

func (b *bank) serve(now time.Time, c int) {
	b.busy = true
	b.schedule(now.Add(b.service), event{"leave", c})
}

func (b *bank) log(now time.Time, format string, args ...any) {
	b.trace = append(b.trace, fmt.Sprintf("%-5v", now.Sub(b.open))+fmt.Sprintf(format, args...))
}

// A discrete-event simulation, driven two ways. Step moves the clock to the
// next event's time and fires the events of that instant, so Now() is always
// the current event's time; the loop reads that time first to stop at the
// end of the run. The classic loop, NextAlarmFiresAt then AdvanceClock,
// jumps a whole interval at a time and fires the same events in the same
// order.
func Example_discreteEventSimulation() {
	arrivals := []time.Duration{0, 1 * time.Millisecond, 2 * time.Millisecond, 8 * time.Millisecond,
		9 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}
	const service = 3 * time.Millisecond

	b := newBank(arrivals, service)
	end := b.open.Add(30 * time.Millisecond) // closing time: customer 6 never comes in
	for {
		next, ok := b.w.Next() // the exact time of the next event
		if !ok || next.After(end) {
			break
		}
		b.w.Step(b.handle)
	}
	for _, line := range b.trace {
		fmt.Println(line)
	}
	fmt.Println("last event at", b.w.Now().Sub(b.open), "with", b.w.Len(), "event left")

	b2 := newBank(arrivals, service)
	for {
		next, ok := b2.w.NextAlarmFiresAt()
		if !ok || next.After(end) {
			break
		}
		if err := b2.w.AdvanceClock(next, b2.handle); err != nil {
			panic(err)
		}
	}
	fmt.Println("same trace with NextAlarmFiresAt and AdvanceClock:", slices.Equal(b.trace, b2.trace))
	// Output:
	// 0s   customer 0 arrives and is served
	// 1ms  customer 1 arrives and waits (1 in line)
	// 2ms  customer 2 arrives and waits (2 in line)
	// 3ms  customer 0 leaves
	// 6ms  customer 1 leaves
	// 8ms  customer 3 arrives and waits (1 in line)
	// 9ms  customer 2 leaves
	// 9ms  customer 4 arrives and waits (1 in line)
	// 12ms customer 3 leaves
	// 15ms customer 4 leaves
	// 20ms customer 5 arrives and is served
	// 23ms customer 5 leaves
	// last event at 23ms with 1 event left
	// same trace with NextAlarmFiresAt and AdvanceClock: true
}

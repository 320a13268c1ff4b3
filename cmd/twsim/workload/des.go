package workload

import (
	"fmt"
	"time"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// Sim is what the simulation workloads (MM1, MM10, RPC) drive: a list of
// pending events with a clock, each event a code of the model's choosing.
// Every engine runs the events in time order and, at equal times, in the
// order they were scheduled, each at its exact time in ns, whatever its
// precision; so every engine runs the very same simulation. The engines are
// StepSim (the wheel), ClockSim (a simulated clock such as simclock's) and,
// in twsim, cmd/twsim/heaps' EventHeap, which has Sim's methods. An engine
// may also have a method Check() error, which checks its invariants; the
// workloads call it when asked to check.
type Sim[H any] interface {
	// Schedule schedules event code to run d ns (d >= 1) after the time of
	// the event running (0 before the first) and returns its handle.
	Schedule(d int64, code int32) H
	// Cancel cancels a pending event.
	Cancel(h H)
	// Run runs, in order, every event due at or before end (ns), including
	// those the events it runs schedule.
	Run(end int64)
	// Len is the number of pending events.
	Len() int
}

// checkSim runs sim's Check method, if it has one.
func checkSim[H any](sim Sim[H]) error {
	if c, ok := sim.(interface{ Check() error }); ok {
		return c.Check()
	}
	return nil
}

// NewSim makes an engine for a model whose event codes are 0..codes-1, with
// the given precision (an engine without one ignores it); the engine calls
// run with each event's time (ns) and code.
type NewSim[H any] func(precision time.Duration, codes int, run func(now int64, code int32)) Sim[H]

// StepSim is the wheel's engine: a timingwheel.Wheel[int32] holding the
// codes, driven by the loop of the timingwheel package doc (Simulation):
// Next gives the next event's exact time, Step runs
// the events of that time, with Now() at it. An event schedules with
// Add(Now().Add(d)) and cancels with Remove.
func StepSim(precision time.Duration, codes int, run func(int64, int32)) Sim[alarm.Alarm] {
	w, err := timingwheel.New[int32](time.Unix(0, 0), precision)
	if err != nil {
		panic(err)
	}
	s := &stepSim{w: w}
	s.fired = func(f timingwheel.Fired[int32]) { run(f.At.UnixNano(), f.Value) }
	return s
}

type stepSim struct {
	w     *timingwheel.Wheel[int32]
	fired func(timingwheel.Fired[int32])
}

func (s *stepSim) Schedule(d int64, code int32) alarm.Alarm {
	a, err := s.w.Add(s.w.Now().Add(time.Duration(d)), code)
	if err != nil {
		panic(err)
	}
	return a
}

func (s *stepSim) Cancel(a alarm.Alarm) {
	if err := s.w.Remove(a); err != nil {
		panic(err)
	}
}

func (s *stepSim) Run(end int64) {
	e := time.Unix(0, end)
	for {
		t, ok := s.w.Next()
		if !ok || t.After(e) {
			return
		}
		s.w.Step(s.fired)
	}
}

func (s *stepSim) Len() int     { return s.w.Len() }
func (s *stepSim) Check() error { return s.w.Invariant() }

// SimClock is the part of a simulated clock that ClockSim uses:
// *simclock.Clock has it, with T = simclock.Timer.
type SimClock[T interface{ Stop() bool }] interface {
	AfterFunc(d time.Duration, f func()) T
	Now() time.Time
	Next() (time.Time, bool)
	Step() bool
	Len() int
}

// ClockSim is a simulated clock's engine, c reading the Unix epoch: each
// event is an AfterFunc callback (one made per code, here), which reads its
// time with Now(); Stop cancels. The loop reads the next event's time with
// Next and runs that instant's callbacks with Step.
func ClockSim[T interface{ Stop() bool }](c SimClock[T], codes int, run func(int64, int32)) Sim[T] {
	s := &clockSim[T]{c: c, fs: make([]func(), codes)}
	for i := range s.fs {
		code := int32(i)
		s.fs[i] = func() { run(c.Now().UnixNano(), code) }
	}
	return s
}

type clockSim[T interface{ Stop() bool }] struct {
	c  SimClock[T]
	fs []func() // the callback of each code
}

func (s *clockSim[T]) Schedule(d int64, code int32) T {
	return s.c.AfterFunc(time.Duration(d), s.fs[code])
}

func (s *clockSim[T]) Cancel(t T) {
	if !t.Stop() {
		panic("clock sim: Stop found the timer already fired or stopped")
	}
}

func (s *clockSim[T]) Run(end int64) {
	e := time.Unix(0, end)
	for {
		t, ok := s.c.Next()
		if !ok || t.After(e) {
			return
		}
		s.c.Step()
	}
}

func (s *clockSim[T]) Len() int { return s.c.Len() }

// trace is what every simulation workload keeps of the events it runs: the
// count and the order checksum (FNV-1a, two 64-bit words per event: its
// time in ns, then its code), and, with check set, each pending event's
// due time and scheduling number, so that every event is seen to run at its
// own time and after every event due before it.
type trace struct {
	name   string // the row's name, for messages
	now    int64  // the time of the event running
	events int
	cs     uint64
	check  bool
	due    []int64  // by code: the pending event's time, -1 when none
	seqOf  []uint64 // by code: its scheduling number
	seq    uint64
	lastAt int64
	lastSq uint64
	err    error
}

func newTrace(codes int, check bool) *trace {
	t := &trace{cs: OrderHashStart, check: check, lastAt: -1}
	if check {
		t.due, t.seqOf = make([]int64, codes), make([]uint64, codes)
		for i := range t.due {
			t.due[i] = -1
		}
	}
	return t
}

func mix(h, w uint64) uint64 { return (h ^ w) * orderHashPrime }

// begin records an event about to run.
func (t *trace) begin(now int64, code int32) {
	t.now = now
	t.events++
	t.cs = mix(mix(t.cs, uint64(now)), uint64(code))
	if !t.check || t.err != nil {
		return
	}
	due, sq := t.due[code], t.seqOf[code]
	switch {
	case due < 0:
		t.err = fmt.Errorf("event %d ran at %d ns, but none was pending", code, now)
	case now != due:
		t.err = fmt.Errorf("event %d due at %d ns ran at %d ns", code, due, now)
	case now < t.lastAt || now == t.lastAt && sq < t.lastSq:
		t.err = fmt.Errorf("event %d (due at %d ns, scheduled #%d) ran after one due at %d ns, scheduled #%d",
			code, now, sq, t.lastAt, t.lastSq)
	}
	t.due[code] = -1
	t.lastAt, t.lastSq = now, sq
}

// scheduled records that event code was scheduled d ns from now.
func (t *trace) scheduled(d int64, code int32) {
	if !t.check {
		return
	}
	if t.due[code] >= 0 && t.err == nil {
		t.err = fmt.Errorf("event %d scheduled at %d ns while pending at %d ns", code, t.now+d, t.due[code])
	}
	t.seq++
	t.due[code], t.seqOf[code] = t.now+d, t.seq
}

// cancelled records that event code was cancelled.
func (t *trace) cancelled(code int32) {
	if t.check {
		t.due[code] = -1
	}
}

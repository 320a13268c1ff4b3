package workload

import (
	"time"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// Timers is what a workload drives: the wheel, or a heap baseline with the
// wheel's semantics (precision 2^b ns, interval number t >> b).
type Timers[H any] interface {
	// Add adds an alarm at time at (ns) and returns its handle.
	Add(at int64) H
	// Remove removes a live alarm.
	Remove(h H)
	// NextAlarmFiresAt is the start of the interval after the earliest alarm's.
	NextAlarmFiresAt() (int64, bool)
	// AdvanceClock fires, in order, every alarm with at < interval start of
	// to, calling fired with each one's time.
	AdvanceClock(to int64, fired func(at int64))
	// Len is the number of alarms.
	Len() int
	// Check verifies the implementation's invariants (nil if it has none).
	Check() error
}

// Wheel adapts timingwheel.Wheel[int64] to Timers: times go through
// time.Time, and the fired time is the one the handler receives (Fired.At,
// what the original's Alarm.at reads), as docs/workloads.md asks.
type Wheel struct {
	W     *timingwheel.Wheel[int64]
	fired func(int64)
	h     func(timingwheel.Fired[int64])
}

// NewWheel returns a wheel with precision 2^b ns and the default level bits
// (opts may add others, such as config.WithCapacity), its clock at the
// epoch.
func NewWheel(b uint, opts ...config.Option) *Wheel {
	cfg, err := config.New(config.AlarmPrecision(b), opts...)
	if err != nil {
		panic(err)
	}
	w, err := timingwheel.NewWithConfig[int64](cfg, time.Unix(0, 0))
	if err != nil {
		panic(err)
	}
	x := &Wheel{W: w}
	x.h = func(f timingwheel.Fired[int64]) { x.fired(f.At.UnixNano()) }
	return x
}

// Add implements Timers.
func (x *Wheel) Add(at int64) alarm.Alarm {
	a, err := x.W.Add(time.Unix(0, at), at)
	if err != nil {
		panic(err)
	}
	return a
}

// Remove implements Timers.
func (x *Wheel) Remove(a alarm.Alarm) {
	if err := x.W.Remove(a); err != nil {
		panic(err)
	}
}

// NextAlarmFiresAt implements Timers.
func (x *Wheel) NextAlarmFiresAt() (int64, bool) {
	t, ok := x.W.NextAlarmFiresAt()
	return t.UnixNano(), ok
}

// AdvanceClock implements Timers.
func (x *Wheel) AdvanceClock(to int64, fired func(int64)) {
	x.fired = fired
	if err := x.W.AdvanceClock(time.Unix(0, to), x.h); err != nil {
		panic(err)
	}
}

// Len implements Timers.
func (x *Wheel) Len() int { return x.W.Len() }

// Check implements Timers with the wheel's Invariant.
func (x *Wheel) Check() error { return x.W.Invariant() }

package simclock

import (
	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/internal/checked"
	"github.com/gotimingwheel/timingwheel/internal/queue"
	"github.com/gotimingwheel/timingwheel/invariant"
)

// wheel is the clock's timing wheel: the part of timingwheel.Wheel the clock
// uses, on the same queue, with times as ns after the clock's start. The
// clock checks every time it passes (0 <= at, to <= maxOffset, and at after
// the wheel's clock), so the wheel skips the time.Time conversions and the
// checks of timingwheel.Wheel, and its handler gets each fired timer's value
// only. Its clock, now, and the
// queue's MinAllowedKey() = now >> shift move together, as timingwheel.Wheel's
// do.
type wheel struct {
	q     *queue.Queue[*timer] // values are the clock's timers
	shift uint                 // log2 of the precision in ns
	now   int64                // ns after the start
}

func newWheel(cfg config.Config) *wheel {
	shift := uint(cfg.Precision().Log2())
	return &wheel{q: queue.NewTimed[*timer](cfg.QueueLevelBits(), cfg.Capacity(), shift), shift: shift}
}

// add adds an alarm at at >= now with value v (the clock arms only timers
// after its own wheel clock, wnow, and now <= wnow+1), or reports false when
// at is after maxAllowed(), beyond the level bits' reach.
func (w *wheel) add(at int64, v *timer) (alarm.Alarm, bool) {
	a, err := w.q.Add(at, v)
	return a, err == nil
}

// maxAllowed returns the last time, in ns after the start, that add accepts.
func (w *wheel) maxAllowed() int64 {
	k := w.q.MaxAllowedKey()
	if k >= queue.MaxKey>>w.shift {
		return queue.MaxKey
	}
	return k<<w.shift + (1<<w.shift - 1)
}

// remove removes a pending alarm.
func (w *wheel) remove(a alarm.Alarm) {
	if err := w.q.Remove(a); err != nil {
		panic(err) // unreachable: the clock removes only its pending timers' alarms
	}
}

// advanceLimit is timingwheel.Wheel.AdvanceClockLimit (the queue's
// Advance): it fires the alarms of the intervals before to's, in order,
// passing each one's timer to take, and stops once it has fired at least
// limit of them, at the end of an interval. It reports whether it reached
// to. take must call nothing of the wheel.
func (w *wheel) advanceLimit(to int64, limit int, take func(*timer)) bool {
	if limit < 1 {
		panic("simclock: a chunk of fewer than one alarm") // the queue would take 0 for no limit
	}
	_, done := w.q.Advance(&w.now, to, limit, func(e queue.Element[*timer]) { take(e.Value) })
	w.check()
	return done
}

// firePast is timingwheel.Wheel.FirePastAlarms (the queue's
// RemoveAtMinKey at now): it fires the alarms of the current interval with
// times at or before now, passing each one's timer to take, which must call
// nothing of the wheel.
func (w *wheel) firePast(take func(*timer)) {
	w.q.RemoveAtMinKey(w.now, func(e queue.Element[*timer]) { take(e.Value) })
	w.check()
}

// check runs the invariants in checked mode (-tags twcheck).
func (w *wheel) check() {
	if checked.On {
		if err := w.checkCall(); err != nil {
			checked.Fail("simclock.wheel", nil, err)
		}
	}
}

// invariant checks the wheel and its queue, in this order, and returns nil or
// an *invariant.Violation naming the first invariant broken
// (docs/invariants.md):
//
//	SW1  the queue is keyed by time >> shift, and its MinAllowedKey is
//	     now >> shift (timingwheel's TW3)
//	PQ*  the queue's invariants, and AP* its pool's
//
// That 0 <= now <= M follows: PQ9 keeps MinAllowedKey in [0, M >> shift].
// Cost: O(slots + alarms).
func (w *wheel) invariant() error {
	if err := w.checkSW1(); err != nil {
		return err
	}
	return w.q.Invariant()
}

// checkSW1: q.Shift() = shift and q.MinAllowedKey() = now >> shift.
func (w *wheel) checkSW1() error {
	if w.q.Shift() != w.shift || w.q.MinAllowedKey() != w.now>>w.shift {
		return invariant.Errorf("SW1", "queue shift %d (want %d), MinAllowedKey %d (want now >> shift = %d >> %d)",
			w.q.Shift(), w.shift, w.q.MinAllowedKey(), w.now, w.shift)
	}
	return nil
}

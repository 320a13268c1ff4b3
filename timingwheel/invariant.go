package timingwheel

import (
	"github.com/gotimingwheel/timingwheel/invariant"
)

// Invariant checks the wheel and everything under it, in this order, and
// returns nil or an *invariant.Violation naming the first invariant broken
// (docs/invariants.md states each and names the function that checks it;
// checkTW1 checks TW1):
//
//	CF*  the config is valid
//	TW1  0 <= start <= now <= MaxTime
//	TW2  the shift is the precision's A, and MaxIntervalNum = MaxTime >> A
//	TW3  the queue is keyed by time >> A, and its MinAllowedKey = NowIntervalNum
//	PQ*  the queue's invariants, and AP* its pool's
//
// Bounded lateness (every alarm not left overdue by a panicking handler has
// IntervalStart(at) >= IntervalStart(now)) is not checked apart: it follows
// from TW3, PQ3, PQ9 and PQ10 (docs/invariants.md, TW4), so a separate check
// could never be the first to fail.
//
// An alarm's interval number is derived from its time (at >> A), never stored
// apart from it, so "an alarm's interval is that of its time" holds by
// construction and is not checked at run time. Cost: O(slots + alarms).
//
// Checked mode: built with -tags twcheck, every mutating call checks what it
// touched (the slots and records it changed, the counters, the cached
// minimum, the clock) and panics naming the call, its arguments and the
// invariant at the first violation; Invariant itself runs once per as many
// calls as the wheel has slots and records, so checked mode costs a few
// times an unchecked call whatever the wheel holds. With TWCHECK=full in the
// environment, Invariant runs after every call instead: thorough, and
// O(slots + alarms) per call, for small tests.
func (w *Wheel[T]) Invariant() error {
	if err := w.cfg.Invariant(); err != nil {
		return err
	}
	if err := w.checkTW1(); err != nil {
		return err
	}
	if err := w.checkTW2(); err != nil {
		return err
	}
	if err := w.checkTW3(); err != nil {
		return err
	}
	return w.q.Invariant()
}

// checkTW1: the clock is in range and never before the start:
// 0 <= start <= now <= MaxTime.
func (w *Wheel[T]) checkTW1() error {
	if w.start < 0 || w.start > w.now || w.now > maxTimeNs {
		return invariant.Errorf("TW1", "start %d, now %d, want 0 <= start <= now <= %d", w.start, w.now, maxTimeNs)
	}
	return nil
}

// checkTW2: interval arithmetic is consistent: the shift is the precision's A
// and MaxIntervalNum = MaxTime >> A. (That an interval's start maps back to
// the interval, (n << A) >> A = n, follows for every n <= MaxIntervalNum, so
// it is not checked apart: such a check could not fail.)
func (w *Wheel[T]) checkTW2() error {
	if uint(w.cfg.Precision().Log2()) != w.shift || w.maxIntervalNum != maxTimeNs>>w.shift {
		return invariant.Errorf("TW2", "shift %d for precision 2^%d, MaxIntervalNum %d, want %d",
			w.shift, w.cfg.Precision().Log2(), w.maxIntervalNum, maxTimeNs>>w.shift)
	}
	return nil
}

// checkTW3: the queue is keyed by time >> A and its minimum is the current
// interval: q.Shift() = A and q.MinAllowedKey() = now >> A.
func (w *Wheel[T]) checkTW3() error {
	if w.q.Shift() != w.shift || w.q.MinAllowedKey() != w.now>>w.shift {
		return invariant.Errorf("TW3", "queue shift %d (want %d), MinAllowedKey %d, NowIntervalNum %d",
			w.q.Shift(), w.shift, w.q.MinAllowedKey(), w.now>>w.shift)
	}
	return nil
}

// checkCall is checked mode's check after a mutating call (-tags twcheck):
// what Invariant checks, in the same order, with the queue's part replaced
// by the queue's own check after a call (the local checks of what the call
// touched, or, once per as many calls as the queue has slots and records,
// or after every call with TWCHECK=full, the whole Queue.Invariant). The
// wheel's own invariants (CF*, TW1-TW3) cost O(levels): they run after
// every call.
func (w *Wheel[T]) checkCall() error {
	if err := w.cfg.Invariant(); err != nil {
		return err
	}
	if err := w.checkTW1(); err != nil {
		return err
	}
	if err := w.checkTW2(); err != nil {
		return err
	}
	if err := w.checkTW3(); err != nil {
		return err
	}
	return w.q.CheckCall()
}

package timingwheel

import (
	"github.com/gotimingwheel/timingwheel/invariant"
)

// Invariant checks the wheel's internal consistency and returns nil or an
// *invariant.Violation naming the first invariant broken by its ID, in this
// order: CF* (the config), TW1-TW3 (the clock and the interval arithmetic),
// then PQ* and AP* (the alarms' structure and records). docs/invariants.md
// states each as a formula. A wheel used from one goroutine at a time
// always satisfies them: a Violation is a bug in the library. Tests call
// it; checked mode (-tags twcheck) calls it for you, once per as many
// mutating calls as the wheel has slots and records (after every call with
// TWCHECK=full in the environment), and checks what each call touched in
// between. Cost: O(slots + alarms).
func (w *Wheel[T]) Invariant() error {
	if err := w.checkClock(); err != nil {
		return err
	}
	return w.q.Invariant()
}

// checkClock checks the wheel's own invariants, which cost O(levels): CF*
// (the config), then
//
//	TW1  0 <= start <= now <= MaxTime
//	TW2  the shift is the precision's A and MaxIntervalNum = MaxTime >> A
//	     ((n << A) >> A = n for every n <= MaxIntervalNum follows, so it is
//	     not checked apart: such a check could not fail)
//	TW3  the queue is keyed by time >> A and its minimum is the current
//	     interval: q.Shift() = A and q.MinAllowedKey() = now >> A
func (w *Wheel[T]) checkClock() error {
	if err := w.cfg.Invariant(); err != nil {
		return err
	}
	if w.start < 0 || w.start > w.now || w.now > maxTimeNs {
		return invariant.Errorf("TW1", "start %d, now %d, want 0 <= start <= now <= %d", w.start, w.now, maxTimeNs)
	}
	if uint(w.cfg.Precision().Log2()) != w.shift || w.maxIntervalNum != maxTimeNs>>w.shift {
		return invariant.Errorf("TW2", "shift %d for precision 2^%d, MaxIntervalNum %d, want %d",
			w.shift, w.cfg.Precision().Log2(), w.maxIntervalNum, maxTimeNs>>w.shift)
	}
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
	if err := w.checkClock(); err != nil {
		return err
	}
	return w.q.CheckCall()
}

package timingwheel

import "github.com/gotimingwheel/timingwheel/invariant"

// Invariant checks the wheel's internal consistency and returns nil or an
// *invariant.Violation naming the first invariant broken, in this order: CF*
// (the config), TW1-TW3 (the clock), PQ* and AP* (the alarms' structure and
// records); docs/invariants.md states each. A wheel used from one goroutine
// at a time always satisfies them: a Violation is a bug in the library.
// Checked mode (-tags twcheck) calls it once per as many mutating calls as
// the wheel has slots and records (every call with TWCHECK=full), and
// checks what each call touched in between. Cost: O(slots + alarms).
func (w *Wheel[T]) Invariant() error {
	if err := w.checkClock(); err != nil {
		return err
	}
	return w.q.Invariant()
}

// checkClock checks the wheel's own invariants, CF* and TW1-TW3, in
// O(levels).
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

// checkCall is checked mode's check after a mutating call: checkClock, then
// the queue's CheckCall.
func (w *Wheel[T]) checkCall() error {
	if err := w.checkClock(); err != nil {
		return err
	}
	return w.q.CheckCall()
}

package simclock

import (
	"github.com/gotimingwheel/timingwheel/internal/checked"
)

// checkSched is checked mode's schedule of a clock's whole checks. Without
// -tags twcheck it has no fields.
type chkSched = checked.Sched

// earlyWalkMax is the most entries the early heap may have for checked
// mode's check after a call to walk it whole (SC1, and SC2's clause on
// live entries after wnow).
const earlyWalkMax = 32

// checkCall is checked mode's check after a mutating call (-tags twcheck);
// c.mu is held. Once per as many calls as the clock has early entries,
// slots and records (checked.Sched), or after every call with TWCHECK=full,
// it runs the whole invariant(). Otherwise it runs the clock's invariants
// that cost O(1) (SC2's clauses on the wheel's minimum and on tiny mode,
// SC3), SC1 and SC2's clause on live early entries while the early heap
// has at most earlyWalkMax entries, SW1, and the queue's own check after a
// call (queue.Queue.CheckCall: the local checks of what the call touched,
// or the whole queue when due). Each clause evaluates invariant()'s formula.
func (c *Clock) checkCall() error {
	if c.collect == nil {
		return nil // the zero Clock before its first use
	}
	cost := len(c.early) + 1
	if c.w != nil {
		cost += c.w.q.CheckCost()
	}
	if c.chk.Due(cost) {
		return c.invariant()
	}
	if len(c.early) <= earlyWalkMax {
		if err := c.checkSC1(); err != nil {
			return err
		}
		if err := c.checkSC2Live(); err != nil {
			return err
		}
	}
	if _, err := c.checkSC2Wheel(); err != nil {
		return err
	}
	if err := c.checkSC3(); err != nil {
		return err
	}
	if c.w == nil {
		return nil
	}
	return c.w.checkCall()
}

// checkCall is checked mode's check of the wheel after a call: SW1, then
// the queue's own check after a call (queue.Queue.CheckCall).
func (w *wheel) checkCall() error {
	if err := w.checkSW1(); err != nil {
		return err
	}
	return w.q.CheckCall()
}

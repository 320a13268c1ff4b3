package simclock

import (
	"github.com/gotimingwheel/timingwheel/internal/checked"
	"github.com/gotimingwheel/timingwheel/invariant"
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
		for i := 1; i < len(c.early); i++ {
			p := (i - 1) / 2
			if c.early.less(i, p) {
				e, q := c.early[i], c.early[p]
				return invariant.Errorf("SC1", "early entry %d (at %d, seq %d) comes before its parent %d (at %d, seq %d)",
					i, e.at, e.seq, p, q.at, q.seq)
			}
		}
		if i := c.liveAfterWnow(); !c.tiny && i >= 0 {
			return invariant.Errorf("SC2", "live early entry %d at %d, after wnow %d, outside tiny mode", i, c.early[i].at, c.wnow)
		}
	}
	wheelLen := 0
	if c.w != nil {
		wheelLen = c.w.q.Len()
		if lo, _, ok := c.w.q.MinKeyTimes(); ok && lo <= c.wnow {
			return invariant.Errorf("SC2", "the wheel holds a timer at %d, not after wnow %d", lo, c.wnow)
		}
	}
	switch {
	case c.w == nil && !c.tinyOK:
		return invariant.Errorf("SC2", "no wheel on a clock whose wheel would not reach every time")
	case c.tiny && wheelLen > 0:
		return invariant.Errorf("SC2", "tiny mode with %d alarms in the wheel", wheelLen)
	case c.tiny && !c.tinyOK:
		return invariant.Errorf("SC2", "tiny mode on a wheel whose reach is not the whole range")
	case c.tiny && len(c.early) > tinyMax:
		return invariant.Errorf("SC2", "tiny mode with %d early entries, more than tinyMax = %d", len(c.early), tinyMax)
	}
	if c.now > c.wnow {
		return invariant.Errorf("SC3", "now %d is past the wheel's clock wnow %d", c.now, c.wnow)
	}
	if c.w == nil {
		return nil
	}
	switch {
	case c.w.now > c.wnow+1:
		return invariant.Errorf("SC3", "the wheel's clock %d is past wnow+1 = %d", c.w.now, c.wnow+1)
	case !c.tiny && c.w.now < c.wnow:
		return invariant.Errorf("SC3", "the wheel's clock %d lags wnow %d outside tiny mode", c.w.now, c.wnow)
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

package simclock

import (
	"github.com/gotimingwheel/timingwheel/internal/checked"
	"github.com/gotimingwheel/timingwheel/invariant"
)

// invariant checks where the clock keeps its timers, then its wheel, and
// returns nil or an *invariant.Violation naming the first invariant broken
// (docs/invariants.md); c.mu is held:
//
//	SC1  the early heap is a min-heap by (at, seq): no entry comes before
//	     its parent
//	SC2  the wheel's timers are all after wnow; a live early entry after
//	     wnow only in tiny mode; and tiny mode only with an empty wheel, a
//	     wheel that reaches every time, and at most tinyMax early entries
//	     (so the early heap's timers after wnow come before any the wheel
//	     takes later, and the heap stays bounded); no wheel made yet only
//	     where it would reach every time
//	SC3  now <= wnow, and the wheel's clock is wnow or wnow+1, or, in tiny
//	     mode, at most wnow+1 (it may lag while the wheel is empty)
//	SC4  Len's count is the number of pending timers: those in the wheel,
//	     the live entries of the batch and the early heap, and the timers
//	     beyond the reach (nparked)
//	SC5  the batch, from its head, is in (at, seq) order, and every entry
//	     is at or before wnow (the wheel handed it over)
//	SW1, PQ*, AP*  the wheel's (wheel.invariant)
//
// Cost: O(early entries + batch + slots + alarms).
func (c *Clock) invariant() error {
	if c.collect == nil {
		return nil // the zero Clock before its first use
	}
	if err := c.checkSC1(); err != nil {
		return err
	}
	wheelLen, err := c.checkSC2Wheel()
	if err != nil {
		return err
	}
	if err := c.checkSC2Live(); err != nil {
		return err
	}
	if err := c.checkSC5(); err != nil {
		return err
	}
	if err := c.checkSC4(wheelLen); err != nil {
		return err
	}
	if err := c.checkSC3(); err != nil {
		return err
	}
	if c.w == nil {
		return nil
	}
	return c.w.invariant()
}

// checkSC1: no early entry comes before its parent by (at, seq).
func (c *Clock) checkSC1() error {
	for i := 1; i < len(c.early); i++ {
		p := (i - 1) / 2
		if c.early.less(i, p) {
			e, q := c.early[i], c.early[p]
			return invariant.Errorf("SC1", "early entry %d (at %d, seq %d) comes before its parent %d (at %d, seq %d)",
				i, e.at, e.seq, p, q.at, q.seq)
		}
	}
	return nil
}

// checkSC2Wheel checks SC2's clauses on the wheel and on tiny mode, which
// cost O(1), and returns the number of timers in the wheel.
func (c *Clock) checkSC2Wheel() (int, error) {
	wheelLen := 0 // no wheel made yet: nothing in it
	if c.w != nil {
		wheelLen = c.w.q.Len()
		if lo, ok := c.w.q.MinTime(true); ok && lo <= c.wnow {
			return 0, invariant.Errorf("SC2", "the wheel holds a timer at %d, not after wnow %d", lo, c.wnow)
		}
	}
	switch {
	case c.w == nil && !c.tinyOK:
		return 0, invariant.Errorf("SC2", "no wheel on a clock whose wheel would not reach every time")
	case c.tiny && wheelLen > 0:
		return 0, invariant.Errorf("SC2", "tiny mode with %d alarms in the wheel", wheelLen)
	case c.tiny && !c.tinyOK:
		return 0, invariant.Errorf("SC2", "tiny mode on a wheel whose reach is not the whole range")
	case c.tiny && len(c.early) > tinyMax:
		return 0, invariant.Errorf("SC2", "tiny mode with %d early entries, more than tinyMax = %d", len(c.early), tinyMax)
	}
	return wheelLen, nil
}

// checkSC2Live checks SC2's clause on the early heap: a live entry after
// wnow only in tiny mode.
func (c *Clock) checkSC2Live() error {
	if i := c.liveAfterWnow(); !c.tiny && i >= 0 {
		return invariant.Errorf("SC2", "live early entry %d at %d, after wnow %d, outside tiny mode", i, c.early[i].at, c.wnow)
	}
	return nil
}

// checkSC5: from bpos on, no batch entry comes before the one ahead of it
// by (at, seq), and none is after wnow.
func (c *Clock) checkSC5() error {
	for i := c.bpos; i < len(c.batch); i++ {
		e := c.batch[i]
		if e.at > c.wnow {
			return invariant.Errorf("SC5", "batch entry %d at %d, after wnow %d", i, e.at, c.wnow)
		}
		if i > c.bpos && before(e, c.batch[i-1]) {
			p := c.batch[i-1]
			return invariant.Errorf("SC5", "batch entry %d (at %d, seq %d) comes before entry %d (at %d, seq %d) ahead of it",
				i, e.at, e.seq, i-1, p.at, p.seq)
		}
	}
	return nil
}

// checkSC3: now <= wnow, and the wheel's clock is wnow or wnow+1, or, in
// tiny mode, at most wnow+1.
func (c *Clock) checkSC3() error {
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
	return nil
}

// check runs the invariants in checked mode (-tags twcheck); c.mu is held.
func (c *Clock) check(call string) {
	if checked.On {
		if err := c.checkCall(); err != nil {
			checked.Fail("simclock.Clock."+call, nil, err)
		}
	}
}

// liveAfterWnow returns the index of a live early entry after wnow, or -1.
func (c *Clock) liveAfterWnow() int {
	for i, e := range c.early {
		if e.live() && e.at > c.wnow {
			return i
		}
	}
	return -1
}

// checkSC4: live = the wheel's timers + the live batch and early entries +
// nparked, with nparked >= 0.
func (c *Clock) checkSC4(wheelLen int) error {
	n := wheelLen + c.nparked
	for _, e := range c.batch[c.bpos:] {
		if e.t != nil && e.live() {
			n++
		}
	}
	for _, e := range c.early {
		if e.live() {
			n++
		}
	}
	if c.live != n || c.nparked < 0 {
		return invariant.Errorf("SC4", "Len counts %d pending timers; the wheel holds %d, the batch and the early heap %d live entries, %d are beyond the reach",
			c.live, wheelLen, n-wheelLen-c.nparked, c.nparked)
	}
	return nil
}

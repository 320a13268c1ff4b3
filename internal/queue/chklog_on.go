//go:build twcheck

package queue

import "github.com/gotimingwheel/timingwheel/internal/checked"

// chkLog is checked mode's record of what the calls since the last check
// touched (checklocal.go), and the whole check's schedule: a few refs per
// element a call puts, removes or moves.
type chkLog struct {
	sched   checked.Sched
	entries []chkRef // entries written: slot entries (l >= 0) and bucket entries (l = -1)
	slots   []chkRef // slots whose entries or count changed (pos unused)
	buckets uint64   // bit b: bucket b's entries or count changed
	last    chkStamp // the queue's stamp at the last check
}

func (c *chkLog) entry(l, s int, pos uint32) {
	c.entries = append(c.entries, chkRef{int32(l), int32(s), pos})
	c.slot(l, s)
}

func (c *chkLog) slot(l, s int) {
	ref := chkRef{l: int32(l), s: int32(s)}
	if n := len(c.slots); n > 0 && c.slots[n-1] == ref {
		return
	}
	c.slots = append(c.slots, ref)
}

func (c *chkLog) bucketEntry(b, p int) {
	c.entries = append(c.entries, chkRef{-1, int32(b), uint32(p)})
	c.bucket(b)
}

func (c *chkLog) bucket(b int) { c.buckets |= 1 << (b & 63) }

// reset empties the log after a check of the queue at stamp s.
func (c *chkLog) reset(s chkStamp) {
	c.entries, c.slots, c.buckets = c.entries[:0], c.slots[:0], 0
	c.last = s
}

// clean reports whether the queue, at stamp s, changed nothing since the
// last check.
func (c *chkLog) clean(s chkStamp) bool {
	return len(c.entries) == 0 && len(c.slots) == 0 && c.buckets == 0 && s == c.last
}

func (c *chkLog) fullDue(cost int) bool { return c.sched.Due(cost) }

func (c *chkLog) view() (entries, slots []chkRef, buckets uint64) {
	return c.entries, c.slots, c.buckets
}

//go:build !twcheck

package queue

// chkLog is checked mode's log (chklog_on.go); without -tags twcheck it is
// empty and its calls, in `if checked.On` blocks, compile away.
type chkLog struct{}

func (*chkLog) entry(l, s int, pos uint32)                      {}
func (*chkLog) slot(l, s int)                                   {}
func (*chkLog) bucketEntry(b, p int)                            {}
func (*chkLog) bucket(b int)                                    {}
func (*chkLog) reset(chkStamp)                                  {}
func (*chkLog) clean(chkStamp) bool                             { return false }
func (*chkLog) fullDue(cost int) bool                           { return false }
func (*chkLog) view() (entries, slots []chkRef, buckets uint64) { return nil, nil, 0 }

//go:build !twcheck

package queue

// chkLog is checked mode's record of what the calls touched (chklog_on.go).
// Without -tags twcheck it has no fields, so a Queue holds nothing for it,
// and its methods do nothing; every call of them sits in an
// `if checked.On` block, which the compiler deletes.
type chkLog struct{}

func (*chkLog) entry(l, s int, pos uint32)                      {}
func (*chkLog) slot(l, s int)                                   {}
func (*chkLog) bucketEntry(b, p int)                            {}
func (*chkLog) bucket(b int)                                    {}
func (*chkLog) reset(chkStamp)                                  {}
func (*chkLog) clean(chkStamp) bool                             { return false }
func (*chkLog) fullDue(cost int) bool                           { return false }
func (*chkLog) view() (entries, slots []chkRef, buckets uint64) { return nil, nil, 0 }

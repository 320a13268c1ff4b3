//go:build !twcheck

package checked

// On is false: checks are compiled out.
const On = false

// Full reports false: there are no checks.
func Full() bool { return false }

// Sched has no fields and its method reports false: without the tag a
// structure that holds one pays nothing for it.
type Sched struct{}

// Due reports false.
func (*Sched) Due(cost int) bool { return false }

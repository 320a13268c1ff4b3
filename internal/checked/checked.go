// Package checked is the switch for checked mode, the port of the original's
// Debug functor: built with -tags twcheck, every mutating call of a queue or a
// wheel runs Invariant() afterwards and panics with the invariant ID, the call
// and its arguments when one breaks. Without the tag, On is the constant false
// and the checks compile away: zero cost.
package checked

import "fmt"

// Fail panics with a message naming the call, its arguments and the broken
// invariant.
func Fail(call string, args []any, err error) {
	panic(fmt.Sprintf("timingwheel checked mode: %s%v broke an invariant: %v", call, args, err))
}

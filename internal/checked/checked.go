// Package checked is the switch for checked mode, the port of the original's
// Debug functor. Built with -tags twcheck, every mutating call of a queue, a
// wheel or a simclock.Clock checks the structure afterwards and panics with
// the invariant ID, the call and its arguments when one breaks. Without the
// tag, On is the constant false, the checks compile away, and so do the
// types below (Sched has no fields).
//
// What a call checks (docs/invariants.md, "Checked mode"):
//
//   - after every call, the local checks: what the call touched (the slots
//     and buckets it wrote, the entries it put, their neighbours), and
//     every invariant whose check costs O(levels), not O(alarms);
//   - the whole Invariant() once per Sched.Due period: once per as many
//     calls as the structure has slots and records, so that its cost per
//     call stays a constant, a few times an unchecked call at most;
//   - with TWCHECK=full in the environment (read once, at the first
//     check), the whole Invariant() after every call: for small tests,
//     where it is affordable.
package checked

import "fmt"

// Fail panics with a message naming the call, its arguments and the broken
// invariant.
func Fail(call string, args []any, err error) {
	panic(fmt.Sprintf("timingwheel checked mode: %s%v broke an invariant: %v", call, args, err))
}

// EnvVar is the environment variable that selects what checked mode checks:
// unset or empty for the local checks after every call and the whole
// Invariant() on a schedule, "full" for the whole Invariant() after every
// call.
const EnvVar = "TWCHECK"

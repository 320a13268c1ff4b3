//go:build twcheck

package checked

import (
	"fmt"
	"os"
	"sync"
)

// On is true: every mutating call checks the invariants.
const On = true

// Full reports whether TWCHECK=full asks for the whole Invariant() after
// every mutating call. The variable is read once, at the first check, not
// when the program starts: go test then sees the read and does not reuse a
// cached result of a run with another value.
func Full() bool { return full() }

var full = sync.OnceValue(func() bool { return parseFull(os.Getenv(EnvVar)) })

// parseFull parses TWCHECK's value. Anything but "" and "full" is a mistake
// that would leave the user believing in checks that do not run as asked,
// so it stops the program.
func parseFull(v string) bool {
	switch v {
	case "":
		return false
	case "full":
		return true
	}
	panic(fmt.Sprintf("timingwheel checked mode: %s=%q; want %s unset or %s=full", EnvVar, v, EnvVar, EnvVar))
}

// Sched decides when a structure's whole Invariant() runs: it counts the
// mutating calls, and the whole check is due once per cost calls, where cost
// is what the whole check costs in units of a call's local checks (the
// structure's slots and records). So the whole check adds a constant to each
// call, amortized, however large the structure, and runs after nearly every
// call of a tiny one.
type Sched struct {
	calls int // mutating calls since the last whole check
}

// Due counts one mutating call and reports whether the whole check is due
// after it: always when Full is set, else when cost calls have passed since
// the last whole check.
func (s *Sched) Due(cost int) bool {
	s.calls++
	if s.calls >= cost || full() {
		s.calls = 0
		return true
	}
	return false
}

package timingwheel_test

import (
	"testing"

	"github.com/gotimingwheel/timingwheel/proptest"
)

// FuzzWheel decodes a config, a start time and up to 64 calls (adds,
// removes, reschedules, advances of every size, limited advances,
// FirePastAlarms, the stop-at-next-alarm step, Shrink, Clear, with handlers
// that add, remove, reschedule, shrink and panic) from the input, runs them
// on a wheel and on proptest's reference model, and fails at the first
// difference, invariant violation or broken guarantee, printing a trace that
// proptest.ReplayText replays. The seeds in testdata/fuzz/FuzzWheel run
// with go test; go test -fuzz=FuzzWheel explores further.
func FuzzWheel(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { proptest.CheckWheelBytes(t, data) })
}

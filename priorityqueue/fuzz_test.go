package priorityqueue_test

import (
	"testing"

	"github.com/gotimingwheel/timingwheel/proptest"
)

// FuzzQueue decodes level bits, a capacity and up to 64 calls (adds,
// removes, changes, increases with handlers that add, remove, change, shrink
// and panic, MinElt, Shrink, Clear) from the input, runs them on a queue and
// on proptest's reference model, and fails at the first difference or
// invariant violation, printing a trace that proptest.ReplayText replays. The seeds in testdata/fuzz/FuzzQueue run with go test;
// go test -fuzz=FuzzQueue explores further.
func FuzzQueue(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { proptest.CheckQueueBytes(t, data) })
}

package priorityqueue_test

import (
	"testing"

	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/proptest"
)

// TestQueueAgainstModel drives the queue and proptest's reference model (a
// slice ordered by key, then by the sequence of Add and Change) with the same
// random calls over random level bits, and compares every observable and the
// invariant after each call.
func TestQueueAgainstModel(t *testing.T) {
	proptest.CheckQueue(t)
}

// TestQueueAgainstModelTiny spends a run on the smallest geometries, where
// every call crosses levels, with long sequences.
func TestQueueAgainstModelTiny(t *testing.T) {
	var lbs []levelbits.LevelBits
	for _, bits := range [][]int{{1}, {1, 1}, {2, 2}, {3, 1}, {1, 1, 1}} {
		lb, err := levelbits.New(bits...)
		if err != nil {
			t.Fatal(err)
		}
		lbs = append(lbs, lb)
	}
	proptest.CheckQueue(t, proptest.WithLevelBits(lbs...), proptest.WithSteps(100))
}

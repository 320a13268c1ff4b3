package timingwheel_test

import (
	"testing"

	"github.com/gotimingwheel/timingwheel/proptest"
)

// TestWheelAgainstModel drives the wheel and proptest's reference model with
// the same random operations and compares every observable after each step.
func TestWheelAgainstModel(t *testing.T) {
	proptest.CheckWheel(t)
}

package proptest_test

import (
	"testing"

	"github.com/gotimingwheel/timingwheel/proptest"
)

// TestGopterProperties runs the wheel and queue state machines on gopter.
func TestGopterProperties(t *testing.T) {
	proptest.RunGopter(t)
}

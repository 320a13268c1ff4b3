package proptest_test

import (
	"os"

	"github.com/leanovate/gopter"

	"github.com/gotimingwheel/timingwheel/proptest"
)

// The wheel's and the queue's state machines as gopter properties, run by
// gopter's console reporter; in a test, proptest.RunGopter(t) does this and
// fails t on a failure, whose label holds a trace that proptest.ReplayText
// replays.
func ExampleGopterProperties() {
	props := proptest.GopterProperties(proptest.WithGopterRuns(20, 30))
	props.Run(gopter.NewFormatedReporter(false, 80, os.Stdout))
	// Output:
	// + wheel matches the model: OK, passed 20 tests.
	// + queue matches the model: OK, passed 20 tests.
}

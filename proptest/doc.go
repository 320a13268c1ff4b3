// Package proptest makes the guarantees of the timing wheel and its priority
// queue checkable in any test suite: reference models, state machines that
// compare an implementation with them call by call, and replayable traces.
//
// Models: Model[T] has the methods, errors and fire order of
// timingwheel.Wheel[T]; QueueModel[T] those of priorityqueue.Queue[T]. Both
// keep their elements in a plain slice and are meant to be read at a glance.
//
// Checks: CheckWheel and CheckQueue are rapid state machines; after every
// call they compare every observable with the model and run Invariant().
// GopterProperties (and RunGopter) run the same machines on gopter's
// commands package; CheckWheelBytes and CheckQueueBytes decode the calls
// from a fuzz input. Options choose the configs or level bits, the operation
// mix, the number of calls, and the structure under test (WithWheelFactory,
// WithQueueFactory: check a wrapper of your own).
//
// Replay: every failure prints a trace in a small text format (WheelTrace,
// QueueTrace) inside a Go snippet that replays it deterministically;
// WithFailureFile also writes it to a file, which ReplayWheel and ReplayQueue
// run, for example as a regression test under testdata/.
//
// In your own CI:
//
//	func TestWheel(t *testing.T)  { proptest.CheckWheel(t) }
//	func TestQueue(t *testing.T)  { proptest.CheckQueue(t) }
//	func TestGopter(t *testing.T) { proptest.RunGopter(t) }
//	func FuzzWheel(f *testing.F) {
//		f.Fuzz(func(t *testing.T, b []byte) { proptest.CheckWheelBytes(t, b) })
//	}
//
// then go test ./... -rapid.checks=1000 for a longer run, and
// go test -fuzz=FuzzWheel -fuzztime=30s.
package proptest

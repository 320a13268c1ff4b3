// Package proptest makes the guarantees of the timing wheel and its priority
// queue checkable in any test suite. One engine drives both: it draws calls
// from a weighted mix (adds at and around the edges of the allowed range,
// removes and reschedules of live, dead and null handles, advances small and
// large, limited, stop-at-next and FirePastAlarms for the wheel, increases of
// the minimum for the queue, Shrink, Clear, and handlers that add, remove,
// reschedule, shrink, panic or are nil), runs each on the implementation and
// on a plain reference model (its alarms or elements in a slice), and after
// every call compares every observable (what fired and in which order, every
// error by its sentinel, every query about the structure and about each
// handle ever issued, live or dead, All and Stats), checks that nothing
// fires early or twice and runs Invariant(). It records a trace that
// replays the run.
//
// Front-ends: CheckWheel and CheckQueue run the engine on rapid, which
// shrinks a failure to a short trace; GopterProperties and RunGopter run it on
// gopter's commands package (WheelCommands and QueueCommands give the
// commands alone); CheckWheelBytes and CheckQueueBytes decode the calls from
// a fuzz input. Options choose the configs or level bits, the operation mix,
// the number of calls, and the structure under test (WithWheelFactory,
// WithQueueFactory: check a wrapper of your own).
//
// Replay: every failure prints its trace inside a Go snippet that replays it
// deterministically (ReplayText); WithFailureFile also writes it to a file,
// which Replay runs, for example as a regression test under testdata/.
//
// In your own CI:
//
//	func TestWheel(t *testing.T)  { proptest.CheckWheel(t) }
//	func TestQueue(t *testing.T)  { proptest.CheckQueue(t) }
//	func TestGopter(t *testing.T) { proptest.RunGopter(t) }
//	func FuzzWheel(f *testing.F) {
//		f.Fuzz(func(t *testing.T, b []byte) { proptest.CheckWheelBytes(t, b) })
//	}
//	func TestRegressions(t *testing.T) { proptest.Replay(t, "testdata/late-alarm.trace") }
//
// then go test ./... -rapid.checks=1000 for a longer run, and
// go test -fuzz=FuzzWheel -fuzztime=30s.
package proptest

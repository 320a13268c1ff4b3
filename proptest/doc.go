// Package proptest checks a timing wheel, the library's or a wheel of your
// own, against a plain reference model, in any test suite. One engine drives
// every front-end: it draws calls from a weighted mix (adds at and around
// the edges of the allowed range, removes and reschedules of live, dead and
// null handles, advances small and large, limited, stop-at-next and
// FirePastAlarms, Shrink, Clear, and handlers that panic, are nil, or call
// back into the wheel), runs each on the wheel and on the model (its alarms
// in a slice), and after every call compares every observable: what fired
// and in which order, every error by its sentinel, every query about the
// wheel and about each handle ever issued, live or dead. Nothing may fire
// early, twice or never, and Invariant() must hold. The same checks drive
// the priority queue (CheckQueue).
//
// Under rapid, three runs in four draw from the whole mix and one from a
// swarm, each operation but Add kept or left out at random, so that a run
// can pile up a dozen alarms before anything fires or remove among many;
// the choices a failure most often needs (an add near the clock, an
// advance, a plain handler, a live alarm) are those rapid shrinks towards.
//
// Front-ends: CheckWheel and CheckQueue run the engine on rapid, which
// shrinks a failure to a short trace; GopterProperties and RunGopter run it
// on gopter's commands package; CheckWheelBytes and CheckQueueBytes decode
// the calls from a fuzz input; Replay and ReplayText run a trace. Options
// choose the configs, the operation mix, the number of calls and the wheel
// under test.
//
// # In your CI
//
// A complete test file:
//
//	package myapp_test
//
//	import (
//		"testing"
//		"time"
//
//		"github.com/gotimingwheel/timingwheel/config"
//		"github.com/gotimingwheel/timingwheel/proptest"
//		"github.com/gotimingwheel/timingwheel/timingwheel"
//	)
//
//	// The library's wheel and priority queue against reference models.
//	func TestWheel(t *testing.T) { proptest.CheckWheel(t) }
//	func TestQueue(t *testing.T) { proptest.CheckQueue(t) }
//
//	// Your own wheel: return it from this constructor (here the library's).
//	// The check calls the methods it has; see proptest.WithWrapper.
//	func TestMyWheel(t *testing.T) {
//		proptest.CheckWheel(t, proptest.WithWrapper(func(cfg config.Config, start time.Time) (*timingwheel.Wheel[string], error) {
//			return timingwheel.NewWithConfig[string](cfg, start)
//		}))
//	}
//
// go test -rapid.checks=10000 runs more cases; each case is a fresh wheel
// and 30 to 120 calls, so a bug that shows only after hundreds of calls on
// one wheel needs longer cases: -rapid.steps=200, or WithSteps. For a fuzz
// target:
// f.Fuzz(func(t *testing.T, b []byte) { proptest.CheckWheelBytes(t, b) }),
// then go test -fuzz=FuzzWheel.
//
// # Your own wheel
//
// WithWrapper checks a wheel of yours, with any value type: it needs Now,
// Len, Add and AdvanceClock (WheelOf), and calls and compares the other
// methods of *timingwheel.Wheel that WithWrapper's doc lists, those your
// wheel has (go test -v shows which it found). A method of one of those names with another
// signature fails the check, naming both signatures. The check's handlers
// do not call back into the wheel, so a wheel that holds its lock while
// handlers run passes (WithReentrantHandlers turns such calls on, for wheels
// that allow them). A call that does not return within 5 seconds
// (WithCallTimeout), your constructor included, fails the test, naming the
// call, instead of hanging:
//
//	// Locked is a wheel that goroutines share: every call takes the lock,
//	// held while the handlers run. It has four of the methods WithWrapper
//	// knows; the check calls and compares exactly those.
//	type Locked struct {
//		mu sync.Mutex
//		w  *timingwheel.Wheel[string]
//	}
//
//	func NewLocked(cfg config.Config, start time.Time) (*Locked, error) {
//		w, err := timingwheel.NewWithConfig[string](cfg, start)
//		return &Locked{w: w}, err
//	}
//
//	func (l *Locked) Now() time.Time { l.mu.Lock(); defer l.mu.Unlock(); return l.w.Now() }
//	func (l *Locked) Len() int       { l.mu.Lock(); defer l.mu.Unlock(); return l.w.Len() }
//
//	func (l *Locked) Add(at time.Time, v string) (timingwheel.Alarm, error) {
//		l.mu.Lock()
//		defer l.mu.Unlock()
//		return l.w.Add(at, v)
//	}
//
//	func (l *Locked) AdvanceClock(to time.Time, fired func(timingwheel.Fired[string])) error {
//		l.mu.Lock()
//		defer l.mu.Unlock()
//		return l.w.AdvanceClock(to, fired)
//	}
//
//	func TestLocked(t *testing.T) { proptest.CheckWheel(t, proptest.WithWrapper(NewLocked)) }
//
// # Failures and replay
//
// A failure of CheckWheel or CheckQueue is reported once rapid has shrunk
// it: the difference (or the call that did not return), the shortest trace
// in a snippet that replays it deterministically (ReplayText; with your
// wheel, pass the check's options too), and rapid's line that reproduces
// the run (-rapid.seed, -rapid.failfile). WithFailureFile also writes the
// trace to a file; keep it under testdata/ and replay it as a regression
// test with Replay(t, path).
//
// Rapid also keeps each failing run in a file of its own under
// testdata/rapid/<TestName>/ of the package, and on the next go test runs
// the files there first, before any new run, until you delete them: they
// hold rapid's encoding of its random choices, meaningful only to the same
// rapid version and the same test code, not a trace. Ignore them in version
// control (this repository's .gitignore lists testdata/rapid/) and delete
// them once the bug is fixed; commit the trace instead. -rapid.nofailfile
// turns them off.
package proptest

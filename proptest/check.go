package proptest

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/proptest/internal/harness"
)

// Wheel is what WithWheelFactory asks of the wheel under test. Its methods
// are those of *timingwheel.Wheel[int] of the same names and signatures: Now,
// Len, IsEmpty, All, NowIntervalNum, MaxAllowedAlarmTime,
// MaxAllowedAlarmIntervalNum, Add, AddAtIntervalNum, Mem, Remove, Reschedule,
// RescheduleAtIntervalNum, Clear, Shrink, Stats, AlarmAt, AlarmIntervalNum,
// AlarmValue, AdvanceClock, AdvanceClockLimit, FirePastAlarms,
// AdvanceClockStopAtNextAlarm, NextAlarmFiresAt, MinAlarmIntervalNum,
// MinAlarmTimeInMinInterval, MaxAlarmTimeInMinInterval and Invariant. The
// checks call Step too when the wheel has it. To check a wheel of your own,
// WithWrapper is simpler: it takes any value type and only the methods your
// wheel has.
type Wheel = harness.Wheel

// Queue is the queue the checks drive (WithQueueFactory). Its methods are
// those of *priorityqueue.Queue[int] of the same names and signatures: Len,
// IsEmpty, MinAllowedKey, MaxAllowedKey, Add, Remove, Change, Mem, Key,
// Value, MinElt, MinKey, IncreaseMinAllowedKey, Clear, All, Shrink and
// Invariant.
type Queue = harness.Queue

// Option adjusts the checks, the gopter properties, the fuzz entry points
// and the replayers. Each option says what it affects; the others ignore it.
type Option func(*options)

type options struct {
	configs      []config.Config       // wheel: empty means random configs
	levelBits    []levelbits.LevelBits // queue: empty means random level bits
	steps        int                   // calls per run; 0: rapid's -rapid.steps on average
	noPanic      bool                  // no handler panics
	weights      map[string]int        // wheel operation mix over the defaults
	queueWeights map[string]int        // queue operation mix over the defaults
	failFile     string                // where a failing trace is written
	wheelFactory harness.WheelFactory  // nil: timingwheel.NewWithConfig[int]
	queueFactory harness.QueueFactory  // nil: priorityqueue.New[int]
	gopterRuns   int                   // GopterProperties: sequences
	gopterCalls  int                   // GopterProperties: max calls per sequence
	wrapped      bool                  // the wheel under test is a user's (WithWrapper, WithWheelFactory)
	values       any                   // WithValues: a func(int) V
	reentrant    bool                  // handlers call back into a user's wheel
	timeout      time.Duration         // WithCallTimeout; 0: defaultTimeout
	calls        calls                 // the call into the wheel under test that is running
	// halt ends the checks: a call that did not return, or a wheel the
	// checks cannot use (harness.UsageError); every later call returns it.
	halt    error
	methods string  // WithWrapper: the methods compared, for the log
	logged  bool    // methods logged
	work    *worker // runs the calls, if startWorker made one
}

// WithConfigs restricts the wheel's checks to the given configs (default:
// precisions from 2^0 to 2^46 ns; level bits [1], [2], [1 1], [2 1],
// [1 1 1], [3 2], random small ones or the default; overflow levels in a
// quarter of them).
func WithConfigs(cfgs ...config.Config) Option {
	return func(o *options) { o.configs = append(o.configs, cfgs...) }
}

// WithLevelBits restricts the queue's checks to the given level bits
// (default: [1], [1 1], [2 2], [3 1], [1 1 1], [2 1 1], random small ones
// and the default).
func WithLevelBits(lbs ...levelbits.LevelBits) Option {
	return func(o *options) { o.levelBits = append(o.levelBits, lbs...) }
}

// WithSteps makes every CheckWheel and CheckQueue run exactly n calls
// (default: from rapid's -rapid.steps, 30, to four times that, the short
// runs more often; rapid shortens a failing run when it shrinks it) and
// caps GopterProperties' sequences at n calls.
func WithSteps(n int) Option { return func(o *options) { o.steps = n } }

// WithoutPanics turns off handlers that panic.
func WithoutPanics() Option { return func(o *options) { o.noPanic = true } }

// WithOpWeights sets the wheel's operation mix: the relative weight of each
// operation, named as in a trace (Add, AddAtIntervalNum, Remove, Reschedule,
// RescheduleAtIntervalNum, AdvanceClock, AdvanceClockLimit, FirePastAlarms,
// AdvanceClockStopAtNextAlarm, Step, Shrink, Clear). A weight of 0 turns one off;
// names left out keep their default weights; any other name fails the test.
func WithOpWeights(weights map[string]int) Option {
	return func(o *options) { maps.Copy(o.weights, weights) }
}

// WithQueueOpWeights is WithOpWeights for the queue (Add, Remove, Change,
// IncreaseMinAllowedKey, MinElt, Shrink, Clear). The two mixes are separate
// because the structures share some operation names.
func WithQueueOpWeights(weights map[string]int) Option {
	return func(o *options) { maps.Copy(o.queueWeights, weights) }
}

// WithFailureFile makes a failing check write the trace of the failure to
// path (creating its directory), for Replay: the shortest trace rapid
// found, the one the failure prints.
func WithFailureFile(path string) Option { return func(o *options) { o.failFile = path } }

// WithWheelFactory makes the wheel under test with f instead of
// timingwheel.NewWithConfig[int]. It is WithWrapper for a wheel with every
// method of Wheel, and works the same way: handlers do not call back into the
// wheel unless WithReentrantHandlers is given.
func WithWheelFactory(f func(cfg config.Config, start time.Time) (Wheel, error)) Option {
	return WithWrapper(f)
}

// WithQueueFactory makes the queue under test with f instead of
// priorityqueue.New[int].
func WithQueueFactory(f func(lb levelbits.LevelBits, capacity int) Queue) Option {
	return func(o *options) {
		o.queueFactory = func(lb levelbits.LevelBits, capacity int) Queue {
			o.calls.enter(&call{name: "your queue's constructor", args: []any{
				fmt.Sprintf("level bits %v", lb), fmt.Sprintf("capacity %d", capacity)}, constructor: true})
			defer o.calls.leave()
			return f(lb, capacity)
		}
	}
}

// WithGopterRuns sets how many sequences GopterProperties tries (default 100)
// and how many calls each holds at most (default 60, or WithSteps).
func WithGopterRuns(runs, maxCalls int) Option {
	return func(o *options) { o.gopterRuns, o.gopterCalls = runs, maxCalls }
}

func buildOptions(opts []Option) *options {
	o := &options{weights: map[string]int{}, queueWeights: map[string]int{}}
	for i, f := range opts {
		if f == nil {
			panic(fmt.Sprintf("proptest: opts[%d] is nil: pass this package's options (WithWrapper, WithCallTimeout, ...) or none", i))
		}
		f(o)
	}
	return o
}

// maxFuzzCalls caps the calls decoded from one fuzz input, so that each fuzz
// iteration stays fast.
const maxFuzzCalls = 64

// structure is one of the two structures the checks drive, seen by the
// front-ends.
type structure struct {
	draw    func(harness.Source) (harness.Setup, error)
	weights []int
}

func (o *options) structure(wheel bool) (structure, error) {
	if wheel {
		ws, err := harness.WheelKind.Weights(o.weights, "WithOpWeights")
		return structure{func(src harness.Source) (harness.Setup, error) {
			return harness.DrawWheel(src, o.configs, o.wheelFactory)
		}, ws}, err
	}
	ws, err := harness.QueueKind.Weights(o.queueWeights, "WithQueueOpWeights")
	return structure{func(src harness.Source) (harness.Setup, error) {
		return harness.DrawQueue(src, o.levelBits, o.queueFactory)
	}, ws}, err
}

// CheckWheel runs a rapid state machine that drives a timingwheel.Wheel[int]
// and the reference model with the same random calls (the package doc says
// what is drawn and compared) and fails t at the first difference, once
// rapid has shrunk it, printing the difference and a snippet that replays
// the shortest trace (ReplayText). The defaults, 100 runs of 30 to 120
// calls, finish in well under a second; -rapid.checks and -rapid.steps scale
// them.
//
// Options: WithConfigs, WithSteps, WithOpWeights, WithoutPanics,
// WithFailureFile, WithCallTimeout; for a wheel of your own WithWrapper (or
// WithWheelFactory), WithValues and WithReentrantHandlers.
func CheckWheel(t *testing.T, opts ...Option) {
	t.Helper()
	check(t, true, opts)
}

// CheckQueue is CheckWheel for a priorityqueue.Queue[int].
//
// Options: WithLevelBits, WithSteps, WithQueueOpWeights, WithoutPanics,
// WithFailureFile, WithCallTimeout, WithQueueFactory.
func CheckQueue(t *testing.T, opts ...Option) {
	t.Helper()
	check(t, false, opts)
}

func check(t rapid.TB, wheel bool, opts []Option) {
	t.Helper()
	o := buildOptions(opts)
	s, err := o.structure(wheel)
	if err != nil {
		t.Fatal(err)
	}
	defer o.startWorker()()
	avg := rapidSteps()
	var failErr error // of the last run, if it failed: rapid runs the smallest failing one last
	var failH *harness.Harness
	rtb := &rapidTB{TB: t}
	rapid.Check(rtb, func(rt *rapid.T) {
		failErr, failH = nil, nil
		fail := func(err error, h *harness.Harness) {
			o.fatalIfHalted(t, err, h)
			if err != nil {
				failErr, failH = err, h
				rt.Fatalf("proptest: %v", err) // check reports it in full
			}
		}
		src := harness.RapidSource{T: rt}
		setup, err := s.draw(src)
		fail(err, nil)
		h, err := o.start(setup)
		fail(err, h)
		o.logMethods(t)
		weights, n := h.Swarm(src, s.weights), o.steps
		if n <= 0 {
			n = drawSteps(src, avg)
		}
		for range n {
			fail(o.step(h, h.Gen(src, weights, o.noPanic)), h)
		}
	})
	if rtb.failed {
		report := "proptest: rapid failed:" // a panic of the checks themselves: rapid says where
		if failErr != nil {
			report = o.failed(failErr, failH)
		}
		t.Fatalf("%s%s", report, rtb.notes)
	}
}

// rapidSteps is rapid's -rapid.steps (halved by -short, as rapid does).
func rapidSteps() int {
	n := 30
	if f := flag.Lookup("rapid.steps"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if v, ok := g.Get().(int); ok && v > 0 {
				n = v
			}
		}
	}
	if testing.Short() {
		n = max(1, n/2)
	}
	return n
}

// drawSteps draws how many calls a run of CheckWheel makes: avg to 4 avg,
// more of them short (rapid favours small draws). Long enough for a dozen
// alarms to pile up, or for a handler to panic while several are due; a
// failing run stops at its failure, so the length costs nothing when rapid
// shrinks it.
func drawSteps(src harness.Source, avg int) int { return avg + src.Intn("steps", 3*avg) }

// rapidTB is the test rapid reports to. On a failure rapid prints the
// failure's message, how to reproduce it, then runs the failing case again
// and prints every value it drew and the message again; rapidTB keeps only
// how to reproduce it, and check reports the failure once.
type rapidTB struct {
	rapid.TB
	failed bool
	notes  string
}

func (r *rapidTB) Logf(format string, args ...any) {
	if !r.failed { // after: the failing case's draws and message again
		r.TB.Logf(format, args...)
	}
}

func (r *rapidTB) Log(args ...any) {
	if !r.failed {
		r.TB.Log(args...)
	}
}

func (r *rapidTB) Errorf(format string, args ...any) {
	r.failed = true
	msg := fmt.Sprintf(format, args...)
	if !strings.HasPrefix(msg, "[rapid] failed after ") {
		r.notes += "\n" + msg // a panic, a flaky case, too few valid cases: as rapid says it
		return
	}
	for _, line := range strings.Split(msg, "\n") {
		if strings.HasPrefix(line, "To reproduce") {
			r.notes += "\nrapid: " + line
		}
	}
}

func (r *rapidTB) Error(args ...any) { r.Errorf("%s", fmt.Sprint(args...)) }
func (r *rapidTB) Fail()             { r.failed = true }
func (r *rapidTB) FailNow()          { r.failed = true } // check fails the test once it has reported
func (r *rapidTB) Failed() bool      { return r.failed || r.TB.Failed() }

// CheckWheelBytes decodes a config, a start time and up to 64 calls from data
// and runs them as CheckWheel does: the body of a fuzz target (see the
// package doc). Options: those of CheckWheel but WithSteps.
func CheckWheelBytes(t testing.TB, data []byte, opts ...Option) {
	t.Helper()
	checkBytes(t, true, data, opts)
}

// CheckQueueBytes is CheckWheelBytes for the queue: level bits, a capacity
// and up to 64 calls.
func CheckQueueBytes(t testing.TB, data []byte, opts ...Option) {
	t.Helper()
	checkBytes(t, false, data, opts)
}

func checkBytes(t testing.TB, wheel bool, data []byte, opts []Option) *harness.Harness {
	t.Helper()
	o := buildOptions(opts)
	s, err := o.structure(wheel)
	if err != nil {
		t.Fatal(err)
	}
	defer o.startWorker()()
	src := &harness.ByteSource{Data: data}
	setup, err := s.draw(src)
	o.fail(t, err, nil)
	h, err := o.start(setup)
	o.fail(t, err, h)
	for i := 0; i < maxFuzzCalls && !src.Exhausted(); i++ {
		o.fail(t, o.step(h, h.Gen(src, s.weights, o.noPanic)), h)
	}
	return h
}

// fail fails t with the failure report of err, unless err is nil.
func (o *options) fail(t interface{ Fatalf(string, ...any) }, err error, h *harness.Harness) {
	if err != nil {
		t.Fatalf("%s", o.failed(err, h))
	}
}

// failure formats a failure: the difference (or the call that did not
// return), then a snippet that replays the trace.
func (o *options) failure(err error, h *harness.Harness) string {
	var k *harness.Kind
	var what, tr string
	var st *stuckError
	var ue harness.UsageError
	switch {
	case errors.As(err, &st):
		k, what, tr = st.kind, st.msg, st.trace
	case errors.As(err, &ue):
		return ue.Error()
	case h == nil:
		return fmt.Sprintf("proptest: %v", err)
	default:
		k, what, tr = h.Kind(), fmt.Sprintf("the %s differs from the model: %v", h.Kind().Name, err), h.Trace()
	}
	opts := ")"
	switch {
	case k == harness.WheelKind && o.wrapped:
		opts = ", opts...) // opts: this check's options, with your WithWrapper"
	case k == harness.QueueKind && o.queueFactory != nil:
		opts = ", opts...) // opts: this check's options, with your WithQueueFactory"
	}
	lines := strings.Split(strings.TrimRight(tr, "\n"), "\n")
	return fmt.Sprintf("proptest: %s\n\nReplay it with:\n\n"+
		"\tproptest.ReplayText(t, `\n\t\t%s\n\t`%s", what, strings.Join(lines, "\n\t\t"), opts)
}

// failed is failure, with the trace written to the failure file if one is
// set.
func (o *options) failed(err error, h *harness.Harness) string {
	msg := o.failure(err, h)
	var st *stuckError
	switch {
	case errors.As(err, &st):
		msg += o.writeFailure(st.trace)
	case h != nil:
		msg += o.writeFailure(h.Trace())
	}
	return msg
}

// writeFailure writes a failing trace to the failure file, if one is set; it
// returns a note for the failure message.
func (o *options) writeFailure(trace string) string {
	if o.failFile == "" || trace == "" {
		return ""
	}
	err := os.MkdirAll(filepath.Dir(o.failFile), 0o755)
	if err == nil {
		err = os.WriteFile(o.failFile, []byte(trace), 0o644)
	}
	if err != nil {
		return fmt.Sprintf("\n(could not write %s: %v)", o.failFile, err)
	}
	return fmt.Sprintf("\nthe trace is in %s", o.failFile)
}

// Replay reads a trace file (as a failing check prints it, or
// WithFailureFile writes it) and replays it on a new wheel or queue, as its
// header says, and the model, failing t at the first difference. Keep such
// files under testdata/ as regression tests.
//
// Options: WithCallTimeout, and those that make the wheel or queue under
// test: WithWrapper (with WithValues), WithWheelFactory, WithQueueFactory.
// A trace runs as written: its handlers call back into the wheel whether or
// not WithReentrantHandlers is given.
func Replay(t testing.TB, path string, opts ...Option) {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("proptest: %v", err)
	}
	replay(t, path, string(text), opts)
}

// ReplayText replays a trace given as text, as a failing check prints it.
// '#' starts a comment. The first line is the header, then one call per line
// with its arguments (times in ns since the Unix epoch; alarms named by the
// ids stored in them as values):
//
//	wheel precision=0 bits=1,1 capacity=0 overflow=false start=0
//	Add 5 1
//	AdvanceClock 6 handler=1,add,4,0
//
// handler=call,action,offset,target says what the call's handler does at its
// call-th invocation (from 1): add (at Now+offset), remove (alarm target),
// reschedule (target to Now+offset), panic, shrink, or nil (no handler at
// all); a field the action does not use is 0. Ids count up from 1 in the
// order alarms are added, by a call or by a handler (the handler above adds
// alarm 2); an add that fails takes none, and each Add names the id it
// takes. Id 0, and an id not added yet, is the null alarm. A queue trace
// starts with "queue bits=1,1 capacity=0"; its offsets count from
// MinAllowedKey. Header fields left out are 0 or false; a trace's capacity
// is at most 65536.
//
// A malformed trace (an unknown call or field, a number out of range, an
// Add with another id, a field given twice or ignored) fails t with its
// line number; so does a difference, with the line of the call.
func ReplayText(t testing.TB, text string, opts ...Option) {
	t.Helper()
	replay(t, "trace", text, opts)
}

func replay(t testing.TB, name, text string, opts []Option) {
	t.Helper()
	o := buildOptions(opts)
	defer o.startWorker()()
	setup, ops, err := harness.Parse(text, o.wheelFactory, o.queueFactory)
	if err != nil {
		t.Fatalf("proptest: %s: %v", name, err)
	}
	h, err := o.start(setup)
	if err != nil {
		var st *stuckError
		if errors.As(err, &st) {
			t.Fatalf("proptest: %s: %s", name, st.msg)
		}
		t.Fatalf("%s", o.failure(err, nil))
	}
	o.logMethods(t)
	for _, op := range ops {
		if err := o.step(h, op); err != nil {
			var st *stuckError
			if errors.As(err, &st) {
				t.Fatalf("proptest: %s: line %d: %s\nthe trace so far:\n%s", name, op.Line, st.msg, st.trace)
			}
			t.Fatalf("proptest: %s: %v", name, err)
		}
	}
}

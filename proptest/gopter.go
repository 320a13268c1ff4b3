package proptest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/commands"
	"github.com/leanovate/gopter/gen"

	"github.com/gotimingwheel/timingwheel/proptest/internal/harness"
)

// RunGopter runs GopterProperties(opts...) and fails t if a property fails.
// It reports through a reporter that does not wrap lines, so the replay
// snippet in a failure's label can be pasted as it is.
func RunGopter(t *testing.T, opts ...Option) {
	t.Helper()
	var out strings.Builder
	ok := GopterProperties(opts...).Run(gopter.NewFormatedReporter(testing.Verbose(), 1<<20, &out))
	t.Log(out.String())
	if !ok {
		t.Fatal("proptest: a gopter property failed; its label above holds a replay snippet")
	}
}

// GopterProperties returns the state machines of CheckWheel and CheckQueue
// on gopter's commands package: properties "wheel matches the model" and
// "queue matches the model". Gopter draws the calls, runs them on a fresh
// structure and its model, and shrinks a failing sequence by dropping calls;
// the failure's label holds the difference and a snippet that replays it.
// Run them with RunGopter, or with gopter's own runner (whose console
// reporter wraps long lines at 80 columns): GopterProperties().TestingRun(t).
//
// Options: WithGopterRuns (default 100 sequences, growing to 60 calls), and
// those of CheckWheel and CheckQueue but WithFailureFile.
func GopterProperties(opts ...Option) *gopter.Properties {
	o := buildOptions(opts)
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 100
	if o.gopterRuns > 0 {
		params.MinSuccessfulTests = o.gopterRuns
	}
	params.MaxSize = 60
	switch {
	case o.gopterCalls > 0:
		params.MaxSize = o.gopterCalls
	case o.steps > 0:
		params.MaxSize = o.steps
	}
	props := gopter.NewProperties(params)
	props.Property("wheel matches the model", commands.Prop(WheelCommands(opts...)))
	props.Property("queue matches the model", commands.Prop(QueueCommands(opts...)))
	return props
}

// WheelCommands returns CheckWheel's state machine as gopter commands, to
// build properties of your own: the system under test is a wheel paired
// with its model, and every command runs one call on both and compares them.
// It panics when WithOpWeights names an unknown operation.
func WheelCommands(opts ...Option) *commands.ProtoCommands { return gopterCommands(true, opts) }

// QueueCommands returns CheckQueue's state machine as gopter commands.
func QueueCommands(opts ...Option) *commands.ProtoCommands { return gopterCommands(false, opts) }

// gopterState is the model state gopter generates commands from: a harness
// that has run the calls so far. NextState advances it in place, which is
// safe because gopter walks each sequence once from a fresh initial state; a
// state used a second time is rebuilt from its calls.
type gopterState struct {
	h    *harness.Harness
	ops  []harness.Op
	used bool
	err  error // the harness could not be built
}

func (s *gopterState) String() string {
	if s.err != nil {
		return s.err.Error()
	}
	return s.h.Trace()
}

type gopterCmd struct {
	op     harness.Op
	format func(harness.Op) string
	o      *options
}

func (c gopterCmd) String() string { return c.format(c.op) }

func (c gopterCmd) Run(sut commands.SystemUnderTest) commands.Result {
	h := sut.(*harness.Harness)
	if err := c.o.step(h, c.op); err != nil {
		return c.o.failure(err, h)
	}
	return "" // the command's result: "" or the failure's report
}

func (c gopterCmd) NextState(state commands.State) commands.State {
	s := state.(*gopterState)
	if s.err != nil {
		return s
	}
	h := s.h
	if s.used {
		var err error
		if h, err = c.o.start(s.h.Setup()); err != nil {
			return &gopterState{err: err}
		}
		for _, op := range s.ops {
			_ = c.o.step(h, op) // a difference here shows again when the command runs
		}
	}
	s.used = true
	_ = c.o.step(h, c.op) // the system under test reports differences
	if c.o.halt != nil {
		return &gopterState{err: c.o.halt} // h is blocked in the call, or unusable
	}
	return &gopterState{h: h, ops: append(s.ops[:len(s.ops):len(s.ops)], c.op)}
}

func (gopterCmd) PreCondition(commands.State) bool { return true }

func (gopterCmd) PostCondition(_ commands.State, result commands.Result) *gopter.PropResult {
	if r := result.(string); r != "" {
		return &gopter.PropResult{Status: gopter.PropFalse, Labels: []string{string(r)}}
	}
	return &gopter.PropResult{Status: gopter.PropTrue}
}

func gopterCommands(wheel bool, opts []Option) *commands.ProtoCommands {
	o := buildOptions(opts)
	s, err := o.structure(wheel)
	if err != nil {
		panic(err)
	}
	return &commands.ProtoCommands{
		InitialStateGen: func(params *gopter.GenParameters) *gopter.GenResult {
			setup, err := s.draw(harness.RandSource{R: params.Rng})
			var h *harness.Harness
			if err == nil {
				h, err = o.start(setup)
			}
			return gopter.NewGenResult(&gopterState{h: h, err: err}, gopter.NoShrinker)
		},
		// A state whose start did not return, or made a wheel the checks
		// cannot use, runs, so that its commands report it (see
		// GenCommandFunc).
		InitialPreConditionFunc: func(state commands.State) bool {
			return state.(*gopterState).err == nil || o.halt != nil
		},
		NewSystemUnderTestFunc: func(initial commands.State) commands.SystemUnderTest {
			st := initial.(*gopterState)
			if st.err != nil {
				return (*harness.Harness)(nil) // a start that did not return: every step reports it
			}
			h, err := o.start(st.h.Setup())
			if err != nil && o.halt == nil {
				panic(fmt.Sprintf("proptest: %v", err)) // built once already for the state
			}
			return h
		},
		GenCommandFunc: func(state commands.State) gopter.Gen {
			st := state.(*gopterState)
			if o.halt != nil {
				// A call did not return, or the wheel cannot be checked: every
				// command fails at once with the message, so that shrinking
				// ends quickly.
				return gen.Const(commands.Command(gopterCmd{harness.Op{Name: "FirePastAlarms"}, harness.WheelKind.Format, o}))
			}
			if st.err != nil {
				return gen.Fail(reflect.TypeOf((*commands.Command)(nil)).Elem())
			}
			return func(params *gopter.GenParameters) *gopter.GenResult {
				op := st.h.Gen(harness.RandSource{R: params.Rng}, s.weights, o.noPanic)
				return gopter.NewGenResult(commands.Command(gopterCmd{op, st.h.Kind().Format, o}), gopter.NoShrinker)
			}
		},
	}
}

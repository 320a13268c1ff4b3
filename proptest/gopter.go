package proptest

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/commands"
	"github.com/leanovate/gopter/gen"
)

// RunGopter runs GopterProperties(opts...) and fails t if a property fails.
// It reports through a reporter that does not wrap lines, so the replay
// snippet in a failure's label can be pasted as it is:
//
//	func TestGopter(t *testing.T) { proptest.RunGopter(t) }
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
// the failure's label holds the difference and a snippet that replays it
// (ReplayWheelText, ReplayQueueText). Run them in a test of your own with
// RunGopter, or with gopter's own runner (whose console reporter wraps long
// lines at 80 columns):
//
//	func TestGopter(t *testing.T) {
//		proptest.GopterProperties().TestingRun(t)
//	}
//
// Options: WithGopterRuns (default 100 sequences, growing to 60 calls), WithConfigs,
// WithLevelBits, WithOpWeights, WithQueueOpWeights, WithoutPanics, WithWheelFactory,
// WithQueueFactory. WheelCommands and QueueCommands give the commands alone,
// to build properties of your own.
func GopterProperties(opts ...Option) *gopter.Properties {
	o := buildOptions(opts)
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 100
	if o.gopterTests > 0 {
		params.MinSuccessfulTests = o.gopterTests
	}
	params.MaxSize = 60
	switch {
	case o.gopterSize > 0:
		params.MaxSize = o.gopterSize
	case o.steps > 0:
		params.MaxSize = o.steps
	}
	props := gopter.NewProperties(params)
	props.Property("wheel matches the model", commands.Prop(WheelCommands(opts...)))
	props.Property("queue matches the model", commands.Prop(QueueCommands(opts...)))
	return props
}

// WheelCommands returns CheckWheel's state machine as gopter commands. The
// system under test is a wheel paired with its Model; every command runs one
// call on both and compares them as CheckWheel does. It panics when
// WithOpWeights names an unknown operation.
func WheelCommands(opts ...Option) *commands.ProtoCommands {
	o := buildOptions(opts)
	weights, err := opWeights(wheelOpList(), wheelDefaultWeights(), o.weights, "WithOpWeights")
	if err != nil {
		panic(err)
	}
	return gopterCommands(func(src source) (machine, error) {
		var m wheelMachine
		m.o, m.weights = o, weights
		cfg, err := randomConfig(src)
		if len(o.configs) > 0 {
			cfg, err = o.configs[src.intn("config", len(o.configs))], nil
		}
		if err != nil {
			return nil, err
		}
		m.h, err = newWheelHarness(cfg, genStart(src), o.wheelFactory)
		return &m, err
	})
}

// QueueCommands returns CheckQueue's state machine as gopter commands.
func QueueCommands(opts ...Option) *commands.ProtoCommands {
	o := buildOptions(opts)
	weights, err := opWeights(queueOpList(), queueDefaultWeights(), o.queueWeights, "WithQueueOpWeights")
	if err != nil {
		panic(err)
	}
	return gopterCommands(func(src source) (machine, error) {
		h, err := o.newQueueHarness(src)
		return &queueMachine{h: h, o: o, weights: weights}, err
	})
}

// machine is a harness seen by the gopter glue.
type machine interface {
	gen(src source) fmt.Stringer
	step(op fmt.Stringer) error
	// replay returns a new harness with the same header and calls.
	replay() (machine, error)
	// fresh returns a new harness with the same header and no calls.
	fresh() (machine, error)
	report(err error) string
	String() string
}

type wheelMachine struct {
	h       *wheelHarness
	o       *options
	weights []int
}

func (m *wheelMachine) gen(src source) fmt.Stringer { return m.h.genOp(src, m.weights, m.o.noPanic) }
func (m *wheelMachine) step(op fmt.Stringer) error  { return m.h.step(op.(WheelOp)) }
func (m *wheelMachine) report(err error) string     { return m.o.wheelFailure(err, m.h, m.h.cfg) }
func (m *wheelMachine) String() string              { return m.h.trace.String() }

func (m *wheelMachine) fresh() (machine, error) {
	tr := m.h.trace
	tr.Ops = nil
	h, err := newWheelHarnessFromTrace(tr, m.o.wheelFactory)
	return &wheelMachine{h: h, o: m.o, weights: m.weights}, err
}

func (m *wheelMachine) replay() (machine, error) {
	c, err := m.fresh()
	if err != nil {
		return c, err
	}
	for _, op := range m.h.trace.Ops {
		_ = c.step(op) // a difference here shows again when the command runs
	}
	return c, nil
}

type queueMachine struct {
	h       *queueHarness
	o       *options
	weights []int
}

func (m *queueMachine) gen(src source) fmt.Stringer { return m.h.genOp(src, m.weights, m.o.noPanic) }
func (m *queueMachine) step(op fmt.Stringer) error  { return m.h.step(op.(QueueOp)) }
func (m *queueMachine) report(err error) string     { return m.o.queueFailure(err, m.h) }
func (m *queueMachine) String() string              { return m.h.trace.String() }

func (m *queueMachine) fresh() (machine, error) {
	tr := m.h.trace
	lb, err := tr.LevelBits()
	if err != nil {
		return nil, err
	}
	h, err := newQueueHarness(lb, tr.Capacity, m.o.queueFactory)
	return &queueMachine{h: h, o: m.o, weights: m.weights}, err
}

func (m *queueMachine) replay() (machine, error) {
	c, err := m.fresh()
	if err != nil {
		return c, err
	}
	for _, op := range m.h.trace.Ops {
		_ = c.step(op)
	}
	return c, nil
}

// randSource draws choices from gopter's random generator.
type randSource struct{ r *rand.Rand }

func (s randSource) intn(_ string, n int) int { return s.r.Intn(n) }

func (s randSource) int64Range(_ string, lo, hi int64) int64 {
	span := uint64(hi - lo)
	if span == ^uint64(0) {
		return lo + int64(s.r.Uint64())
	}
	return lo + int64(s.r.Uint64()%(span+1))
}

// gopterState is the model state gopter generates commands from: a harness
// that has run the calls so far. NextState advances it in place, which is
// safe because gopter walks each sequence once from a fresh initial state; a
// state used a second time is rebuilt from its trace.
type gopterState struct {
	m    machine
	used bool
	err  error // the harness could not be built
}

func (s *gopterState) String() string {
	if s.err != nil {
		return s.err.Error()
	}
	return s.m.String()
}

// gopterResult is what a command saw: nil, or the first difference with its
// report.
type gopterResult struct {
	err    error
	report string
}

type gopterCmd struct{ op fmt.Stringer }

func (c gopterCmd) String() string { return c.op.String() }

func (c gopterCmd) Run(sut commands.SystemUnderTest) commands.Result {
	m := sut.(machine)
	if err := m.step(c.op); err != nil {
		return gopterResult{err: err, report: m.report(err)}
	}
	return gopterResult{}
}

func (c gopterCmd) NextState(state commands.State) commands.State {
	s := state.(*gopterState)
	if s.err != nil {
		return s
	}
	m := s.m
	if s.used {
		var err error
		if m, err = s.m.replay(); err != nil {
			return &gopterState{err: err}
		}
	}
	s.used = true
	_ = m.step(c.op) // the system under test reports differences
	return &gopterState{m: m}
}

func (gopterCmd) PreCondition(commands.State) bool { return true }

func (gopterCmd) PostCondition(_ commands.State, result commands.Result) *gopter.PropResult {
	r := result.(gopterResult)
	if r.err != nil {
		return &gopter.PropResult{Status: gopter.PropFalse, Labels: []string{r.report}}
	}
	return &gopter.PropResult{Status: gopter.PropTrue}
}

func gopterCommands(newMachine func(source) (machine, error)) *commands.ProtoCommands {
	return &commands.ProtoCommands{
		InitialStateGen: func(params *gopter.GenParameters) *gopter.GenResult {
			m, err := newMachine(randSource{params.Rng})
			return gopter.NewGenResult(&gopterState{m: m, err: err}, gopter.NoShrinker)
		},
		InitialPreConditionFunc: func(state commands.State) bool { return state.(*gopterState).err == nil },
		NewSystemUnderTestFunc: func(initial commands.State) commands.SystemUnderTest {
			m, err := initial.(*gopterState).m.fresh()
			if err != nil {
				panic(fmt.Sprintf("proptest: %v", err)) // built once already for the state
			}
			return m
		},
		GenCommandFunc: func(state commands.State) gopter.Gen {
			s := state.(*gopterState)
			if s.err != nil {
				return gen.Fail(reflect.TypeOf((*commands.Command)(nil)).Elem())
			}
			return func(params *gopter.GenParameters) *gopter.GenResult {
				return gopter.NewGenResult(commands.Command(gopterCmd{s.m.gen(randSource{params.Rng})}), gopter.NoShrinker)
			}
		},
	}
}

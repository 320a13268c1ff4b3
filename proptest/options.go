package proptest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// Option adjusts CheckWheel, CheckQueue, GopterProperties and the replayers.
// Each option says which of them it affects; the others ignore it.
type Option func(*options)

type options struct {
	configs      []config.Config       // wheel: empty means random configs
	levelBits    []levelbits.LevelBits // queue: empty means random level bits
	steps        int                   // calls per run; 0: rapid's -rapid.steps on average
	noPanic      bool                  // no handler panics
	weights      map[string]int        // wheel operation mix; nil: the defaults
	queueWeights map[string]int        // queue operation mix; nil: the defaults
	failFile     string                // where a failing trace is written
	wheelFactory WheelFactory          // nil: timingwheel.New[int]
	queueFactory QueueFactory          // nil: priorityqueue.New[int]
	gopterTests  int                   // GopterProperties: runs
	gopterSize   int                   // GopterProperties: max calls per run
	traceSink    func(string)          // tests: gets the trace of a byte run
}

// WithConfigs restricts CheckWheel and GopterProperties to the given configs
// (default: random precisions from 2^0 to 2^46 ns with tiny and default level
// bits, overflow levels in a quarter of them).
func WithConfigs(cfgs ...config.Config) Option {
	return func(o *options) { o.configs = append(o.configs, cfgs...) }
}

// WithLevelBits restricts CheckQueue to the given level bits (default: [1],
// [1 1], [2 2], [3 1], [1 1 1], [2 1 1], random small ones and the default).
func WithLevelBits(lbs ...levelbits.LevelBits) Option {
	return func(o *options) { o.levelBits = append(o.levelBits, lbs...) }
}

// WithSteps makes every CheckWheel and CheckQueue run exactly n calls
// (default: rapid's -rapid.steps, 30 on average, which rapid may shorten when
// it shrinks a failure) and caps GopterProperties' runs at n calls.
func WithSteps(n int) Option { return func(o *options) { o.steps = n } }

// WithoutPanics turns off handlers that panic (CheckWheel, CheckQueue,
// GopterProperties).
func WithoutPanics() Option { return func(o *options) { o.noPanic = true } }

// WithOpWeights sets the wheel's operation mix (CheckWheel, CheckWheelBytes,
// the wheel machine of GopterProperties): the relative weight of each
// operation named by an Op* constant (OpAdd, OpAdvanceClock, ...); a weight of
// 0 turns one off and names left out keep their default weights. Any other
// name fails the test.
func WithOpWeights(weights map[string]int) Option {
	return func(o *options) { o.weights = mergeWeights(o.weights, weights) }
}

// WithQueueOpWeights is WithOpWeights for the queue's machines (CheckQueue,
// CheckQueueBytes, the queue machine of GopterProperties), with the QueueOp*
// constants. The two mixes are separate because the structures share some
// operation names (Add, Remove, Clear).
func WithQueueOpWeights(weights map[string]int) Option {
	return func(o *options) { o.queueWeights = mergeWeights(o.queueWeights, weights) }
}

func mergeWeights(into, from map[string]int) map[string]int {
	if into == nil {
		into = map[string]int{}
	}
	for k, v := range from {
		into[k] = v
	}
	return into
}

// WithFailureFile makes CheckWheel and CheckQueue write the trace of a
// failing run to path (creating its directory), in the text form ReplayWheel
// and ReplayQueue read. Rapid runs the failing case several times while it
// shrinks it; the file holds the last, smallest one.
func WithFailureFile(path string) Option { return func(o *options) { o.failFile = path } }

// WithWheelFactory makes the wheel under test with f instead of
// timingwheel.New[int]: use it to check a wrapper of your own.
func WithWheelFactory(f WheelFactory) Option { return func(o *options) { o.wheelFactory = f } }

// WithQueueFactory makes the queue under test with f instead of
// priorityqueue.New[int].
func WithQueueFactory(f QueueFactory) Option { return func(o *options) { o.queueFactory = f } }

// WithGopterRuns sets how many sequences GopterProperties tries (default 100)
// and how many calls each holds at most (default 60, or WithSteps).
func WithGopterRuns(runs, maxCalls int) Option {
	return func(o *options) { o.gopterTests, o.gopterSize = runs, maxCalls }
}

func buildOptions(opts []Option) *options {
	o := &options{}
	for _, f := range opts {
		f(o)
	}
	return o
}

// opWeights returns the weights of the named operations, the defaults
// overridden by set (from WithOpWeights or WithQueueOpWeights, named by
// option), or an error for an unknown name, a negative weight or an all-zero
// mix.
func opWeights(names []string, defaults []int, set map[string]int, option string) ([]int, error) {
	ws := slices.Clone(defaults)
	for k, v := range set {
		i := slices.Index(names, k)
		if i < 0 {
			return nil, fmt.Errorf("proptest: %s: unknown operation %q (known: %s)",
				option, k, strings.Join(names, ", "))
		}
		if v < 0 {
			return nil, fmt.Errorf("proptest: %s: negative weight %d for %s", option, v, k)
		}
		ws[i] = v
	}
	total := 0
	for _, w := range ws {
		total += w
	}
	if total == 0 {
		return nil, fmt.Errorf("proptest: %s turns every operation off", option)
	}
	return ws, nil
}

func wheelOpList() []string { return wheelOpNames.names() }

func queueOpList() []string { return queueOpNames.names() }

// writeFailure writes a failing trace to o.failFile, if set; it returns a
// note for the failure message.
func (o *options) writeFailure(trace string) string {
	if o.failFile == "" {
		return ""
	}
	if err := os.MkdirAll(filepath.Dir(o.failFile), 0o755); err != nil {
		return fmt.Sprintf("\n(could not write %s: %v)", o.failFile, err)
	}
	if err := os.WriteFile(o.failFile, []byte(trace), 0o644); err != nil {
		return fmt.Sprintf("\n(could not write %s: %v)", o.failFile, err)
	}
	return fmt.Sprintf("\nthe trace is in %s", o.failFile)
}

// indentTrace prefixes every line of a trace with a tab, for a Go raw string
// in a failure message.
func indentTrace(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = "\t\t" + lines[i]
	}
	return strings.Join(lines, "\n")
}

// opMix lists a machine's operations with their default weights.
type opMix []struct {
	name   string
	weight int
}

func (m opMix) names() []string {
	out := make([]string, len(m))
	for i, n := range m {
		out[i] = n.name
	}
	return out
}

func (m opMix) weights() []int {
	out := make([]int, len(m))
	for i, n := range m {
		out[i] = n.weight
	}
	return out
}

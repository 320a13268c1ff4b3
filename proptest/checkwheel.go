package proptest

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// RandomConfig draws a wheel config: a precision of 2^0 to 2^46 ns, level
// bits that are either tiny ([1], [2], [1 1], [2 1], [1 1 1], [3 2], random
// small ones, so that levels turn over fast) or the default, and overflow on
// in a quarter of the configs.
func RandomConfig(t *rapid.T) config.Config {
	cfg, err := randomConfig(rapidSource{t})
	if err != nil {
		t.Fatalf("%v", err)
	}
	return cfg
}

func randomConfig(src source) (config.Config, error) {
	precisions := []int{0, 0, 0, 1, 2, 3, 10, 20, 30, 46}
	p := config.AlarmPrecision(precisions[src.intn("precision", len(precisions))])
	var bits []int
	switch src.intn("levelbits", 9) {
	case 0:
		bits = []int{1}
	case 1:
		bits = []int{2}
	case 2:
		bits = []int{1, 1}
	case 3:
		bits = []int{2, 1}
	case 4:
		bits = []int{1, 1, 1}
	case 5:
		bits = []int{3, 2}
	case 6:
		bits = levelbits.Default().Bits()
	default:
		n := 1 + src.intn("numLevels", 4)
		for i := range n {
			bits = append(bits, 1+src.intn(fmt.Sprintf("bits%d", i), 3))
		}
	}
	lb, err := levelbits.New(bits...)
	if err != nil {
		return config.Config{}, fmt.Errorf("level bits %v: %w", bits, err)
	}
	opts := []config.Option{config.WithLevelBits(lb), config.WithCapacity(src.intn("capacity", 5))}
	if src.intn("overflow", 4) == 0 {
		opts = append(opts, config.WithOverflow())
	}
	cfg, err := config.New(p, opts...)
	if err != nil {
		return config.Config{}, fmt.Errorf("config: %w", err)
	}
	return cfg, nil
}

// genStart draws a start time: the epoch, near MaxTime, or anywhere in the
// first 2^40 ns.
func genStart(src source) time.Time {
	switch src.intn("startKind", 4) {
	case 0:
		return ns2t(0)
	case 1:
		return ns2t(maxNs - src.int64Range("startNearMax", 0, 1<<20))
	default:
		return ns2t(src.int64Range("start", 0, 1<<40))
	}
}

// CheckWheel runs a rapid state machine that drives a timingwheel.Wheel[int]
// and a Model[int] with the same random calls (adds, removes, reschedules,
// advances small and large, limited advances, FirePastAlarms, the
// stop-at-next-alarm step, Shrink, Clear, and handlers that add, remove,
// reschedule, shrink and panic) and fails t at the first difference in any
// observable: the fired sequence, every error, Len, Now, MaxAllowedAlarmTime,
// NextAlarmFiresAt, MinAlarmIntervalNum, the min-interval queries, each
// alarm's time, interval and value, membership of live and dead handles, All
// and Stats. After every call it runs Invariant() and checks the guarantees:
// never early, nothing lost or fired twice, total order.
//
// Options: WithConfigs, WithSteps, WithOpWeights, WithoutPanics,
// WithFailureFile, WithWheelFactory. The defaults (100 runs of about 30 calls)
// finish in well under a second; -rapid.checks and -rapid.steps scale them.
//
// A failing run reports the smallest failing trace rapid found, as a Go
// snippet that replays it deterministically:
//
//	proptest.ReplayWheelText(t, `
//		wheel precision=0 bits=1 capacity=0 overflow=false start=0
//		Add 1 1
//		AdvanceClock 2
//	`)
func CheckWheel(t *testing.T, opts ...Option) {
	t.Helper()
	checkWheel(t, opts)
}

func checkWheel(t rapid.TB, opts []Option) {
	t.Helper()
	o := buildOptions(opts)
	weights, err := opWeights(wheelOpList(), wheelDefaultWeights(), o.weights, "WithOpWeights")
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(rt *rapid.T) {
		src := rapidSource{rt}
		var cfg config.Config
		if len(o.configs) > 0 {
			cfg = o.configs[src.intn("config", len(o.configs))]
		} else {
			cfg = RandomConfig(rt)
		}
		h, err := newWheelHarness(cfg, genStart(src), o.wheelFactory)
		if err != nil {
			rt.Fatalf("%s", o.wheelFailure(err, h, cfg))
		}
		step := func(rt *rapid.T) {
			if err := h.step(h.genOp(rapidSource{rt}, weights, o.noPanic)); err != nil {
				rt.Fatalf("%s", o.wheelFailure(err, h, cfg))
			}
		}
		if o.steps > 0 {
			for range o.steps {
				step(rt)
			}
			return
		}
		rt.Repeat(map[string]func(*rapid.T){"step": step})
	})
}

// CheckWheelBytes decodes a config, a start time and up to 64 calls from data
// and runs them on a wheel and the model, failing t at the first difference,
// like CheckWheel. It is the body of a fuzz target:
//
//	func FuzzWheel(f *testing.F) {
//		f.Fuzz(func(t *testing.T, data []byte) { proptest.CheckWheelBytes(t, data) })
//	}
//
// Options: WithConfigs, WithOpWeights, WithoutPanics, WithFailureFile,
// WithWheelFactory.
func CheckWheelBytes(t testing.TB, data []byte, opts ...Option) {
	t.Helper()
	o := buildOptions(opts)
	weights, err := opWeights(wheelOpList(), wheelDefaultWeights(), o.weights, "WithOpWeights")
	if err != nil {
		t.Fatal(err)
	}
	src := &byteSource{data: data}
	var cfg config.Config
	if len(o.configs) > 0 {
		cfg = o.configs[src.intn("config", len(o.configs))]
	} else if cfg, err = randomConfig(src); err != nil {
		t.Fatal(err)
	}
	h, err := newWheelHarness(cfg, genStart(src), o.wheelFactory)
	if err != nil {
		t.Fatalf("%s", o.wheelFailure(err, h, cfg))
	}
	for i := 0; i < MaxFuzzCalls && !src.exhausted(); i++ {
		if err := h.step(h.genOp(src, weights, o.noPanic)); err != nil {
			t.Fatalf("%s", o.wheelFailure(err, h, cfg))
		}
	}
	if o.traceSink != nil {
		o.traceSink(h.trace.String())
	}
}

// MaxFuzzCalls caps the calls CheckWheelBytes and CheckQueueBytes decode from
// one input, so that each fuzz iteration stays fast.
const MaxFuzzCalls = 64

// wheelFailure formats a failure: the difference, then a snippet that
// replays the trace.
func (o *options) wheelFailure(err error, h *wheelHarness, cfg config.Config) string {
	if h == nil {
		return fmt.Sprintf("proptest: %v (config %v)", err, cfg)
	}
	tr := h.trace.String()
	return fmt.Sprintf("proptest: the wheel differs from the model: %v\n\nReplay it with:\n\n"+
		"\tproptest.ReplayWheelText(t, `\n%s\n\t`)\n%s", err, indentTrace(tr), o.writeFailure(tr))
}

func wheelDefaultWeights() []int { return wheelOpNames.weights() }

// genOp draws the next call from the model's state.
func (h *wheelHarness) genOp(src source, weights []int, noPanic bool) WheelOp {
	op := WheelOp{Name: wheelOpNames[weighted(src, "op", weights)].name}
	switch op.Name {
	case OpAdd:
		op.Time = h.genTime(src, "at")
	case OpAddAtIntervalNum:
		if src.intn("intervalFar", 6) == 0 {
			op.Interval = h.m.maxAllowedKey() + src.int64Range("intervalEdge", -1, 1)
		} else {
			op.Interval = h.m.NowIntervalNum() + src.int64Range("intervalDelta", -2, 40)
		}
	case OpRemove:
		op.ID = h.pick(src, "remove")
	case OpReschedule:
		op.ID = h.pick(src, "resched")
		op.Time = h.genTime(src, "reschedAt")
	case OpRescheduleAtIntervalNum:
		op.ID = h.pick(src, "reschedN")
		op.Interval = h.m.NowIntervalNum() + src.int64Range("reschedDelta", -1, 20)
	case OpAdvanceClock, OpAdvanceClockStopAtNextAlarm:
		op.Time = h.genAdvance(src, "to")
		op.Script = h.genScript(src, noPanic)
	case OpAdvanceClockLimit:
		op.Time = h.genAdvance(src, "to")
		op.Limit = src.intn("limit", 6)
		op.Script = h.genScript(src, noPanic)
	case OpFirePastAlarms:
		op.Script = h.genScript(src, noPanic)
	}
	return op
}

func (h *wheelHarness) precision() int64 { return int64(1) << h.m.shift }

// genTime draws an alarm time around the clock and the wheel's reach: just
// before the current interval, inside it before now, at and just past
// MaxAllowedAlarmTime, anywhere up to MaxTime, and mostly near now.
func (h *wheelHarness) genTime(src source, label string) int64 {
	now := h.m.now
	prec := h.precision()
	intervalStart := now / prec * prec
	maxAllowed := h.m.MaxAllowedAlarmTime().UnixNano()
	switch src.intn(label+"Kind", 10) {
	case 0:
		return intervalStart - src.int64Range(label+"Before", 1, 3)
	case 1:
		return intervalStart + src.int64Range(label+"InCurrent", 0, max(0, now-intervalStart))
	case 2:
		return maxAllowed
	case 3:
		return maxAllowed + src.int64Range(label+"Beyond", 1, 3)
	case 4:
		return now + src.int64Range(label+"Anywhere", 0, maxNs-now)
	default:
		span := max(0, min(maxAllowed-now, 16*prec))
		return now + src.int64Range(label+"Near", 0, span)
	}
}

// genAdvance draws a target for an advance: by one, small, medium, large
// jumps, MaxTime, backwards, around the next alarm, and sometimes past MaxTime.
func (h *wheelHarness) genAdvance(src source, label string) int64 {
	now := h.m.now
	prec := h.precision()
	var ns int64
	switch src.intn(label+"Kind", 8) {
	case 0:
		ns = now + 1
	case 1:
		ns = now + src.int64Range(label+"Small", 0, 4*prec)
	case 2:
		ns = now + src.int64Range(label+"Jump", 0, (maxNs-now)/2)
	case 3:
		ns = maxNs
	case 4:
		ns = now - src.int64Range(label+"Back", 0, 3)
	case 5:
		if nx, ok := h.m.NextAlarmFiresAt(); ok {
			ns = nx.UnixNano() + src.int64Range(label+"Next", -1, 1)
		} else {
			ns = now + 1
		}
	default:
		ns = now + src.int64Range(label+"Medium", 0, 64*prec)
	}
	if ns > maxNs && src.intn(label+"KeepBeyond", 5) > 0 {
		ns = maxNs
	}
	return max(ns, 0)
}

// pick returns the id of a live alarm mostly, else of a dead one (fired,
// removed or cleared), else 0 (the null alarm).
func (h *wheelHarness) pick(src source, label string) int {
	if live := slices.Sorted(maps.Keys(h.live)); len(live) > 0 && src.intn(label+"Live", 6) > 0 {
		return live[src.intn(label, len(live))]
	}
	if dead := slices.Sorted(maps.Keys(h.ended)); len(dead) > 0 && src.intn(label+"Dead", 2) > 0 {
		return dead[src.intn(label+"DeadPick", len(dead))]
	}
	return 0
}

// genScript draws a handler: two in three calls get a plain one; the rest
// act once (add, remove, reschedule, panic, shrink) or pass a nil handler.
func (h *wheelHarness) genScript(src source, noPanic bool) Script {
	if src.intn("scripted", 3) != 0 {
		return Script{}
	}
	acts := []string{ActAdd, ActRemove, ActReschedule, ActPanic, ActNil, ActShrink}
	hs := Script{
		Call:   1 + src.intn("scriptAt", 4),
		Action: acts[src.intn("scriptAction", len(acts))],
		Offset: src.int64Range("scriptOffset", 0, 8*h.precision()),
	}
	if hs.Action == ActPanic && noPanic {
		hs.Action = ActAdd
	}
	if hs.Action == ActNil {
		return Script{Action: ActNil}
	}
	if hs.Action == ActRemove || hs.Action == ActReschedule {
		hs.Target = h.pick(src, "scriptTarget")
	}
	if hs.Action == ActPanic || hs.Action == ActShrink {
		hs.Offset = 0
	}
	return hs
}

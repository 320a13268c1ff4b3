package proptest

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// Wheel operation names, as they appear in a trace and in WithOpWeights.
const (
	OpAdd                         = "Add"
	OpAddAtIntervalNum            = "AddAtIntervalNum"
	OpRemove                      = "Remove"
	OpReschedule                  = "Reschedule"
	OpRescheduleAtIntervalNum     = "RescheduleAtIntervalNum"
	OpAdvanceClock                = "AdvanceClock"
	OpAdvanceClockLimit           = "AdvanceClockLimit"
	OpFirePastAlarms              = "FirePastAlarms"
	OpAdvanceClockStopAtNextAlarm = "AdvanceClockStopAtNextAlarm"
	OpShrink                      = "Shrink"
	OpClear                       = "Clear"
)

// wheelOpNames lists the wheel operations with their default weights.
var wheelOpNames = opMix{
	{OpAdd, 6}, {OpAddAtIntervalNum, 2}, {OpRemove, 2}, {OpReschedule, 2}, {OpRescheduleAtIntervalNum, 1},
	{OpAdvanceClock, 4}, {OpAdvanceClockLimit, 2}, {OpFirePastAlarms, 1}, {OpAdvanceClockStopAtNextAlarm, 2},
	{OpShrink, 1}, {OpClear, 1},
}

// Handler actions of a Script.
const (
	ActNone       = ""
	ActAdd        = "add"        // add an alarm at now + Offset
	ActRemove     = "remove"     // remove alarm Target
	ActReschedule = "reschedule" // reschedule alarm Target to now + Offset
	ActPanic      = "panic"      // panic
	ActNil        = "nil"        // no handler at all: the call gets a nil func
	ActShrink     = "shrink"     // call Shrink (the model does nothing): records move under the running call
)

// Script is what the handler of a firing call does, the same on the wheel and
// on the model: at its Call-th invocation (1-based) it performs Action once.
// With ActNil the wheel gets a nil handler (the model's handler still records
// what is due, and the checks see that it left the wheel).
type Script struct {
	Call   int
	Action string
	Offset int64 // ns after Now(), for ActAdd and ActReschedule
	Target int   // alarm id, for ActRemove and ActReschedule
}

// WheelOp is one call of a trace, with absolute arguments. Alarms are named by
// ids: the value stored in the alarm, assigned by the trace (Add's ID) or, for
// alarms a handler adds, by the harness (one more than the largest id seen).
// Id 0 and ids never added stand for the null alarm.
type WheelOp struct {
	Name     string
	Time     int64 // ns: Add, Reschedule (the alarm time), advances (to)
	Interval int64 // AddAtIntervalNum, RescheduleAtIntervalNum
	ID       int   // the alarm added, removed or rescheduled
	Limit    int   // AdvanceClockLimit
	Script   Script
}

// WheelTrace is a deterministic reproduction of a CheckWheel run: a wheel
// config, a start time and the calls. String gives its text form and
// ParseWheelTrace reads it back; ReplayWheel runs one.
//
// The text form is line-based; '#' starts a comment. The first line is the
// header, then one call per line, with times in ns since the Unix epoch:
//
//	wheel precision=0 bits=1,1 capacity=0 overflow=false start=0
//	Add 5 1
//	AddAtIntervalNum 3 2
//	Remove 1
//	Reschedule 2 7
//	RescheduleAtIntervalNum 2 9
//	AdvanceClock 6 handler=1,add,4,0
//	AdvanceClockLimit 30 2
//	FirePastAlarms handler=2,remove,0,3
//	AdvanceClockStopAtNextAlarm 4611686018427387903
//	Shrink
//	Clear
//
// handler=call,action,offset,target is a Script; action is one of add,
// remove, reschedule, panic, nil and shrink.
type WheelTrace struct {
	Precision int   // log2 of the alarm precision in ns
	Bits      []int // the level bits given to config.WithLevelBits
	Capacity  int
	Overflow  bool
	Start     int64 // ns
	Ops       []WheelOp
}

// Config builds the trace's config.
func (tr WheelTrace) Config() (config.Config, error) {
	lb, err := levelbits.New(tr.Bits...)
	if err != nil {
		return config.Config{}, err
	}
	opts := []config.Option{config.WithLevelBits(lb), config.WithCapacity(tr.Capacity)}
	if tr.Overflow {
		opts = append(opts, config.WithOverflow())
	}
	return config.New(config.AlarmPrecision(tr.Precision), opts...)
}

func traceOfConfig(cfg config.Config, start time.Time) WheelTrace {
	return WheelTrace{Precision: cfg.Precision().Log2(), Bits: cfg.LevelBits().Bits(),
		Capacity: cfg.Capacity(), Overflow: cfg.Overflow(), Start: start.UnixNano()}
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// String formats one call as a trace line.
func (op WheelOp) String() string {
	var b strings.Builder
	b.WriteString(op.Name)
	switch op.Name {
	case OpAdd:
		fmt.Fprintf(&b, " %d %d", op.Time, op.ID)
	case OpAddAtIntervalNum:
		fmt.Fprintf(&b, " %d %d", op.Interval, op.ID)
	case OpRemove:
		fmt.Fprintf(&b, " %d", op.ID)
	case OpReschedule:
		fmt.Fprintf(&b, " %d %d", op.ID, op.Time)
	case OpRescheduleAtIntervalNum:
		fmt.Fprintf(&b, " %d %d", op.ID, op.Interval)
	case OpAdvanceClock, OpAdvanceClockStopAtNextAlarm:
		fmt.Fprintf(&b, " %d", op.Time)
	case OpAdvanceClockLimit:
		fmt.Fprintf(&b, " %d %d", op.Time, op.Limit)
	}
	if op.Script.Action != ActNone {
		fmt.Fprintf(&b, " handler=%d,%s,%d,%d", op.Script.Call, op.Script.Action, op.Script.Offset, op.Script.Target)
	}
	return b.String()
}

// String formats the trace in the text form ParseWheelTrace reads.
func (tr WheelTrace) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "wheel precision=%d bits=%s capacity=%d overflow=%v start=%d\n",
		tr.Precision, joinInts(tr.Bits), tr.Capacity, tr.Overflow, tr.Start)
	for _, op := range tr.Ops {
		b.WriteString(op.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// traceLines returns the non-blank lines of text without comments, each split
// into fields, with their line numbers.
func traceLines(text string) (lines [][]string, nums []int) {
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if f := strings.Fields(line); len(f) > 0 {
			lines = append(lines, f)
			nums = append(nums, n)
		}
	}
	return lines, nums
}

// header parses "kind key=value ...".
func parseHeader(f []string, kind string) (map[string]string, error) {
	if f[0] != kind {
		return nil, fmt.Errorf("header %q: want %q first", strings.Join(f, " "), kind)
	}
	kv := map[string]string{}
	for _, p := range f[1:] {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return nil, fmt.Errorf("header field %q: want key=value", p)
		}
		kv[k] = v
	}
	return kv, nil
}

func parseInts(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, p := range strings.Split(s, ",") {
		x, err := strconv.Atoi(p)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

func parseScript(s string) (Script, error) {
	p := strings.Split(s, ",")
	if len(p) != 4 {
		return Script{}, fmt.Errorf("handler %q: want call,action,offset,target", s)
	}
	call, err1 := strconv.Atoi(p[0])
	off, err2 := strconv.ParseInt(p[2], 10, 64)
	target, err3 := strconv.Atoi(p[3])
	if err1 != nil || err2 != nil || err3 != nil {
		return Script{}, fmt.Errorf("handler %q: bad number", s)
	}
	switch p[1] {
	case ActAdd, ActRemove, ActReschedule, ActPanic, ActNil, ActShrink:
	default:
		return Script{}, fmt.Errorf("handler %q: unknown action %q", s, p[1])
	}
	return Script{Call: call, Action: p[1], Offset: off, Target: target}, nil
}

// ParseWheelTrace reads the text form of a WheelTrace (see WheelTrace).
func ParseWheelTrace(text string) (WheelTrace, error) {
	lines, nums := traceLines(text)
	if len(lines) == 0 {
		return WheelTrace{}, fmt.Errorf("proptest: empty wheel trace")
	}
	kv, err := parseHeader(lines[0], "wheel")
	if err != nil {
		return WheelTrace{}, fmt.Errorf("proptest: line %d: %w", nums[0], err)
	}
	var tr WheelTrace
	for k, v := range kv {
		var err error
		switch k {
		case "precision":
			tr.Precision, err = strconv.Atoi(v)
		case "bits":
			tr.Bits, err = parseInts(v)
		case "capacity":
			tr.Capacity, err = strconv.Atoi(v)
		case "overflow":
			tr.Overflow, err = strconv.ParseBool(v)
		case "start":
			tr.Start, err = strconv.ParseInt(v, 10, 64)
		default:
			err = fmt.Errorf("unknown field")
		}
		if err != nil {
			return WheelTrace{}, fmt.Errorf("proptest: line %d: header %s=%s: %v", nums[0], k, v, err)
		}
	}
	for i, f := range lines[1:] {
		op, err := parseWheelOp(f)
		if err != nil {
			return WheelTrace{}, fmt.Errorf("proptest: line %d: %w", nums[i+1], err)
		}
		tr.Ops = append(tr.Ops, op)
	}
	return tr, nil
}

func parseWheelOp(f []string) (WheelOp, error) {
	op := WheelOp{Name: f[0]}
	args := f[1:]
	if n := len(args); n > 0 && strings.HasPrefix(args[n-1], "handler=") {
		s, err := parseScript(strings.TrimPrefix(args[n-1], "handler="))
		if err != nil {
			return op, err
		}
		op.Script = s
		args = args[:n-1]
	}
	var ints []int64
	for _, a := range args {
		x, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			return op, fmt.Errorf("%s: argument %q: %v", op.Name, a, err)
		}
		ints = append(ints, x)
	}
	want := map[string]int{OpAdd: 2, OpAddAtIntervalNum: 2, OpRemove: 1, OpReschedule: 2,
		OpRescheduleAtIntervalNum: 2, OpAdvanceClock: 1, OpAdvanceClockLimit: 2, OpFirePastAlarms: 0,
		OpAdvanceClockStopAtNextAlarm: 1, OpShrink: 0, OpClear: 0}
	n, ok := want[op.Name]
	if !ok {
		return op, fmt.Errorf("unknown call %q", op.Name)
	}
	if len(ints) != n {
		return op, fmt.Errorf("%s: %d arguments, want %d", op.Name, len(ints), n)
	}
	if op.Script.Action != ActNone {
		switch op.Name {
		case OpAdvanceClock, OpAdvanceClockLimit, OpFirePastAlarms, OpAdvanceClockStopAtNextAlarm:
		default:
			return op, fmt.Errorf("%s takes no handler", op.Name)
		}
	}
	switch op.Name {
	case OpAdd:
		op.Time, op.ID = ints[0], int(ints[1])
	case OpAddAtIntervalNum:
		op.Interval, op.ID = ints[0], int(ints[1])
	case OpRemove:
		op.ID = int(ints[0])
	case OpReschedule:
		op.ID, op.Time = int(ints[0]), ints[1]
	case OpRescheduleAtIntervalNum:
		op.ID, op.Interval = int(ints[0]), ints[1]
	case OpAdvanceClock, OpAdvanceClockStopAtNextAlarm:
		op.Time = ints[0]
	case OpAdvanceClockLimit:
		op.Time, op.Limit = ints[0], int(ints[1])
	}
	return op, nil
}

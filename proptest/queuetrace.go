package proptest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gotimingwheel/timingwheel/levelbits"
)

// Queue operation names, as they appear in a queue trace and in
// WithQueueOpWeights.
const (
	QueueOpAdd      = "Add"
	QueueOpRemove   = "Remove"
	QueueOpChange   = "Change"
	QueueOpIncrease = "IncreaseMinAllowedKey"
	QueueOpMinElt   = "MinElt"
	QueueOpShrink   = "Shrink"
	QueueOpClear    = "Clear"
)

// queueOpNames lists the queue operations with their default weights.
var queueOpNames = opMix{
	{QueueOpAdd, 8}, {QueueOpRemove, 3}, {QueueOpChange, 3}, {QueueOpIncrease, 5},
	{QueueOpMinElt, 2}, {QueueOpShrink, 1}, {QueueOpClear, 1},
}

// QueueOp is one call of a queue trace, with absolute arguments. Elements are
// named by ids, the values stored in them, as in WheelOp. The Script of an
// IncreaseMinAllowedKey acts in its removal handler: ActAdd adds an element
// with key MinAllowedKey()+Offset, ActReschedule changes Target's key to
// MinAllowedKey()+Offset, ActRemove removes Target, ActShrink calls Shrink
// (the model does nothing), ActPanic panics, ActNil passes a nil handler.
type QueueOp struct {
	Name   string
	Key    int64
	ID     int
	Script Script
}

// QueueTrace is a deterministic reproduction of a CheckQueue run: level bits,
// a capacity and the calls. Its text form:
//
//	queue bits=1,1 capacity=0
//	Add 3 1
//	Change 1 4
//	Remove 1
//	IncreaseMinAllowedKey 5 handler=1,add,2,0
//	MinElt
//	Shrink
//	Clear
type QueueTrace struct {
	Bits     []int
	Capacity int
	Ops      []QueueOp
}

// LevelBits returns the trace's level bits.
func (tr QueueTrace) LevelBits() (levelbits.LevelBits, error) { return levelbits.New(tr.Bits...) }

// String formats one call as a trace line.
func (op QueueOp) String() string {
	var b strings.Builder
	b.WriteString(op.Name)
	switch op.Name {
	case QueueOpAdd:
		fmt.Fprintf(&b, " %d %d", op.Key, op.ID)
	case QueueOpRemove:
		fmt.Fprintf(&b, " %d", op.ID)
	case QueueOpChange:
		fmt.Fprintf(&b, " %d %d", op.ID, op.Key)
	case QueueOpIncrease:
		fmt.Fprintf(&b, " %d", op.Key)
	}
	if op.Script.Action != ActNone {
		fmt.Fprintf(&b, " handler=%d,%s,%d,%d", op.Script.Call, op.Script.Action, op.Script.Offset, op.Script.Target)
	}
	return b.String()
}

// String formats the trace in the text form ParseQueueTrace reads.
func (tr QueueTrace) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "queue bits=%s capacity=%d\n", joinInts(tr.Bits), tr.Capacity)
	for _, op := range tr.Ops {
		b.WriteString(op.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// ParseQueueTrace reads the text form of a QueueTrace.
func ParseQueueTrace(text string) (QueueTrace, error) {
	lines, nums := traceLines(text)
	if len(lines) == 0 {
		return QueueTrace{}, fmt.Errorf("proptest: empty queue trace")
	}
	kv, err := parseHeader(lines[0], "queue")
	if err != nil {
		return QueueTrace{}, fmt.Errorf("proptest: line %d: %w", nums[0], err)
	}
	var tr QueueTrace
	for k, v := range kv {
		var err error
		switch k {
		case "bits":
			tr.Bits, err = parseInts(v)
		case "capacity":
			tr.Capacity, err = strconv.Atoi(v)
		default:
			err = fmt.Errorf("unknown field")
		}
		if err != nil {
			return QueueTrace{}, fmt.Errorf("proptest: line %d: header %s=%s: %v", nums[0], k, v, err)
		}
	}
	for i, f := range lines[1:] {
		op, err := parseQueueOp(f)
		if err != nil {
			return QueueTrace{}, fmt.Errorf("proptest: line %d: %w", nums[i+1], err)
		}
		tr.Ops = append(tr.Ops, op)
	}
	return tr, nil
}

func parseQueueOp(f []string) (QueueOp, error) {
	op := QueueOp{Name: f[0]}
	args := f[1:]
	if n := len(args); n > 0 && strings.HasPrefix(args[n-1], "handler=") {
		if op.Name != QueueOpIncrease {
			return op, fmt.Errorf("%s takes no handler", op.Name)
		}
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
	want := map[string]int{QueueOpAdd: 2, QueueOpRemove: 1, QueueOpChange: 2, QueueOpIncrease: 1,
		QueueOpMinElt: 0, QueueOpShrink: 0, QueueOpClear: 0}
	n, ok := want[op.Name]
	if !ok {
		return op, fmt.Errorf("unknown call %q", op.Name)
	}
	if len(ints) != n {
		return op, fmt.Errorf("%s: %d arguments, want %d", op.Name, len(ints), n)
	}
	switch op.Name {
	case QueueOpAdd:
		op.Key, op.ID = ints[0], int(ints[1])
	case QueueOpRemove:
		op.ID = int(ints[0])
	case QueueOpChange:
		op.ID, op.Key = int(ints[0]), ints[1]
	case QueueOpIncrease:
		op.Key = ints[0]
	}
	return op, nil
}

package harness

import (
	"bufio"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Handler actions of a Script.
const (
	ActNone       = ""
	ActAdd        = "add"        // add at base + Offset (base: Now, or MinAllowedKey)
	ActRemove     = "remove"     // remove Target
	ActReschedule = "reschedule" // move Target to base + Offset (Reschedule, or Change)
	ActPanic      = "panic"      // panic
	ActNil        = "nil"        // no handler at all: the implementation gets a nil func
	ActShrink     = "shrink"     // call Shrink (the model does nothing): records move under the running call
)

// actions are the handler actions, in the order genScript draws them.
var actions = []string{ActAdd, ActRemove, ActReschedule, ActPanic, ActNil, ActShrink}

// Script is what the handler of a firing call does, the same on the
// implementation and on the model: at its Call-th invocation (1-based) it
// performs Action once. With ActNil the implementation gets a nil handler
// (the model's still records what is due, and the checks see that it left).
type Script struct {
	Call   int
	Action string
	Offset int64
	Target int // an id
}

// Op is one call of a trace, with absolute arguments. Alarms (elements) are
// named by ids: the value stored in them, assigned by the trace (an add's ID)
// or, for those a handler adds, by the harness (one more than the largest id
// seen). Id 0 and ids never added stand for the null alarm.
type Op struct {
	Name   string
	At     int64 // a time in ns, an interval number (...AtIntervalNum), or a key
	ID     int
	Limit  int // AdvanceClockLimit
	Script Script
}

// opKind is what the engine does with an operation.
type opKind uint8

const (
	kAdd opKind = iota
	kRemove
	kMove
	kFire // runs handlers: the only kind that takes a Script
	kShrink
	kClear
	kQuery
)

// opDef is one operation of a structure: its name in traces and weights, its
// default weight, its arguments in trace order (a: At, i: ID, l: Limit) and
// what it does.
type opDef struct {
	name   string
	weight int
	args   string
	kind   opKind
}

// arg returns a pointer to op's argument c (see opDef.args).
func (op *Op) arg(c byte) any { return map[byte]any{'a': &op.At, 'i': &op.ID, 'l': &op.Limit}[c] }

// Kind describes one structure the harness drives: the wheel or the queue.
type Kind struct {
	Name     string   // the first word of a trace's header
	thing    string   // what it holds: "alarm" or "element"
	verb     string   // what a firing call does to them
	liveOdds int      // pick draws a live id unless a draw in [0, liveOdds) is 0
	queries  []string // the structure-wide queries compared after every call
	// oneQueries names the queries about one handle compared after every call
	oneQueries string
	ops        []opDef
	errs       []error // the sentinels errors are compared by
}

func (k *Kind) def(name string) *opDef {
	if i := slices.IndexFunc(k.ops, func(d opDef) bool { return d.name == name }); i >= 0 {
		return &k.ops[i]
	}
	return nil
}

// Names lists the operations, in the order of their weights.
func (k *Kind) Names() []string {
	names := make([]string, len(k.ops))
	for i, d := range k.ops {
		names[i] = d.name
	}
	return names
}

// Weights returns the operation weights: the defaults overridden by set
// (from the option named option), or an error for an unknown name, a
// negative weight or an all-zero mix.
func (k *Kind) Weights(set map[string]int, option string) ([]int, error) {
	ws, names := make([]int, len(k.ops)), k.Names()
	for i, d := range k.ops {
		ws[i] = d.weight
	}
	total := 0
	for name, w := range set {
		i := slices.Index(names, name)
		if i < 0 {
			return nil, fmt.Errorf("proptest: %s: unknown %s operation %q (known: %s)",
				option, k.Name, name, strings.Join(names, ", "))
		}
		if w < 0 {
			return nil, fmt.Errorf("proptest: %s: negative weight %d for %s", option, w, name)
		}
		ws[i] = w
	}
	for _, w := range ws {
		total += w
	}
	if total == 0 {
		return nil, fmt.Errorf("proptest: %s turns every %s operation off", option, k.Name)
	}
	return ws, nil
}

// Format formats op as a trace line: the name, the arguments, and
// handler=call,action,offset,target when it has a Script.
func (k *Kind) Format(op Op) string {
	var b strings.Builder
	b.WriteString(op.Name)
	if d := k.def(op.Name); d != nil {
		for i := range len(d.args) {
			fmt.Fprintf(&b, " %v", reflect.ValueOf(op.arg(d.args[i])).Elem())
		}
	}
	if s := op.Script; s.Action != ActNone {
		fmt.Fprintf(&b, " handler=%d,%s,%d,%d", s.Call, s.Action, s.Offset, s.Target)
	}
	return b.String()
}

func (k *Kind) parseOp(f []string) (Op, error) {
	op := Op{Name: f[0]}
	d := k.def(op.Name)
	if d == nil {
		return op, fmt.Errorf("unknown call %q", op.Name)
	}
	args := f[1:]
	if n := len(args); n > 0 && strings.HasPrefix(args[n-1], "handler=") {
		if d.kind != kFire {
			return op, fmt.Errorf("%s takes no handler", op.Name)
		}
		s, err := parseScript(strings.TrimPrefix(args[n-1], "handler="))
		if err != nil {
			return op, err
		}
		op.Script, args = s, args[:n-1]
	}
	if len(args) != len(d.args) {
		return op, fmt.Errorf("%s: %d arguments, want %d", op.Name, len(args), len(d.args))
	}
	for i, a := range args {
		if err := parseInto(op.arg(d.args[i]), a); err != nil {
			return op, fmt.Errorf("%s: argument %q: %v", op.Name, a, err)
		}
	}
	return op, nil
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
	if !slices.Contains(actions, p[1]) {
		return Script{}, fmt.Errorf("handler %q: unknown action %q", s, p[1])
	}
	return Script{Call: call, Action: p[1], Offset: off, Target: target}, nil
}

// parseTrace reads the text form of a trace: '#' starts a comment; the first
// line is the header "wheel key=value ..." or "queue key=value ...", then
// one call per line (see Kind.Format).
func parseTrace(text string) (*Kind, map[string]string, []Op, error) {
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	var k *Kind
	kv := map[string]string{}
	var ops []Op
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if k != nil {
			op, err := k.parseOp(f)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("proptest: line %d: %w", n, err)
			}
			ops = append(ops, op)
			continue
		}
		if k = map[string]*Kind{"wheel": WheelKind, "queue": QueueKind}[f[0]]; k == nil {
			return nil, nil, nil, fmt.Errorf("proptest: line %d: header %q: want \"wheel\" or \"queue\" first", n, line)
		}
		for _, p := range f[1:] {
			key, v, ok := strings.Cut(p, "=")
			if !ok {
				return nil, nil, nil, fmt.Errorf("proptest: line %d: header field %q: want key=value", n, p)
			}
			kv[key] = v
		}
	}
	if k == nil {
		return nil, nil, nil, fmt.Errorf("proptest: empty trace")
	}
	return k, kv, ops, nil
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// headerFields reads a header's fields into the named pointers; a field not
// named is an error.
func headerFields(kv map[string]string, into map[string]any) error {
	for key, v := range kv {
		if err := parseInto(into[key], v); err != nil {
			return fmt.Errorf("proptest: header %s=%s: %v", key, v, err)
		}
	}
	return nil
}

// parseInto parses v into p: an *int, *int64, *bool or *[]int (comma
// separated).
func parseInto(p any, v string) (err error) {
	switch p := p.(type) {
	case *int:
		*p, err = strconv.Atoi(v)
	case *int64:
		*p, err = strconv.ParseInt(v, 10, 64)
	case *bool:
		*p, err = strconv.ParseBool(v)
	case *[]int:
		for _, s := range strings.Split(v, ",") {
			var x int
			if err = parseInto(&x, s); err != nil {
				return err
			}
			*p = append(*p, x)
		}
	default:
		err = fmt.Errorf("unknown field")
	}
	return err
}

// Replay runs a trace's calls on a new structure, made by wf or qf as its
// header says (nil: the package's own), and its model, comparing them after
// every call as the checks do; it returns the first difference, or nil.
func Replay(text string, wf WheelFactory, qf QueueFactory) error {
	s, ops, err := Parse(text, wf, qf)
	if err != nil {
		return err
	}
	h, err := s.New()
	if err != nil {
		return err
	}
	for _, op := range ops {
		if err := h.Step(op); err != nil {
			return err
		}
	}
	return nil
}

// Parse parses a trace: the setup of its header (see Replay) and its calls;
// the caller starts the harness and runs them.
func Parse(text string, wf WheelFactory, qf QueueFactory) (Setup, []Op, error) {
	k, kv, ops, err := parseTrace(text)
	if err != nil {
		return Setup{}, nil, err
	}
	var s Setup
	if k == WheelKind {
		s, err = wheelFromHeader(kv, wf)
	} else {
		s, err = queueFromHeader(kv, qf)
	}
	return s, ops, err
}

package harness

import (
	"errors"
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
	// Line is the op's line in the trace it was read from (0: drawn). An add
	// read from a trace must name the id the harness gives it.
	Line int
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
		s, err := k.parseScript(strings.TrimPrefix(args[n-1], "handler="))
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
	if op.ID < 0 {
		return op, fmt.Errorf("%s: %s id %d: ids are 1 and up (0: the null %s)", op.Name, k.thing, op.ID, k.thing)
	}
	return op, nil
}

// parseScript reads call,action,offset,target. A field the action does not
// use must be 0 (a nil handler's call too may be anything: it is never
// called), so that nothing written is ignored.
func (k *Kind) parseScript(s string) (Script, error) {
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
	hs := Script{Call: call, Action: p[1], Offset: off, Target: target}
	var bad string
	switch hs.Action {
	case ActAdd, ActRemove, ActReschedule, ActPanic, ActShrink, ActNil:
	default:
		return Script{}, fmt.Errorf("handler %q: unknown action %q (known: %s)", s, p[1], strings.Join(actions, ", "))
	}
	switch {
	case call < 1 && hs.Action != ActNil:
		bad = fmt.Sprintf("call %d: a handler's calls count from 1", call)
	case off != 0 && hs.Action != ActAdd && hs.Action != ActReschedule:
		bad = hs.Action + " takes no offset: want 0"
	case target != 0 && hs.Action != ActRemove && hs.Action != ActReschedule:
		bad = hs.Action + " takes no target: want 0"
	case target < 0:
		bad = fmt.Sprintf("%s id %d: ids are 1 and up (0: the null %s)", k.thing, target, k.thing)
	}
	if bad != "" {
		return Script{}, fmt.Errorf("handler %q: %s", s, bad)
	}
	return hs, nil
}

// traceError is what is wrong with a malformed trace, and on which line.
type traceError struct {
	line int
	err  error
}

func (e *traceError) Error() string { return fmt.Sprintf("line %d: %v", e.line, e.err) }
func (e *traceError) Unwrap() error { return e.err }

var errEmpty = errors.New("proptest: empty trace: want a header (\"wheel ...\" or \"queue ...\")")

// trace is a trace read: its structure, its header's fields by key, the
// header's line, and its calls.
type trace struct {
	k      *Kind
	kv     map[string]string
	header int
	ops    []Op
}

// headerError is an error in the header's field key=v.
func (t *trace) headerError(key, v string, format string, args ...any) error {
	return &traceError{t.header, fmt.Errorf("header %s=%s: %s", key, v, fmt.Sprintf(format, args...))}
}

// parseTrace reads the text form of a trace: '#' starts a comment; the first
// line is the header "wheel key=value ..." or "queue key=value ...", then
// one call per line (see Kind.Format). Every line is read, however long.
func parseTrace(text string) (*trace, error) {
	t := &trace{kv: map[string]string{}}
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if t.k != nil {
			op, err := t.k.parseOp(f)
			if err != nil {
				return nil, &traceError{n, err}
			}
			op.Line = n
			t.ops = append(t.ops, op)
			continue
		}
		if t.k = map[string]*Kind{"wheel": WheelKind, "queue": QueueKind}[f[0]]; t.k == nil {
			return nil, &traceError{n, fmt.Errorf("header %q: want \"wheel\" or \"queue\" first", line)}
		}
		t.header = n
		for _, p := range f[1:] {
			key, v, ok := strings.Cut(p, "=")
			if !ok {
				return nil, &traceError{n, fmt.Errorf("header field %q: want key=value", p)}
			}
			if _, dup := t.kv[key]; dup {
				return nil, &traceError{n, fmt.Errorf("header field %s: %s given twice", p, key)}
			}
			t.kv[key] = v
		}
	}
	if t.k == nil {
		return nil, errEmpty
	}
	return t, nil
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// maxTraceCapacity bounds the capacity a trace's header asks for: records
// are allocated up front, and the checks draw at most 8.
const maxTraceCapacity = 1 << 16

// fields reads the header's fields into the named pointers; a field not
// named is an error, and so is a capacity beyond maxTraceCapacity.
func (t *trace) fields(into map[string]any) error {
	for key, v := range t.kv {
		if err := parseInto(into[key], v); err != nil {
			return t.headerError(key, v, "%v", err)
		}
	}
	if c, ok := into["capacity"].(*int); ok && (*c < 0 || *c > maxTraceCapacity) {
		return t.headerError("capacity", t.kv["capacity"], "a trace's capacity is 0 to %d", maxTraceCapacity)
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
	t, err := parseTrace(text)
	if err != nil {
		return Setup{}, nil, err
	}
	var s Setup
	if t.k == WheelKind {
		s, err = t.wheel(wf)
	} else {
		s, err = t.queue(qf)
	}
	return s, t.ops, err
}

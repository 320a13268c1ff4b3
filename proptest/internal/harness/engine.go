// Package harness is the one engine behind proptest's checks, for the wheel
// and the queue alike: Gen draws a call from a weighted mix, Step runs it on
// the implementation and on a plain reference model, compares every
// observable, runs Invariant() and records the call in a trace. rapid,
// gopter, fuzz bytes, trace files and proptest/exhaustive all drive it.
package harness

import (
	"errors"
	"fmt"
	"iter"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/gotimingwheel/timingwheel/alarm"
)

// side is one of the two structures a harness drives in step: the
// implementation (handles alarm.Alarm) or its model (handles ModelAlarm).
type side[H comparable] interface {
	add(op Op, id int) (H, error) // Add, AddAtIntervalNum
	Remove(a H) error
	move(op Op, a H) error                                  // Reschedule, RescheduleAtIntervalNum, Change
	fire(op Op, handler func(H)) (result string, err error) // the calls that fire (remove) with a handler
	Clear()
	Shrink() // the model does nothing
	Mem(a H) bool
	value(a H) (int, error)
	at(a H) (int64, error)         // time or key
	intervalOf(a H) (int64, error) // interval number, or key again
	base() int64                   // what a Script's Offset counts from: Now, or MinAllowedKey
	observe() obs                  // the structure-wide queries, in the order of Kind.queries
}

// system is the part of a harness that knows its structure.
type system interface {
	gen(h *Harness, src Source, op *Op, noPanic bool) // draws op's arguments from the model's state
	firedCheck(op Op) func(id int, at int64) error    // checks each alarm the implementation fires
	check(h *Harness) error                           // the implementation's own checks: Invariant, All, ...
}

// entry is an id ever added, with its handles on both sides.
type entry struct {
	id   int
	real alarm.Alarm
	mod  ModelAlarm
	live bool // in both; false once fired, removed or cleared, never again
	seen bool // scratch for checkAll
}

// Harness runs calls on an implementation and its model side by side and
// reports the first difference.
type Harness struct {
	k     *Kind
	sys   system
	impl  side[alarm.Alarm]
	model side[ModelAlarm]
	ents  []entry // ascending by id
	ops   []Op
	// Quiet skips the comparison after each call (exhaustive replays a path
	// it checked before); a call's own results are still compared.
	Quiet  bool
	dead   int  // the id that ended last
	stale  bool // a Clear came after dead ended
	header string
	setup  Setup
	// has reports which methods the structure under test has (nil: all);
	// noReentry keeps handlers from calling into it (see Wrapper).
	has       func(method string) bool
	noReentry bool
	masked    struct{ from, to []int } // Gen's weights without absent operations
	lacksOne  []bool                   // maskOne: the queries about one handle it lacks
}

// Has reports whether the structure under test has the method (a wrapper
// may lack the optional ones): calls it lacks are never drawn and queries it
// lacks are not compared.
func (h *Harness) Has(method string) bool { return method == "" || h.has == nil || h.has(method) }

// Reentrant reports whether handlers may call into the structure under test.
func (h *Harness) Reentrant() bool { return !h.noReentry }

// Kind returns the structure the harness drives.
func (h *Harness) Kind() *Kind { return h.k }

// Setup is a structure under test to start: the header of its traces and
// New, which makes the structure (calling the user's constructor, if any)
// and its model and compares them before any call.
type Setup struct {
	Kind   *Kind
	Header string
	New    func() (*Harness, error)
}

// Setup returns the setup h was started from, to start it again with no
// calls.
func (h *Harness) Setup() Setup { return h.setup }

// Trace returns the text form of the calls run so far, which Replay runs.
func (h *Harness) Trace() string { return h.TraceOf(h.ops) }

// Ops returns the calls run so far; the caller must not change them.
func (h *Harness) Ops() []Op { return h.ops }

// TraceOf returns the text form of ops run on a structure with this
// harness's header.
func (h *Harness) TraceOf(ops []Op) string {
	var b strings.Builder
	b.WriteString(h.header + "\n")
	for _, op := range ops {
		b.WriteString(h.k.Format(op) + "\n")
	}
	return b.String()
}

// ent returns the entry of id, or nil.
func (h *Harness) ent(id int) *entry {
	i, ok := slices.BinarySearchFunc(h.ents, id, func(e entry, id int) int { return e.id - id })
	if !ok {
		return nil
	}
	return &h.ents[i]
}

// handles returns id's handles; the null ones for an id never added.
func (h *Harness) handles(id int) (alarm.Alarm, ModelAlarm) {
	if e := h.ent(id); e != nil {
		return e.real, e.mod
	}
	return alarm.Alarm{}, 0
}

func (h *Harness) maxID() int {
	if len(h.ents) == 0 {
		return 0
	}
	return h.ents[len(h.ents)-1].id
}

// Gen draws the next call: an operation by weights, its arguments from the
// model's state.
func (h *Harness) Gen(src Source, weights []int, noPanic bool) Op {
	op := Op{Name: h.k.ops[weighted(src, "op", h.available(weights))].name}
	h.sys.gen(h, src, &op, noPanic)
	return op
}

// Swarm draws the operation mix of one run from weights: three runs in four
// use weights as they are; the fourth keeps each operation with even odds,
// the first (Add) always. A run that leaves out most operations goes deeper
// into those it keeps (a dozen adds and no advance, say), so bugs that need
// many calls of a few kinds come up in a few runs instead of hundreds,
// while the runs with the whole mix keep its coverage (swarm testing).
func (h *Harness) Swarm(src Source, weights []int) []int {
	if src.Intn("swarm", 4) != 1 {
		return weights
	}
	ws := slices.Clone(weights)
	for i := 1; i < len(ws); i++ {
		if src.Intn("swarmOff", 2) == 1 {
			ws[i] = 0
		}
	}
	for _, w := range h.available(ws) {
		if w > 0 {
			return ws
		}
	}
	return weights // the mix kept nothing the structure has
}

// available returns weights with those of the operations the structure
// under test lacks set to 0.
func (h *Harness) available(weights []int) []int {
	if h.has == nil {
		return weights
	}
	if h.masked.to == nil || &h.masked.from[0] != &weights[0] {
		h.masked.from, h.masked.to = weights, slices.Clone(weights)
		for i, d := range h.k.ops {
			if !h.Has(d.name) {
				h.masked.to[i] = 0
			}
		}
	}
	return h.masked.to
}

// Step runs op on both sides, records it in the trace, and checks every
// observable and the invariant afterwards.
func (h *Harness) Step(op Op) (err error) {
	d := h.k.def(op.Name)
	if d != nil && d.kind == kAdd {
		switch next := h.maxID() + 1; {
		case op.Line == 0:
			op.ID = next
		case op.ID != next:
			return &traceError{op.Line, fmt.Errorf("%v: the %s's id is %d, want %d: ids count up from 1 in the order "+
				"%ss are added (by a call or a handler; a failed add takes none)", h.k.Format(op), h.k.thing, op.ID, next, h.k.thing)}
		}
	}
	if op.Line > 0 {
		defer func() {
			if err != nil {
				err = fmt.Errorf("line %d: %w", op.Line, err)
			}
		}()
	}
	h.ops = append(h.ops, op)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v: unexpected panic: %v\n%s", h.k.Format(op), r, debug.Stack())
		}
	}()
	if d == nil {
		return fmt.Errorf("unknown call %q", op.Name)
	}
	if !h.Has(op.Name) {
		return fmt.Errorf("%v: the %s under test has no %s method", h.k.Format(op), h.k.Name, op.Name)
	}
	if a := op.Script.Action; !h.Has(actionMethod[a]) {
		return fmt.Errorf("%v: the handler calls %s, which the %s under test does not have", h.k.Format(op), actionMethod[a], h.k.Name)
	}
	if err := h.apply(op, d.kind); err != nil {
		return fmt.Errorf("%v: %w", h.k.Format(op), err)
	}
	if h.Quiet {
		return nil
	}
	if err := h.compare(); err != nil {
		return fmt.Errorf("after %v: %w", h.k.Format(op), err)
	}
	return nil
}

// sameErr reports whether got and want are both nil, or both errors that
// wrap the same sentinels.
func (h *Harness) sameErr(got, want error) bool {
	if (got == nil) != (want == nil) {
		return false
	}
	for _, e := range h.k.errs {
		if errors.Is(got, e) != errors.Is(want, e) {
			return false
		}
	}
	return true
}

func (h *Harness) errPair(call string, got, want error) error {
	return fmt.Errorf("%s: %s error %v, model error %v", call, h.k.Name, got, want)
}

func (h *Harness) register(id int, a alarm.Alarm, ma ModelAlarm) {
	h.ents = append(h.ents, entry{id: id, real: a, mod: ma, live: true})
}

func (h *Harness) apply(op Op, kind opKind) error {
	a, ma := h.handles(op.ID)
	var err, merr error
	switch kind {
	case kAdd:
		var got alarm.Alarm
		var mgot ModelAlarm
		got, err = h.impl.add(op, op.ID)
		mgot, merr = h.model.add(op, op.ID)
		if err == nil && merr == nil {
			h.register(op.ID, got, mgot)
		}
	case kRemove:
		err, merr = h.impl.Remove(a), h.model.Remove(ma)
		if err == nil && merr == nil {
			h.dead, h.stale = op.ID, false
		}
	case kMove:
		err, merr = h.impl.move(op, a), h.model.move(op, ma)
	case kShrink:
		h.impl.Shrink() // not observable: every handle must survive it
	case kClear:
		for _, e := range h.ents {
			if e.live {
				h.dead = e.id
			}
		}
		h.stale = h.dead != 0
		h.impl.Clear()
		h.model.Clear()
	case kFire:
		return h.fire(op)
	}
	if !h.sameErr(err, merr) {
		return h.errPair(op.Name, err, merr)
	}
	return h.resync()
}

// fired is what a handler saw: the id and the time (key) of what fired.
type fired struct {
	ID int
	At int64
}

// scriptPanic is the value a scripted handler panics with.
type scriptPanic struct{}

// played is what a firing call did on one side.
type played[H comparable] struct {
	fired    []fired
	result   string
	err      error
	panicked bool
	actErr   error // the error of the Script's action
	added    H
	didAdd   bool
	failure  error // a check inside a handler failed
}

// play runs a firing call on one side with op's Script as the handler. With
// check (the implementation) every handler call also checks the alarm it
// gets: check's own rule (never early), not a member, fired once, not added
// by this call. Without re-entrant handlers the checks that call the
// structure (check's rule, Mem) run after the call returns.
func play[H comparable](h *Harness, s side[H], handle func(int) H, op Op, addID int,
	check func(id int, at int64) error) *played[H] {
	r := &played[H]{}
	fail := func(format string, args ...any) {
		if r.failure == nil {
			r.failure = fmt.Errorf(format, args...)
		}
	}
	hs, calls := op.Script, 0
	handler := func(a H) {
		calls++
		id, err := s.value(a)
		if err != nil {
			fail("the value of the %s a handler got: %v", h.k.thing, err)
			return
		}
		at, err := s.at(a)
		if err != nil {
			fail("the time (key) of %s %d inside its handler: %v", h.k.thing, id, err)
		}
		if check != nil {
			if h.Reentrant() {
				if err := check(id, at); err != nil {
					fail("%v", err)
				}
				if h.Has("Mem") && s.Mem(a) {
					fail("Mem(id %d) true inside its own handler", id)
				}
			}
			switch e := h.ent(id); {
			case e == nil:
				fail("%s %d %s in the call whose handler added it", h.k.thing, id, h.k.verb)
			case !e.live:
				fail("%s %d %s after it was fired, removed or cleared", h.k.thing, id, h.k.verb)
			default:
				e.live = false
			}
		}
		r.fired = append(r.fired, fired{id, at})
		if calls != hs.Call {
			return
		}
		switch hs.Action {
		case ActAdd:
			r.added, r.actErr = s.add(Op{At: s.base() + hs.Offset}, addID)
			r.didAdd = r.actErr == nil
		case ActRemove:
			r.actErr = s.Remove(handle(hs.Target))
		case ActReschedule:
			r.actErr = s.move(Op{At: s.base() + hs.Offset}, handle(hs.Target))
		case ActShrink:
			s.Shrink()
		case ActPanic:
			panic(scriptPanic{})
		}
	}
	if hs.Action == ActNil && check != nil {
		handler = nil
	}
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(scriptPanic); !ok {
					panic(p)
				}
				r.panicked = true
			}
		}()
		r.result, r.err = s.fire(op, handler)
	}()
	if check != nil && !h.Reentrant() {
		for _, f := range r.fired {
			if err := check(f.ID, f.At); err != nil {
				fail("%v", err)
			}
		}
	}
	return r
}

// fire runs a firing call on both sides with the same handler script and
// compares what fired, the results, the handlers' own errors and the panics.
func (h *Harness) fire(op Op) error {
	addID := h.maxID() + 1
	w := play(h, h.impl, func(id int) alarm.Alarm { a, _ := h.handles(id); return a }, op, addID, h.sys.firedCheck(op))
	m := play(h, h.model, func(id int) ModelAlarm { _, ma := h.handles(id); return ma }, op, addID, nil)
	if op.Script.Action == ActNil {
		w.fired = m.fired // nothing to observe; resync checks that they are gone
		for _, f := range m.fired {
			if e := h.ent(f.ID); e != nil {
				e.live = false
			}
		}
	}
	switch {
	case w.failure != nil:
		return w.failure
	case !h.sameErr(w.err, m.err):
		return h.errPair(op.Name, w.err, m.err)
	case w.panicked != m.panicked:
		return fmt.Errorf("handler panic reached the caller: %s %v, model %v", h.k.Name, w.panicked, m.panicked)
	case !slices.Equal(m.fired, w.fired):
		return fmt.Errorf("%s a different sequence%s (-model +%s):\n%s", h.k.verb, h.seqSummary(m.fired, w.fired),
			h.k.Name, h.seqDiff(m.fired, w.fired))
	case w.result != m.result:
		return fmt.Errorf("returned %s, model %s", w.result, m.result)
	case !h.sameErr(w.actErr, m.actErr):
		return fmt.Errorf("handler %s: %s error %v, model error %v", op.Script.Action, h.k.Name, w.actErr, m.actErr)
	case w.didAdd != m.didAdd:
		return fmt.Errorf("handler add: %s added %v, model added %v", h.k.Name, w.didAdd, m.didAdd)
	}
	if len(w.fired) > 0 {
		h.dead, h.stale = w.fired[len(w.fired)-1].ID, false
	}
	if w.didAdd {
		h.register(addID, w.added, m.added)
	}
	return h.resync()
}

// seqSummary says in words how what fired differs from the model's: the ids
// missing and those extra, or that the order or the times differ.
func (h *Harness) seqSummary(want, got []fired) string {
	ids := func(fs []fired) map[int]bool {
		m := map[int]bool{}
		for _, f := range fs {
			m[f.ID] = true
		}
		return m
	}
	w, g := ids(want), ids(got)
	var missing, extra []string
	for _, f := range want {
		if !g[f.ID] {
			missing = append(missing, fmt.Sprint(f.ID))
		}
	}
	for _, f := range got {
		if !w[f.ID] {
			extra = append(extra, fmt.Sprint(f.ID))
		}
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, fmt.Sprintf("%s %s not %s", h.k.thing, strings.Join(missing, ", "), h.k.verb))
	}
	if len(extra) > 0 {
		parts = append(parts, fmt.Sprintf("%s %s %s too", h.k.thing, strings.Join(extra, ", "), h.k.verb))
	}
	if len(parts) == 0 {
		return " (the same ids, in another order or with other times)"
	}
	return ": " + strings.Join(parts, "; ")
}

// maxDiffCells bounds the table seqDiff aligns two sequences with; longer
// sequences are shown whole, one after the other.
const maxDiffCells = 1 << 20

// seqDiff shows what fired on each side, one handler call a line: "- " for
// the model's only, "+ " for the structure's only, "  " for both (aligned on
// a longest common subsequence).
func (h *Harness) seqDiff(want, got []fired) string {
	key := "at" // a wheel's time in ns, as in a trace
	if h.k != WheelKind {
		key = "key"
	}
	var b strings.Builder
	line := func(mark string, f fired) { fmt.Fprintf(&b, "%s%s %d %s %d\n", mark, h.k.thing, f.ID, key, f.At) }
	if len(want)*len(got) > maxDiffCells {
		for _, f := range want {
			line("- ", f)
		}
		for _, f := range got {
			line("+ ", f)
		}
		return b.String()
	}
	// lcs[i][j]: the longest common subsequence of want[i:] and got[j:].
	lcs := make([][]int, len(want)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(got)+1)
	}
	for i := len(want) - 1; i >= 0; i-- {
		for j := len(got) - 1; j >= 0; j-- {
			if want[i] == got[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case i < len(want) && j < len(got) && want[i] == got[j]:
			line("  ", want[i])
			i, j = i+1, j+1
		case j == len(got) || (i < len(want) && lcs[i+1][j] >= lcs[i][j+1]):
			line("- ", want[i])
			i++
		default:
			line("+ ", got[j])
			j++
		}
	}
	return b.String()
}

// resync marks as ended the ids that left both sides (removed, cleared, or
// removed by a handler) and fails when the sides disagree on membership.
func (h *Harness) resync() error {
	for i := range h.ents {
		e := &h.ents[i]
		inM := h.model.Mem(e.mod)
		in := inM // without Mem, Len and what fires show a lost or kept alarm
		if h.Has("Mem") {
			in = h.impl.Mem(e.real)
		}
		switch {
		case in != inM:
			return fmt.Errorf("%s %d: %s Mem %v, model Mem %v", h.k.thing, e.id, h.k.Name, in, inM)
		case in && !e.live:
			return fmt.Errorf("%s %d is a member again after it was fired, removed or cleared", h.k.thing, e.id)
		}
		e.live = in
	}
	return nil
}

// compare runs the implementation's own checks, then compares every
// structure-wide query and every query about each handle ever issued, live
// or dead, with the model's.
func (h *Harness) compare() error {
	if err := h.sys.check(h); err != nil {
		return err
	}
	got, want := h.impl.observe(), h.model.observe()
	for i, q := range h.k.queries {
		if got[i] != want[i] && h.Has(strings.Fields(q)[0]) {
			return fmt.Errorf("%s: %s, model %s", q, showInt(got[i]), showInt(want[i]))
		}
	}
	for _, e := range h.ents {
		if g, w := h.maskOne(observeOne(h.impl, e.real)), h.maskOne(observeOne(h.model, e.mod)); g != w {
			return fmt.Errorf("%s %d: %s %+v, model %+v", h.k.thing, e.id, h.k.oneQueries, g, w)
		}
	}
	return nil
}

// maskOne clears the answers of the queries about one handle that the
// structure under test lacks.
func (h *Harness) maskOne(v view) view {
	if h.has == nil {
		return v
	}
	if h.lacksOne == nil {
		for _, name := range strings.Split(h.k.oneQueries, ", ") { // Mem, then the three of Vals
			h.lacksOne = append(h.lacksOne, !h.Has(name))
		}
	}
	if h.lacksOne[0] {
		v.Mem = false
	}
	for i := range v.Vals {
		if h.lacksOne[i+1] {
			v.Vals[i], v.Errs[i] = 0, 0
		}
	}
	return v
}

// checkAll checks that all yields every live handle once, and nothing else.
func (h *Harness) checkAll(all iter.Seq[alarm.Alarm]) error {
	n, live := 0, 0
	for i := range h.ents {
		h.ents[i].seen = false
		if h.ents[i].live {
			live++
		}
	}
	for a := range all {
		v, err := h.impl.value(a)
		e := h.ent(v)
		if err != nil || e == nil || !e.live || e.seen || e.real != a {
			return fmt.Errorf("All yields %v (id %d, %v): not a live %s, or twice", a, v, err, h.k.thing)
		}
		e.seen = true
		n++
	}
	if n != live {
		return fmt.Errorf("All yields %d, %d live", n, live)
	}
	return nil
}

// pick returns the id of a live alarm mostly, else of a dead one (fired,
// removed or cleared), else 0 (the null alarm).
func (h *Harness) pick(src Source, label string) int {
	if live := h.ids(true); len(live) > 0 && src.Choose(label+"Live", h.k.liveOdds, 1) > 0 {
		return live[src.Intn(label, len(live))]
	}
	if dead := h.ids(false); len(dead) > 0 && src.Intn(label+"Dead", 2) > 0 {
		return dead[src.Intn(label+"DeadPick", len(dead))]
	}
	return 0
}

func (h *Harness) ids(live bool) []int {
	var ids []int
	for _, e := range h.ents {
		if e.live == live {
			ids = append(ids, e.id)
		}
	}
	return ids
}

// genScript draws a handler: two in three calls get a plain one; the rest
// act once (add, remove, reschedule, panic, shrink) or pass a nil handler.
// An offset is drawn in [lo, hi].
func (h *Harness) genScript(src Source, noPanic bool, lo, hi int64) Script {
	if src.Choose("scripted", 3, 1) != 0 {
		return Script{}
	}
	acts := h.actions()
	hs := Script{
		Call:   1 + src.Intn("scriptAt", 4),
		Action: acts[src.Intn("scriptAction", len(acts))],
		Offset: src.Int64Range("scriptOffset", lo, hi),
	}
	if hs.Action == ActPanic && noPanic {
		if !slices.Contains(acts, ActAdd) {
			return Script{}
		}
		hs.Action = ActAdd
	}
	switch hs.Action {
	case ActNil:
		return Script{Action: ActNil}
	case ActPanic, ActShrink:
		hs.Offset = 0
	case ActRemove: // takes no offset: a trace that says one is malformed
		hs.Offset = 0
		hs.Target = h.pick(src, "scriptTarget")
	case ActReschedule:
		hs.Target = h.pick(src, "scriptTarget")
	}
	return hs
}

// actionMethod is the method of the structure under test a handler action
// calls; "" for those that call none.
var actionMethod = map[string]string{ActAdd: "Add", ActRemove: "Remove", ActReschedule: "Reschedule", ActShrink: "Shrink"}

// actions returns the handler actions genScript may draw: all of them, or
// without re-entrant handlers those that do not call the structure, and
// never one that calls a method it lacks.
func (h *Harness) actions() []string {
	if h.has == nil && !h.noReentry {
		return actions
	}
	var acts []string
	for _, a := range actions {
		if m := actionMethod[a]; m == "" || h.Reentrant() && h.Has(m) {
			acts = append(acts, a)
		}
	}
	return acts
}

// Live returns the live ids, ascending (the order they were added in).
func (h *Harness) Live() []int { return h.ids(true) }

// Handle returns the implementation's handle of id.
func (h *Harness) Handle(id int) alarm.Alarm { a, _ := h.handles(id); return a }

// Dead returns the id that ended last (fired, removed, or the last one a
// Clear removed; 0 if none) and whether a Clear came after it ended.
func (h *Harness) Dead() (id int, stale bool) { return h.dead, h.stale }

// obs holds the answers of the structure-wide queries; none stands for the
// answer of an optional query that has none.
type obs [10]int64

const none = int64(-1 << 63)

func opt(v int64, ok bool) int64 {
	if !ok {
		return none
	}
	return v
}

func showInt(v int64) string {
	if v == none {
		return "none"
	}
	return fmt.Sprint(v)
}

// view is what the queries about one handle answer: whether it is a member,
// and values, or errors by the sentinels they wrap.
type view struct {
	Mem  bool
	Vals [3]int64
	Errs [3]uint
}

// observeOne asks s the queries about a.
func observeOne[H comparable](s side[H], a H) view {
	v := view{Mem: s.Mem(a)}
	at, err := s.at(a)
	v.set(0, at, err)
	n, err := s.intervalOf(a)
	v.set(1, n, err)
	x, err := s.value(a)
	v.set(2, int64(x), err)
	return v
}

func (v *view) set(i int, x int64, err error) {
	if err == nil {
		v.Vals[i] = x
		return
	}
	for j, e := range allErrs {
		if errors.Is(err, e) {
			v.Errs[i] |= 1 << j
		}
	}
	if v.Errs[i] == 0 {
		v.Errs[i] = 1 << len(allErrs) // an error that wraps no sentinel
	}
}

var allErrs = append(slices.Clone(WheelKind.errs), QueueKind.errs...)
